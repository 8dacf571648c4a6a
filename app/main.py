"""``radioplay`` / ``radioplay studio [PROJECT]``: open the studio window (app/launch.py parses the
command line and imports this module, and so Qt, only for the studio)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from app.shell.main_window import MainWindow, first_size
from app.shell.self_test import SelfTest

ORGANIZATION = "Radioplay"
SCRIPT_SUFFIXES = (".fountain", ".spmd", ".txt")  # what File > Import Script reads
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
    icon = Path(__file__).resolve().parent.parent / "resources" / "icons" / "radioplay.svg"
    if icon.is_file():  # a checkout and the desktop bundle both carry it there
        app.setWindowIcon(QIcon(str(icon)))
    return app


def is_script(path: Path) -> bool:
    """A screenplay or ``NAME: line`` text to import, not a production to open."""
    return path.suffix.lower() in SCRIPT_SUFFIXES


def no_display() -> str | None:
    """Why a window cannot open here, or None. Qt would abort the process instead."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("no display to open the studio window on (DISPLAY and WAYLAND_DISPLAY are not set); run it "
            "in a desktop session, or use the headless verbs (radioplay render ...)")


def run(project: str | Path | None = None, output: str | None = None, self_test: str | Path | None = None,
        device: str | None = None) -> int:
    """Open the window (on ``project`` if given) and run until it closes. With ``self_test``
    (a report path) the window closes itself once usable: see app/shell/self_test.py.
    ``output`` and ``device``: the sound device and the synthesis device for this run."""
    path = Path(project) if project else None
    if path is not None and not path.is_file():
        print(f"radioplay: error: {path}: no such {'script' if is_script(path) else 'project'} file", file=sys.stderr)
        return 1
    script = path if path is not None and is_script(path) else None
    if script is not None:
        path = None  # a script opens as File > Import Script of it, over an empty production
    problem = no_display()
    if problem:
        print(f"radioplay: error: {problem}", file=sys.stderr)
        return 1
    app = make_app()
    probe = SelfTest(Path(self_test)) if self_test is not None else None
    if probe is not None:
        probe.constructing()
    # Without --output the window plays through the device chosen last time (Transport > Sound Output),
    # without --device it synthesizes where it did last time (Transport > Synthesis Device).
    window = MainWindow(path, output=output, device=device, size=first_size())
    window.show()
    if probe is not None:
        probe.attach(window)  # a self-test answers no recovery question: it only watches
        if script is not None:
            QTimer.singleShot(0, lambda: probe.import_script(script))
    else:  # after the event loop starts, so the question appears over the window
        QTimer.singleShot(0, window.files.offer_recovery)
        if script is not None:
            QTimer.singleShot(0, lambda: window.files.import_script(script))
    status = int(app.exec())
    if probe is not None and (problem := probe.problem()):
        print(f"radioplay: self-test failed: {problem} (report: {probe.path})", file=sys.stderr)
        status = status or 1
    _settle(window, status)
    return status


ENGINE_CLOSE_S = 120.0  # after the window: how long the engine's threads get to finish


def _settle(window: MainWindow, status: int) -> None:
    """Let the engine finish closing before the interpreter does. A thread still in
    native code (an ONNX inference) when Python finalizes is ended by pthread_exit
    inside C++ and aborts the process ("terminate called without an active
    exception", status 134); if the threads do not finish in time, leave without
    finalizing instead (everything the studio writes is already saved atomically)."""
    deadline = time.monotonic() + ENGINE_CLOSE_S
    settled = window.engine.wait(ENGINE_CLOSE_S)
    for thread in threading.enumerate():  # the scheduler's, the checker's: joined with time limits
        if thread is not threading.current_thread() and thread.name.startswith("radioplay"):
            thread.join(max(0.0, deadline - time.monotonic()))
            settled = settled and not thread.is_alive()
    if not settled:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)

