"""Where the tests find the repository's own files."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"
SAMPLE = SAMPLES / "the-last-broadcast.radioplay"
BENCH = REPO / "bench"
# Screenshots the studio tests take, to look at (RADIOPLAY_ARTIFACTS moves them).
ARTIFACTS = Path(os.environ.get("RADIOPLAY_ARTIFACTS", REPO / "tests" / "app" / "artifacts"))
