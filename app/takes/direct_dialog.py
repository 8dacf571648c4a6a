"""Takes > Direct by Voice…: record yourself reading the line (or pick a WAV), and the
role's voice performs it with your timing and intonation, as a new take, chosen.

The studio's face of ``radioplay direct`` (engine/direct/take.py does the work): the
input is the table read's (a PortAudio microphone through engine.rehearse.reader's
MicReader, with a level meter), or a WAV file. The microphone's buffers come on a
queue the dialog drains on a QTimer (nothing waits: a queue read), at most
``MAX_READ_S`` of them. Making the take (trimming the read to its speech, checking it
says the line, aligning its words, keeping it beside the project) runs on a worker
thread through :func:`app.document.marshal.run_task`, with a busy bar and Cancel; its
result lands as one undo step (the line's takes, chosen take and read takes), and the
studio's Session voices the chosen take as it voices any. A read it cannot use says
why in one line, in the dialog, which stays open for another try.

Threads: ``radioplay-direct`` (one per Make take).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.document.commands import SetLineFields
from app.document.marshal import Task, run_task
from app.takes.access import TakesStudio
from app.widgets.meter import LevelMeter
from engine.direct.read import MAX_READ_S
from engine.direct.take import FOLLOWS

FROM_FILE = "A WAV file…"
DEFAULT_INPUT = "System default input"
_DRAIN_MS = 50


@dataclass(frozen=True)
class MadeTake:
    """What the worker hands back: the line's new fields and where the read was kept."""

    fields: dict[str, Any]
    read: Path
    seed: int


class DirectByVoiceDialog(QDialog):
    def __init__(self, window: TakesStudio, line_id: str, parent: QWidget | None = None) -> None:
        from engine.rehearse.reader import has_default_input, input_names

        super().__init__(parent)
        self.setObjectName("directByVoiceDialog")
        self.setWindowTitle("Direct by Voice")
        self.window_ = window
        self.line_id = line_id
        line = window.doc.project.line(line_id)
        self.rate = window.doc.project.sample_rate
        self.recorded: list[np.ndarray] = []
        self.file: Path | None = None
        self.mic: Any = None
        self.task: Task | None = None
        self.made: MadeTake | None = None
        self._cancelled = False
        self.heading = QLabel(f"{line.id} ({line.role}): {line.text}", self)
        self.heading.setWordWrap(True)
        self.input = QComboBox(self)
        self.input.setObjectName("directInput")
        if has_default_input():
            self.input.addItem(DEFAULT_INPUT, None)
        for name in input_names():
            self.input.addItem(name, name)
        self.input.addItem(FROM_FILE, FROM_FILE)
        self.record_button = QPushButton("Record", self)
        self.record_button.setObjectName("directRecord")
        self.record_button.setToolTip("Read the line aloud, then press again to stop")
        self.meter = LevelMeter(parent=self)
        self.meter.setToolTip("Your read's level (dBFS peak, hold mark) and its short-term loudness (LUFS)")
        self.levels: Any = None  # the engine's meters on the microphone's buffers, while recording
        self.length = QLabel("", self)
        self.follow = QComboBox(self)
        for name in FOLLOWS:
            self.follow.addItem({"both": "Timing and intonation", "timing": "Timing only",
                                 "intonation": "Intonation only"}[name], name)
        self.strength = QSpinBox(self)
        self.strength.setRange(0, 100)
        self.strength.setValue(100)
        self.strength.setSuffix(" %")
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)  # busy: the read is heard and aligned in one go
        self.progress.hide()
        self.status = QLabel("", self)
        self.status.setObjectName("directStatus")
        self.status.setWordWrap(True)
        self.make_button = QPushButton("Make take", self)
        self.make_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", self)
        recording = QHBoxLayout()
        recording.addWidget(self.record_button)
        recording.addWidget(self.meter, 1)
        recording.addWidget(self.length)
        form = QFormLayout()
        form.addRow("Input", self.input)
        form.addRow("Your read", recording)
        form.addRow("Follow", self.follow)
        form.addRow("Strength", self.strength)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.make_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self._drain = QTimer(self)
        self._drain.setInterval(_DRAIN_MS)
        self._drain.timeout.connect(self._take_chunks)
        self.input.currentIndexChanged.connect(self._input_changed)
        self.record_button.clicked.connect(self._record)
        self.make_button.clicked.connect(self.make)
        self.cancel_button.clicked.connect(self.cancel)
        self._input_changed()

    # ---- the read ------------------------------------------------------------------------
    def _from_file(self) -> bool:
        return bool(self.input.currentData() == FROM_FILE)  # currentData() is untyped

    def _input_changed(self, *_: object) -> None:
        self.stop_recording()
        self.record_button.setText("Choose\u2026" if self._from_file() else "Record")

    def choose_file(self, path: Path | None = None) -> None:
        if path is None:
            name, _ = QFileDialog.getOpenFileName(self, "Your read of the line", "", "WAV files (*.wav)")
            if not name:
                return
            path = Path(name)
        self.file, self.recorded = path, []
        self.length.setText(path.name)
        self.status.clear()

    def _record(self) -> None:
        if self._from_file():
            self.choose_file()
        elif self.mic is None:
            self.start_recording()
        else:
            self.stop_recording()

    def start_recording(self) -> None:
        from engine.rehearse.reader import MicReader, ReaderError

        self.stop_recording()
        try:
            self.mic = MicReader(self.rate, self.input.currentData())
            self.mic.start()
        except ReaderError as exc:
            self.mic = None
            self.status.setText(str(exc))
            return
        from engine.audio.meters import LevelMeters

        self.recorded, self.file = [], None
        self.levels = LevelMeters(self.rate, 0, channels=1)
        self.meter.reset()
        self.status.setText("Recording: read the line, then press Stop")
        self.record_button.setText("Stop")
        self._drain.start()

    def stop_recording(self) -> None:
        if self.mic is None:
            return
        self._drain.stop()
        mic, self.mic = self.mic, None
        mic.close()
        self._take_chunks(mic)
        self.record_button.setText("Record")
        self.meter.set_levels(None)
        self.status.setText(f"Recorded {self.recorded_s():.1f} s" if self.recorded else "Nothing was recorded")

    def _take_chunks(self, mic: Any = None) -> None:
        """What the microphone delivered since the last tick, metered; the recording
        stops itself at the longest read a line may have."""
        import queue

        mic = mic or self.mic
        if mic is None:
            return
        no_lanes = np.zeros((0, 0, 1), dtype=np.float32)
        while True:
            try:
                chunk = mic.chunks.get_nowait()
            except queue.Empty:
                break
            self.recorded.append(chunk.audio)
            if self.levels is not None and chunk.audio.size:
                self.levels.update(chunk.audio.reshape(-1, 1), no_lanes.reshape(0, chunk.audio.size, 1))
        if self.mic is not None and self.levels is not None:
            shown = self.levels.snapshot
            self.meter.set_levels(shown.master_peak_db, shown.master_hold_db, shown.short_term_lufs)
        self.length.setText(f"{self.recorded_s():.1f} s")
        if self.mic is not None and self.recorded_s() >= MAX_READ_S:
            self.stop_recording()

    def recorded_s(self) -> float:
        return sum(c.size for c in self.recorded) / self.rate

    # ---- the take ------------------------------------------------------------------------
    def make(self) -> None:
        """The take made from the read on a worker thread."""
        from engine.direct.take import strengths

        self.stop_recording()
        doc = self.window_.doc
        if doc.path is None:
            self.status.setText("Save the project first: your read is kept beside it, in its takes folder")
            return
        if self.file is None and not self.recorded:
            self.status.setText("Record your read of the line first (or choose a WAV file)")
            return
        timing, intonation = strengths(str(self.follow.currentData()), self.strength.value())
        project, path, line_id, file = doc.project, doc.path, self.line_id, self.file
        audio = np.concatenate(self.recorded) if self.recorded else None
        rate = self.rate

        def job() -> MadeTake:
            from engine.audio.sound_file import AudioFileError, read_audio
            from engine.direct.read import ReadRefused
            from engine.direct.take import direct_line

            samples, at = audio, rate
            if samples is None:
                assert file is not None
                try:
                    samples, at = read_audio(file, MAX_READ_S)
                except AudioFileError as exc:
                    raise ReadRefused(f"{exc.path}: {exc.problem}") from None
            made = direct_line(project, path, line_id, samples, at, timing=timing, intonation=intonation)
            line = made.project.line(line_id)
            return MadeTake({"takes": line.takes, "take": line.take, "read_takes": line.read_takes},
                            Path(made.take.read), line.take)

        self._cancelled = False
        self._busy(True)
        self.status.setText("Listening to your read and making the take\u2026")
        self.task = run_task("radioplay-direct", job, self.window_.marshal, self._done, self._failed)

    def _busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        for widget in (self.make_button, self.record_button, self.input, self.follow, self.strength):
            widget.setEnabled(not busy)

    def _done(self, made: MadeTake) -> None:
        self._busy(False)
        self.task = None
        from engine.direct.take import discard_read

        doc = self.window_.doc
        if self._cancelled:
            discard_read(doc.project, made.read)
            return
        try:
            line = doc.project.line(self.line_id)
        except KeyError:
            line = None
        if line is None or line.locked is not None or made.fields["read_takes"][-1].text != line.text:
            discard_read(doc.project, made.read)
            self.status.setText("The line changed while your read was heard: make the take again")
            return
        self.made = made
        doc.undo.push(SetLineFields(doc, self.line_id, made.fields, "Direct by Voice"))
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        from engine.direct.read import ReadRefused, RecognizerUnavailable
        from engine.direct.take import DirectError
        from engine.output_paths import OutputPathError

        self._busy(False)
        self.task = None
        if self._cancelled:
            return
        if isinstance(exc, (ReadRefused, DirectError, OutputPathError, RecognizerUnavailable)):
            self.status.setText(f"{exc}; no take made")
        else:
            self.status.setText(f"Cannot make the take: {exc}")

    def cancel(self) -> None:
        """Stop recording, or let a take being made go (its result is dropped), and close."""
        self.stop_recording()
        if self.task is not None:
            self._cancelled = True
        self.reject()

    def closeEvent(self, event: object) -> None:  # noqa: N802
        self.stop_recording()
        if self.task is not None:
            self._cancelled = True
        super().closeEvent(event)  # type: ignore[arg-type]


def direct_by_voice(window: TakesStudio, line_id: str, parent: QWidget | None = None) -> DirectByVoiceDialog:
    """The dialog for ``line_id``, shown (not modal: the studio keeps playing and editing)."""
    dialog = DirectByVoiceDialog(window, line_id, parent)
    dialog.show()
    return dialog
