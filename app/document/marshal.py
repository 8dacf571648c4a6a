"""The one way work crosses between threads in the studio.

Engine objects call back on their own threads (scheduler workers, the
export worker, the engine thread). Nothing may touch a widget from there, so
every such callback goes through :class:`Marshal`: ``to_main(fn, *args)``
queues the call onto the GUI thread through a signal with a queued
connection. :func:`run_task` runs a blocking job on a named worker thread
and reports its result or error back through the same helper.

Threads: ``run_task`` starts one Python thread per task, named by the
caller (``radioplay-export`` ...); it is joined by whoever owns the task
(``Task.join``), never killed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot


class Marshal(QObject):
    """Queues callables onto the thread this object lives in (the GUI thread)."""

    _call = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._call.connect(self._run, Qt.ConnectionType.QueuedConnection)

    def to_main(self, fn: Callable[..., Any], *args: Any) -> None:
        """Safe from any thread; ``fn(*args)`` runs later on the GUI thread."""
        self._call.emit(partial(fn, *args))

    @Slot(object)
    def _run(self, call: Callable[[], Any]) -> None:
        call()


def on_gui_thread() -> bool:
    """True on the thread that runs the Qt event loop (tests assert with it)."""
    app = QCoreApplication.instance()
    return app is not None and app.thread() == QThread.currentThread()


class Task:
    """A blocking job on its own named thread; results come back via Marshal."""

    def __init__(self, name: str, job: Callable[[], Any], marshal: Marshal,
                 on_done: Callable[[Any], None], on_error: Callable[[BaseException], None]) -> None:
        self._job, self._marshal = job, marshal
        self._on_done, self._on_error = on_done, on_error
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        try:
            result = self._job()
        except BaseException as exc:  # noqa: BLE001 - reported to the GUI, never swallowed
            self._report(self._on_error, exc)
        else:
            self._report(self._on_done, result)

    def _report(self, fn: Callable[[Any], None], value: Any) -> None:
        try:
            self._marshal.to_main(fn, value)
        except RuntimeError:  # the window (and its Marshal) closed while the task ran
            pass

    def start(self) -> Task:
        self.thread.start()
        return self

    def running(self) -> bool:
        return self.thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self.thread.is_alive():
            self.thread.join(timeout)


def run_task(name: str, job: Callable[[], Any], marshal: Marshal, on_done: Callable[[Any], None],
             on_error: Callable[[BaseException], None]) -> Task:
    return Task(name, job, marshal, on_done, on_error).start()
