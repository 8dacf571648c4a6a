"""A real ``radioplay studio PROJECT`` process for the crash tests.

    python -m tests.support.studio_child PROJECT TEXT

runs the studio's own entry point (app.launch -> app.main.run) offscreen on
the null output, types TEXT into the first line of the script as a producer
would, waits until the debounced autosave holds it, prints ``AUTOSAVED`` and
keeps running until the test kills it (SIGKILL: no clean exit, no Python
cleanup). The test sets RADIOPLAY_STATE_DIR, the working folder and an
isolated XDG_CONFIG_HOME for QSettings.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app import launch  # noqa: E402
from app.script.model import Col  # noqa: E402
from app.shell.main_window import MainWindow  # noqa: E402


def _drive(text: str) -> None:
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    if not windows:
        QTimer.singleShot(50, lambda: _drive(text))
        return
    window = windows[0]
    model = window.script.model
    line = window.doc.project.lines[0]
    model.setData(model.index(model.row_of_line(line.id), Col.TEXT), text)
    _wait_for_autosave(window, text)


def _wait_for_autosave(window: MainWindow, text: str) -> None:
    autosave = Path(window.recovery.file)
    if autosave.is_file() and text in autosave.read_text(encoding="utf-8") and window.recovery.meta.is_file():
        print("AUTOSAVED", flush=True)
        return
    QTimer.singleShot(50, lambda: _wait_for_autosave(window, text))


if __name__ == "__main__":
    project, text = sys.argv[1], sys.argv[2]
    QTimer.singleShot(0, lambda: _drive(text))
    sys.exit(launch.main(["studio", project, "--output", "null"]))
