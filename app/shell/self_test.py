"""``radioplay studio --self-test REPORT.json``: open the studio, wait until it is
usable, write what it loaded to REPORT.json (and a screenshot beside it), close.

A diagnostics option for anyone who wants to know whether the studio starts on
a machine, and what the desktop build's smoke test (packaging/smoke_test.sh)
and start-up measurement (packaging/build.py) read. "Usable" is what a producer
sees: the window has painted and its status bar says the voice engine is ready
(or that it failed), so the check watches the window, not the engine's insides.
Times are wall-clock (``time.time()``), so the caller can subtract its own
launch time: that is the cold start to a usable window.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, QTimer
from PySide6.QtGui import QGuiApplication, QImageReader

from app.shell.main_window import MainWindow

TIMEOUT_S = 120.0
WATCH_MS = 20  # how often the status bar is read: the resolution of "engine_ready"
READY, FAILED = "Engine: ready", "Engine: not running"  # app/shell/main_window.py's engine label


class SelfTest(QObject):
    """Watches one window; when it is usable (or after ``timeout_s``) writes the report and closes it."""

    def __init__(self, report: Path, timeout_s: float = TIMEOUT_S) -> None:
        super().__init__()
        self.path = report
        self.timeout_s = timeout_s
        self.report: dict[str, Any] = {"self_test_started": time.time()}
        self.window: MainWindow | None = None
        self.passed = False
        self._watch = QTimer(self)
        self._watch.setInterval(WATCH_MS)
        self._watch.timeout.connect(self._check)

    def constructing(self) -> None:
        self.report["window_constructing"] = time.time()

    def attach(self, window: MainWindow) -> None:
        self.report["window_constructed"] = time.time()
        self.window = window
        window.installEventFilter(self)
        self._watch.start()
        QTimer.singleShot(int(self.timeout_s * 1000), self._timeout)

    def import_script(self, script: Path) -> None:
        """File > Import Script of ``script``, accepted as the preview shows it; the report says
        what was imported (``imported``: the script, its roles and lines, each sound cue's file)."""
        assert self.window is not None
        dialog = self.window.files.import_script(script)
        if dialog is None or dialog.imported is None:
            self.report["import_error"] = dialog.notes.text() if dialog is not None else "not opened"
            return
        imported = dialog.imported
        dialog.accept()
        self.report["imported"] = {
            "script": str(script),
            "roles": [role.name for role in imported.project.cast],
            "lines": len(imported.project.lines),
            "sound_cues": [{"id": clip.id, "lane": clip.lane, "cue": clip.cue, "file": clip.file or None}
                           for clip in imported.project.sounds],
        }

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint and "first_paint" not in self.report:
            self.report["first_paint"] = time.time()
        return False

    def _check(self) -> None:
        window = self.window
        if window is None:
            return
        label = window.engine_label.text()
        if label == READY:
            self.report.setdefault("engine_ready", time.time())
        elif label == FAILED:
            self.report.setdefault("engine_failed", window.engine_label.toolTip() or label)
        if "first_paint" in self.report and ("engine_ready" in self.report or "engine_failed" in self.report):
            self.passed = "engine_ready" in self.report
            self._finish()

    def _timeout(self) -> None:
        if "usable" not in self.report:
            self.report["timeout_s"] = self.timeout_s
            self._finish()

    def _finish(self) -> None:
        window = self.window
        if window is None or "usable" in self.report:
            return
        self._watch.stop()
        self.report["usable"] = time.time()
        self.report.update(diagnostics(window, self.path.with_suffix(".png")))
        write_json(self.path, self.report)
        # A diagnostic keeps nothing: a script it imported is neither saved nor asked about
        # (a "save changes?" question would wait forever in an unattended run).
        window.doc.undo.setClean()
        window.close()

    def problem(self) -> str | None:
        """Why the studio did not become usable, or None."""
        if self.passed and "import_error" not in self.report:
            return None
        if "engine_failed" in self.report:
            return f"the voice engine did not start: {self.report['engine_failed']}"
        if "import_error" in self.report:
            return f"the script could not be imported: {self.report['import_error']}"
        if "timeout_s" in self.report:
            return f"the studio was not usable within {self.timeout_s:.0f} s"
        return "the window closed before it was usable"


def diagnostics(window: MainWindow, screenshot: Path) -> dict[str, Any]:
    """What the process loaded and what the window shows."""
    from engine.audio import portaudio

    sd = portaudio.load_sounddevice()
    saved = window.grab().save(str(screenshot))  # PNG, from the suffix
    app = QGuiApplication.instance()
    return {
        "frozen": bool(getattr(sys, "frozen", False)),
        "executable": sys.executable,
        "bundle_dir": getattr(sys, "_MEIPASS", None),
        "qt_platform": QGuiApplication.platformName(),
        "application_name": app.applicationName() if app else None,
        "desktop_file_name": QGuiApplication.desktopFileName(),
        "window_title": window.windowTitle(),
        "script_lines": len(window.doc.project.lines),
        "roles": len(window.doc.project.cast),
        "engine_label": window.engine_label.text(),
        "last_error": window.last_error,
        "image_formats": sorted(bytes(f.data()).decode() for f in QImageReader.supportedImageFormats()),
        "portaudio_error": portaudio.portaudio_error(),
        "portaudio_library": getattr(sd, "_libname", None) if sd is not None else None,
        "torch_loaded": "torch" in sys.modules,
        # resources/ beside the app package, in a checkout and in the bundle alike (app/main.py's
        # icon); this file is app/shell/self_test.py since the feature packages, so three levels up.
        "icon_beside_app": (Path(__file__).resolve().parents[2] / "resources" / "icons"
                            / "radioplay.svg").is_file(),
        "screenshot": str(screenshot) if saved else None,
        # Whether the window and the script's Line column fit the screen (a new user's 1280x720)
        "screen_size": _size(window.screen().availableGeometry().size()) if window.screen() else None,
        "window_size": _size(window.frameGeometry().size()),
        "line_column_right": _line_column_right(window),
        "script_view_width": window.script.view.viewport().width(),
    }


def _size(size: QSize) -> list[int]:
    return [size.width(), size.height()]


def _line_column_right(window: MainWindow) -> int:
    """Where the script's Line column ends, in its view's viewport (past its width: cut off)."""
    from app.script.columns import Col

    header = window.script.view.horizontalHeader()
    return header.sectionViewportPosition(Col.TEXT) + header.sectionSize(Col.TEXT)


def write_json(path: Path, report: dict[str, Any]) -> None:
    """One ``"key": value`` per line (smoke_test.sh reads it with sed), renamed into place."""
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, sort_keys=True)
    os.replace(tmp, path)

