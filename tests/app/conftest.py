"""Qt tests run headless: the offscreen platform, set before any QApplication exists."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
