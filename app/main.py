"""``radioplay`` / ``radioplay studio [PROJECT]``: open the studio window."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.main_window import MainWindow, default_session_factory

ORGANIZATION = "Radioplay"
APPLICATION = "Radioplay Studio"


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setOrganizationDomain("radioplay.invalid")
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("Radioplay")
    app.setDesktopFileName("radioplay")
    return app


def run(project: str | Path | None = None, output: str | None = None) -> int:
    """Open the window (on ``project`` if given) and run until it closes."""
    app = make_app()
    path = Path(project) if project else None
    if path is not None and not path.is_file():
        print(f"radioplay: error: {path}: no such project file", file=sys.stderr)
        return 1
    window = MainWindow(path, session_factory=default_session_factory(output=output))
    window.show()
    # After the event loop starts, so the question appears over the window.
    QTimer.singleShot(0, window.files.offer_recovery)
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else None))
