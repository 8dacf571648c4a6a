"""EngineThread: the one thread that owns the engine Session.

Threads:
- GUI thread: calls ``post``/``line_changed``/... (never blocks: they only
  put a command on a queue) and ``latest()`` from a QTimer to read the most
  recent :class:`EngineState` (a "latest value" slot, never a backlog).
- Engine thread (this QThread, "radioplay-engine"): creates the Session
  (loading voices can take seconds, so never on the GUI thread), runs the
  queued commands in order, and takes a snapshot of transport, line status,
  clips, levels and metrics at most ``SNAPSHOT_HZ`` times a second. It stops
  on a sentinel, closing the Session on its way out.
- The Session's own threads (scheduler, mixer, audio callback) are the
  engine's business; their callbacks never reach Qt directly.

Text typing would re-queue a line on every keystroke; ``line_changed``
coalesces a line's changes until it has been quiet for ``TYPING_QUIET_S``.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

SNAPSHOT_HZ = 25.0
TYPING_QUIET_S = 0.35
_STOP = object()

Command = Callable[[Any], None]  # called with the Session, on the engine thread


@dataclass(frozen=True)
class EngineState:
    """One consistent-enough picture of the engine for the GUI to draw."""

    serial: int
    transport: Any  # engine.session.TransportSnapshot
    line_status: dict[str, Any]  # line id -> engine.session.LineStatus
    clips: list[Any]  # engine.session.ClipView
    levels: Any = None  # engine.session.LevelsSnapshot
    metrics: Any = None  # engine.metrics.hub.EngineSnapshot
    error: str | None = None  # the last problem the Session met (Session.last_error)
    taken_at: float = field(default_factory=time.monotonic)


class EngineThread(QThread):
    """Owns one Session for one Project. ``ready`` / ``failed(message)`` report start-up."""

    ready = Signal()
    failed = Signal(str)
    commandFailed = Signal(str)

    def __init__(self, factory: Callable[[], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("radioplay-engine")
        self._factory = factory
        self._commands: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._latest: EngineState | None = None
        self._lock = threading.Lock()
        self._typing: dict[str, float] = {}  # line id -> monotonic time it may be flushed
        self._stopping = False
        self.session: Any = None  # set on the engine thread; read-only elsewhere
        self.outputs: list[str] = []  # sound devices the Session can play through, "null" last

    # ---- GUI side ------------------------------------------------------
    def post(self, command: Command) -> None:
        """Run ``command(session)`` on the engine thread, in order. Never blocks."""
        if not self._stopping:
            self._commands.put(command)

    def line_changed(self, line_id: str, typing: bool = False) -> None:
        delay = TYPING_QUIET_S if typing else 0.0
        self._commands.put(("line", line_id, delay))

    def latest(self) -> EngineState | None:
        with self._lock:
            return self._latest

    def stop(self) -> None:
        """Ask the thread to close the Session and finish; ``wait()`` to join it."""
        self._stopping = True
        self._commands.put(_STOP)

    # ---- engine thread -----------------------------------------------------
    def run(self) -> None:
        try:
            self.session = self._factory()
        except Exception as exc:  # noqa: BLE001 - reported in the window, not as a traceback
            self.failed.emit(_describe(exc))
            return
        try:
            self.outputs = list(self.session.outputs())
        except Exception:  # noqa: BLE001 - no PortAudio: only the silent clock
            self.outputs = ["null"]
        self.ready.emit()
        serial = 0
        period = 1.0 / SNAPSHOT_HZ
        next_snapshot = 0.0
        try:
            while True:
                timeout = max(0.0, min(next_snapshot, self._next_typing_due()) - time.monotonic())
                try:
                    item = self._commands.get(timeout=timeout)
                except queue.Empty:
                    item = None
                if item is _STOP:
                    break
                if item is not None:
                    self._run(item)
                now = time.monotonic()
                self._flush_typing(now)
                if now >= next_snapshot:
                    serial += 1
                    self._snapshot(serial)
                    next_snapshot = now + period
        finally:
            self._flush_typing(float("inf"))
            try:
                self.session.close()
            except Exception as exc:  # noqa: BLE001
                self.commandFailed.emit(f"Closing the engine: {_describe(exc)}")

    def _run(self, item: object) -> None:
        if isinstance(item, tuple) and item[0] == "line":
            _, line_id, delay = item
            if delay:
                self._typing[line_id] = time.monotonic() + delay
                return
            self._typing.pop(line_id, None)
            item = lambda s, lid=line_id: s.line_changed(lid)  # noqa: E731
        try:
            item(self.session)  # type: ignore[operator]
        except Exception as exc:  # noqa: BLE001 - one bad command must not stop the engine
            self.commandFailed.emit(_describe(exc))

    def _next_typing_due(self) -> float:
        return min(self._typing.values(), default=float("inf"))

    def _flush_typing(self, now: float) -> None:
        for line_id in [lid for lid, due in self._typing.items() if due <= now]:
            del self._typing[line_id]
            try:
                self.session.line_changed(line_id)
            except Exception as exc:  # noqa: BLE001
                self.commandFailed.emit(_describe(exc))

    def _snapshot(self, serial: int) -> None:
        s = self.session
        try:
            state = EngineState(serial=serial, transport=s.transport(), line_status=s.line_status(),
                                clips=s.clips(), levels=_optional(s, "levels"),
                                metrics=_optional(s.metrics, "snapshot") if getattr(s, "metrics", None) else None,
                                error=getattr(s, "last_error", None))
        except Exception as exc:  # noqa: BLE001
            self.commandFailed.emit(f"Engine status: {_describe(exc)}")
            return
        with self._lock:
            self._latest = state


def _optional(obj: Any, name: str) -> Any:
    fn = getattr(obj, name, None)
    return fn() if callable(fn) else None


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return text if text else type(exc).__name__
