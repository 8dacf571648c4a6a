"""The measured cast in the background: after Import Script and Suggest Cast have put the
quick cast in place, the measured one (engine.check.casting ``cast_project``, what
``radioplay import`` runs) refines it off the GUI thread while the producer works on.

``MeasuredCasting`` runs one cast at a time on the ``radioplay-casting`` thread (a second
start cancels the first), hands its progress to the GUI thread through the Marshal, and
applies the result as one undo step, to the roles whose voice nobody changed meanwhile: the
producer's own choice is never overwritten. ``CastingProgress`` is its face in the status
bar: what is being measured, a bar role by role, the time left, and Cancel (the quick cast
stays).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from app.document.commands import Macro, SetRoleField
from app.document.document import Document
from app.document.marshal import Marshal, Task, run_task
from engine.check.cast_progress import CastCancelled, CastProgress, remaining_text
from engine.project.snapshot import freeze
from engine.synth.library import VoiceLibrary

LABEL_WIDTH = 460  # pixels of the label, the line cut to fit with "…"; the whole line is its tooltip
PROGRESS_HZ = 4.0  # bar and label updates at most (a report comes after every clip measured)


class MeasuredCasting(QObject):
    """Signals: ``progress(CastProgress)``, ``started()``, ``ended(str)`` (what became of it,
    for the status bar) and ``applied(object)`` (the MeasuredCast, once it is in the cast)."""

    progress = Signal(object)
    started = Signal()
    ended = Signal(str)
    applied = Signal(object)

    def __init__(self, doc: Document, library: VoiceLibrary, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc, self.library = doc, library
        self.marshal = Marshal(self)
        self.task: Task | None = None
        self._cancel = threading.Event()
        self._generation = 0  # the results of a cast started before the latest one are dropped
        self.last: Any = None  # the last MeasuredCast applied
        self.last_progress: CastProgress | None = None
        doc.projectReplaced.connect(self.cancel)  # New, Open: the cast being measured is gone

    def running(self) -> bool:
        return self.task is not None and self.task.running() and not self._cancel.is_set()

    def start(self, reason: str) -> bool:
        """Measure the cast as it stands now (its voices are what the result may replace);
        False, and nothing started, where nothing can be measured (no speaker encoder: the
        quick cast is the cast, as ``radioplay import`` makes it there)."""
        from engine.listen.speaker import SpeakerEncoderUnavailable, weights_path

        try:
            weights_path()
        except SpeakerEncoderUnavailable:
            return False
        self.cancel()
        self._generation += 1
        generation, cancel = self._generation, threading.Event()
        self._cancel = cancel
        project = freeze(self.doc.project)
        before = {role.name: role.voice for role in project.cast}
        library, last_sent = self.library, [0.0]
        self.last_progress = None

        def report(step: CastProgress) -> None:  # the casting thread
            now = time.monotonic()
            if now - last_sent[0] >= 1.0 / PROGRESS_HZ or step.fraction >= 1.0:
                last_sent[0] = now
                self.marshal.to_main(self._progress, generation, step)

        def measure() -> Any:
            from engine.check.casting import cast_project

            return cast_project(project, library, report, cancel)

        self.task = run_task("radioplay-casting", measure, self.marshal,
                             lambda result: self._done(generation, before, reason, result),
                             lambda error: self._failed(generation, error))
        self.started.emit()
        return True

    def cancel(self) -> None:
        if self.task is not None and self.task.running() and not self._cancel.is_set():
            self._cancel.set()
            self.ended.emit("Measured casting cancelled: the roles keep the quick cast")

    def stop(self, timeout_s: float = 5.0) -> None:
        """Cancel and wait for the casting thread (the window closing): it stops within a clip."""
        self.cancel()
        if self.task is not None:
            self.task.join(timeout_s)

    def _progress(self, generation: int, step: CastProgress) -> None:
        if generation == self._generation and not self._cancel.is_set():
            self.last_progress = step
            self.progress.emit(step)

    def _done(self, generation: int, before: dict[str, Any], reason: str, result: Any) -> None:
        if generation != self._generation or self._cancel.is_set():
            return
        self.last = result
        project = self.doc.project
        current = {role.name: role.voice for role in project.cast}
        steps: list[QUndoCommand] = [
            SetRoleField(self.doc, name, "voice", voice) for name, voice in result.voices.items()
            if name in current and current[name] == before.get(name) and voice != current[name]]
        kept = sum(1 for name in result.voices if name in current and current[name] != before.get(name))
        if steps:
            self.doc.undo.push(Macro(f"Measured cast ({reason})", steps))
        closest = f"; {result.summary()}" if result.closest else ""
        mine = f"; {kept} role{'s' if kept != 1 else ''} you recast meanwhile kept" if kept else ""
        changed = f"{len(steps)} voice{'s' if len(steps) != 1 else ''} refined" if steps else "no voice changed"
        self.ended.emit(f"Measured cast: {changed}{closest}{mine} (Undo restores the quick cast)")
        self.applied.emit(result)

    def _failed(self, generation: int, error: BaseException) -> None:
        if generation != self._generation:
            return
        if isinstance(error, CastCancelled):
            return  # said when Cancel was pressed
        self.ended.emit(f"Measured casting failed ({error}): the roles keep the quick cast")


class CastingProgress(QWidget):
    """The measured cast's progress in the status bar; hidden while no cast is measured."""

    def __init__(self, casting: MeasuredCasting, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("castingProgress")
        self.casting = casting
        self.label = QLabel("Measuring the cast…", self)
        self.label.setFixedWidth(LABEL_WIDTH)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(140)
        self.cancel_button = QToolButton(self)
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop measuring: every role keeps the quick cast it has now")
        self.cancel_button.clicked.connect(casting.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        casting.started.connect(self._started)
        casting.progress.connect(self.show_progress)
        casting.ended.connect(lambda _message: self.hide())
        self.hide()

    def _started(self) -> None:
        self.label.setText("Measuring the cast: starting…")
        self.label.setToolTip("")
        self.bar.setValue(0)
        self.show()

    def show_progress(self, step: CastProgress) -> None:
        left = f", {remaining_text(step.remaining_s)}" if step.remaining_s is not None else ""
        text = f"Measuring the cast: {step.settled} of {step.roles} roles{left} — {step.message}"
        metrics = self.label.fontMetrics()
        self.label.setText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, LABEL_WIDTH - 8))
        self.label.setToolTip(text)
        self.bar.setValue(round(step.fraction * 1000))
        self.bar.setToolTip(step.message)
