"""EngineLink: the studio's one way to the engine Session.

The Session is the engine's only command queue (its control thread,
"radioplay-live"); this facade adds no queue or thread of its own. Every
method here runs on the GUI thread and returns at once: Session methods
only put an event on the Session's queue.

Threads:
- GUI thread: all of this class. Edits of the Document become project
  snapshots (engine.project.snapshot) handed to ``Session.update``; the
  presenter reads ``state()`` (latest-value slots) from its QTimer.
- "radioplay-engine-start" / "radioplay-engine-close": one-shot tasks
  (app.document.marshal.run_task) that open a Session (loading voices and opening the
  sound device take seconds) and close one (joining its threads), so the
  GUI thread never waits for either. ``wait()`` joins them on shutdown.

The document's signals are gathered until the event loop turns (or until a
command needs them first), so one undo step that renames a role, or
deletes fifty lines, becomes one snapshot.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from app.document.document import Document
from app.document.marshal import Marshal, Task, run_task
from engine.project.model import Project, VoiceParams
from engine.project.snapshot import freeze, refresh
from engine.sched.cost import Outlook
from engine.session import Session, SessionState
from engine.synth.backends.synth_device import preferred_device

SessionFactory = Callable[[Project, Path | None], Session]


def default_session_factory(output: str | None = None, prerender: bool = True, check: bool = True,
                            device: Callable[[], str | None] | None = None) -> SessionFactory:
    """``check``: the speech check runs in the background (engine/session/checking.py).
    ``device``: asked as each Session opens, the synthesis device to run on (``--device`` or the
    preference: a device no longer here is said and ``auto`` taken); None, or an answer of None:
    plain CPU sessions. Resolved on the start task's thread: a probe of a GPU takes a second."""

    def make(project: Project, path: Path | None) -> Session:
        asked = device() if device is not None else None
        synth_device = preferred_device(asked) if asked is not None else None
        return Session(project, path, output=output, prerender=prerender, check=check, device=synth_device)

    return make


class EngineLink(QObject):
    """Owns at most one running Session for the Document's production.
    ``ready`` / ``failed(message)`` report how a start went."""

    ready = Signal()
    failed = Signal(str)
    problem = Signal(str)  # a command the Session refused (for the status bar)

    def __init__(self, doc: Document, factory: SessionFactory, marshal: Marshal,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc, self.factory, self.marshal = doc, factory, marshal
        self._session: Session | None = None
        self._starting: Task | None = None
        self._closing: list[Task] = []
        self._abandoned: list[Task] = []  # start tasks stopped before their Session arrived
        # Sessions a start task opened that the GUI thread has not taken yet. The task
        # thread adds to it; wait() closes what is left, because a window that is going
        # away never runs the task's "opened" callback.
        self._unclaimed: list[Session] = []
        self._unclaimed_lock = threading.Lock()
        self.outputs: list[str] = []  # sound devices the Session can play through, "null" last
        self._snapshot = freeze(doc.project)  # what the Session was last handed
        self._hand_over_as: Callable[[Project], Project] | None = None
        self._dirty_lines: set[str] | None = set()  # None: any line may have changed
        self._dirty = False
        self._typing = True  # only line edits since the last hand-over (typing is re-planned when quiet)
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(0)
        self._flush_timer.timeout.connect(self.flush)
        doc.lineChanged.connect(self._line_changed)
        doc.linesReset.connect(self._changed)
        doc.castReset.connect(self._changed)
        doc.roleChanged.connect(self._setting_changed)
        doc.projectChanged.connect(self._setting_changed)

    # ---- life cycle ---------------------------------------------------------------
    def start(self) -> None:
        """Close any running Session and open one for the document as it is now."""
        self.stop()
        self._snapshot = freeze(self.doc.project)
        self._dirty, self._dirty_lines, self._typing = False, set(), True
        snapshot, path, factory = self._snapshot, self.doc.path, self.factory

        def open_session() -> tuple[Session, list[str]]:
            session = factory(snapshot, path)
            with self._unclaimed_lock:
                self._unclaimed.append(session)
            try:
                outputs = session.outputs()
            except Exception:  # noqa: BLE001 - no PortAudio: only the silent clock
                outputs = ["null"]
            return session, outputs

        task: Task | None = None

        def opened(result: tuple[Session, list[str]]) -> None:
            session, outputs = result
            with self._unclaimed_lock:
                if session not in self._unclaimed:
                    return  # closed by wait() at shutdown
                self._unclaimed.remove(session)
            if self._starting is not task:  # stopped (or restarted) while it opened
                self._close(session)
                return
            self._starting, self._session, self.outputs = None, session, outputs
            self.flush()  # edits made while it opened
            self.ready.emit()

        def not_opened(exc: BaseException) -> None:
            if self._starting is task:
                self._starting = None
                self.failed.emit(str(exc).strip() or type(exc).__name__)

        task = run_task("radioplay-engine-start", open_session, self.marshal, opened, not_opened)
        self._starting = task

    def stop(self) -> None:
        """Close the Session in the background (a start in flight is closed when it arrives)."""
        if self._starting is not None:
            self._abandoned.append(self._starting)  # wait() joins it, then closes what it opened
        self._starting = None
        session, self._session = self._session, None
        self.outputs = []
        if session is not None:
            self._close(session)

    def _close(self, session: Session) -> None:
        self._closing = [t for t in self._closing if t.running()]
        self._closing.append(run_task("radioplay-engine-close", session.close, self.marshal,
                                      lambda _: None, lambda exc: None))

    def wait(self, timeout: float = 15.0) -> bool:
        """Join the start and close tasks (shutdown); closes a Session that opened meanwhile.
        True when every one has finished (they may need longer than ``timeout`` on a busy machine)."""
        starting, self._starting = self._starting, None
        starts = self._abandoned + ([starting] if starting is not None else [])
        for task in starts:  # first: a Session they open is closed just below
            task.join(timeout)
        self._abandoned.clear()
        with self._unclaimed_lock:
            orphans, self._unclaimed = self._unclaimed, []
        for session in orphans:
            session.close()
        for task in self._closing:
            task.join(timeout)
        self._closing = [task for task in self._closing if task.thread.is_alive()]
        return not self._closing and not any(task.thread.is_alive() for task in starts)

    def running(self) -> bool:
        """A Session runs or is being opened."""
        return self._session is not None or self._starting is not None

    def session(self) -> Session | None:
        """The running Session, up to date with every edit so far (export, tests)."""
        self.flush()
        return self._session

    # ---- the document -> snapshots -------------------------------------------------
    def _line_changed(self, line_id: str) -> None:
        if self._dirty_lines is not None:
            self._dirty_lines.add(line_id)
        self._mark(typing=True)

    def _changed(self) -> None:
        self._dirty_lines = None
        self._mark(typing=False)

    def _setting_changed(self, *_: str) -> None:
        self._mark(typing=False)

    def _mark(self, typing: bool) -> None:
        self._dirty = True
        self._typing = self._typing and typing
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def flush(self) -> None:
        """Hand the Session a snapshot of every edit gathered so far."""
        if not self._dirty:
            return
        lines, typing = self._dirty_lines, self._typing
        self._dirty, self._dirty_lines, self._typing = False, set(), True
        self._flush_timer.stop()
        snapshot = refresh(self._snapshot, self.doc.project, lines)
        if snapshot is self._snapshot:
            return
        self._snapshot = snapshot
        if self._session is not None:
            self._session.update(self._as_handed(snapshot), typing=typing)
        # Before the Session runs, ``opened`` hands over the newest snapshot.

    def hand_over_as(self, transform: Callable[[Project], Project] | None) -> None:
        """Hand the Session every snapshot through ``transform`` from now on (the table
        read mutes the roles read live while it plays through this Session, edits or
        not); None goes back to the document as it is, at once."""
        self._hand_over_as = transform
        if self._session is not None:
            self.flush()
            self._session.update(self._as_handed(self._snapshot))

    def _as_handed(self, snapshot: Project) -> Project:
        return self._hand_over_as(snapshot) if self._hand_over_as is not None else snapshot

    # ---- commands (each returns at once) --------------------------------------------
    def _live(self) -> Session | None:
        self.flush()  # an edit made just before a command reaches the Session first
        return self._session

    def play(self, from_s: float | None = None) -> None:
        """Play; when synthesis cannot keep up from there (a Kokoro cast on a small CPU),
        ``problem`` says so first, with the remedy, as ``radioplay play`` does."""
        if (session := self._live()) is not None:
            outlook = session.outlook(session.transport().position_s if from_s is None else from_s)
            if not outlook.keeps_up:
                self.problem.emit(f"Playing ahead of synthesis: {outlook.describe()}")
            session.play(from_s)

    def prefetch(self, line_ids: list[str]) -> None:
        """Voice these lines before any other, in this order (Play's "wait" and "pre-render")."""
        if (session := self._live()) is not None:
            session.prefetch(line_ids)

    def late_lines(self) -> list[str]:
        """The lines playback reached before they were voiced, oldest first."""
        session = self._session
        return [line_id for line_id, _ in list(session.late_log)] if session is not None else []

    def pause(self) -> None:
        if (session := self._live()) is not None:
            session.pause()

    def stop_playback(self) -> None:
        if (session := self._live()) is not None:
            session.stop()

    def seek(self, position_s: float) -> None:
        if (session := self._live()) is not None:
            session.seek(max(0.0, position_s))

    def set_loop(self, region: tuple[float, float] | None) -> None:
        if (session := self._live()) is not None:
            try:
                session.set_loop(region)
            except ValueError as exc:
                self.problem.emit(str(exc))

    def audition(self, role: str, text: str, voice: VoiceParams | None = None) -> None:
        if (session := self._live()) is not None:
            session.audition(role, text, voice)

    def play_recording(self, audio: np.ndarray, rate: int) -> bool:
        """Play a recording (a catalogue's voice sample); False when no engine runs."""
        if (session := self._live()) is None:
            return False
        session.play_recording(audio, rate)
        return True

    def set_output(self, name: str) -> None:
        if (session := self._live()) is not None:
            session.set_output(name)

    # ---- reading ---------------------------------------------------------------------
    def state(self) -> SessionState | None:
        return self._session.state() if self._session is not None else None

    def outlook(self, from_s: float) -> Outlook | None:
        """Whether synthesis keeps up with playback from ``from_s`` (None: no engine runs)."""
        return self._session.outlook(from_s) if self._session is not None else None

    def realtime(self, backend: str) -> float | None:
        """Audio seconds per wall second the running engine makes of a backend here, all its
        workers busy: what it has measured, its prior until then. The play outlook reads the
        same figure (engine.sched.cost.CostModel.realtime), so picker and status bar agree.
        None while no engine runs."""
        session = self._session
        if session is None:
            return None
        return session.scheduler.cost.realtime(backend, session.scheduler.workers)

    def measured(self, backend: str) -> bool:
        """Whether the running engine has voiced a line of this backend here yet."""
        session = self._session
        return session is not None and session.scheduler.cost.measured(backend)

    def words(self, line_id: str) -> tuple[tuple[str, float, float], ...]:
        """The line's written words timed within its clip (empty when not known)."""
        return self._session.line_words(line_id) if self._session is not None else ()

    def peaks(self, line_id: str, columns: int) -> np.ndarray | None:
        """A line's waveform, or a sound clip's (the timeline draws both)."""
        session = self._session
        if session is None:
            return None
        peaks = session.clip_peaks(line_id, columns)
        return peaks if peaks is not None else session.sound_peaks(line_id, columns)
