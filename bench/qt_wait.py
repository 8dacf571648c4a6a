"""Waiting for the studio as a user's session does: inside Qt's event loop.

A benchmark that spins ``processEvents()`` and sleeps a millisecond between
calls takes the GIL hundreds of times a second, which the studio's own
threads (the export, the engine's control thread) then wait for; measured on
the sample's export, the spinning wait's main thread showed in 350 of its
samples under py-spy. A producer's studio sleeps in ``exec()`` until an event
comes. Here a QEventLoop runs until the condition holds, looked at every
``every_ms`` from a timer (the figures' resolution).
"""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(done: Callable[[], bool], timeout: float, what: str, every_ms: int = 5) -> None:
    """Run the Qt event loop until ``done()`` (raises SystemExit naming ``what`` after ``timeout`` seconds)."""
    from PySide6.QtCore import QEventLoop, QTimer

    if done():
        return
    deadline = time.monotonic() + timeout
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(every_ms)
    timer.timeout.connect(lambda: loop.quit() if done() or time.monotonic() > deadline else None)
    timer.start()
    loop.exec()
    timer.stop()
    if not done():
        raise SystemExit(f"the studio: {what} did not happen within {timeout:.0f} s")
