"""Smoke-test hook of the desktop build (on only with ``RADIOPLAY_SMOKE_REPORT``).

It swaps the studio's MainWindow for a subclass that, once the window has
painted and the voice engine is ready (or failed), records when, what the
bundle loaded (Qt platform, PortAudio, torch), saves a screenshot, writes it
all as JSON to the report file and closes the window, so ``app.main.run``
returns through its normal exit path. Times are wall-clock (``time.time()``)
so the caller can subtract its own launch time: that is the cold start to a
usable window. packaging/smoke_test.sh and packaging/build.py read it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

IMPORTED_AT = time.time()
TIMEOUT_S = float(os.environ.get("RADIOPLAY_SMOKE_TIMEOUT", "120"))


def install(report_path: str) -> None:
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtGui import QGuiApplication

    import app.main as studio

    report: dict[str, Any] = {"hook_imported": IMPORTED_AT}
    base = studio.MainWindow  # type: ignore[attr-defined]

    def write() -> None:
        tmp = f"{report_path}.part"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2, sort_keys=True)
        os.replace(tmp, report_path)

    class SmokeWindow(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            report["window_constructing"] = time.time()
            super().__init__(*args, **kwargs)
            report["window_constructed"] = time.time()
            self._smoke_done = False
            self._smoke_watch = _FirstPaint(self)
            self.installEventFilter(self._smoke_watch)
            if self.engine is not None:
                self.engine.ready.connect(self._smoke_engine_ready)
                self.engine.failed.connect(self._smoke_engine_failed)
            QTimer.singleShot(int(TIMEOUT_S * 1000), self._smoke_timeout)

        def _smoke_engine_ready(self) -> None:
            report.setdefault("engine_ready", time.time())
            QTimer.singleShot(0, self._smoke_check)

        def _smoke_engine_failed(self, message: str) -> None:
            report["engine_failed"] = message
            QTimer.singleShot(0, self._smoke_check)

        def _smoke_painted(self) -> None:
            report.setdefault("first_paint", time.time())
            QTimer.singleShot(0, self._smoke_check)

        def _smoke_timeout(self) -> None:
            report["timeout_s"] = TIMEOUT_S
            self._smoke_finish()

        def _smoke_check(self) -> None:
            if "first_paint" in report and ("engine_ready" in report or "engine_failed" in report):
                self._smoke_finish()

        def _smoke_finish(self) -> None:
            if self._smoke_done:
                return
            self._smoke_done = True
            report["usable"] = time.time()
            report.update(_diagnostics(self, report_path))
            write()
            self.close()

    class _FirstPaint(QObject):
        def __init__(self, window: SmokeWindow) -> None:
            super().__init__(window)
            self.window = window

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint and "first_paint" not in report:
                self.window._smoke_painted()
            return False

    def _diagnostics(window: Any, report_path: str) -> dict[str, Any]:
        from PySide6.QtGui import QImageReader

        from engine.audio import portaudio

        sd = portaudio.load_sounddevice()
        shot = Path(report_path).with_suffix(".png")
        saved = window.grab().save(str(shot))  # PNG, from the suffix
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
            # Where app/ can find the icon set: resources/ beside the app package, in a
            # checkout and in the bundle alike.
            "icon_beside_app": (Path(studio.__file__).resolve().parent.parent / "resources" / "icons"
                                / "radioplay.svg").is_file(),
            "screenshot": str(shot) if saved else None,
        }

    studio.MainWindow = SmokeWindow  # type: ignore[attr-defined]
