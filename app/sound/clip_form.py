"""The selected sound clip's settings, in the Sounds panel: gain, pan, fades,
loop, length, an effect's place in its scene's room (perspective and
distance, staged as a line is: engine/audio/staging.py), and removing it. Every change is one undoable edit
(app/sound/edits.py); the form follows undo and redo through the document's
``projectChanged``. GUI thread only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QWidget,
)

from app.sound import edits as sound_edits
from engine.project.sound import SoundClip
from engine.project.staging import DISTANCE_RANGE, PERSPECTIVES, Position
from engine.project.timeline import MAX_SILENCE_S

UNPLACED = "Not placed (as recorded)"
NOT_PLACEABLE = "An ambience or music bed is not placed in the room: an ambience is the room."

if TYPE_CHECKING:
    from app.document.document import Document


class SoundClipForm(QGroupBox):
    def __init__(self, doc: Document, parent: QWidget | None = None) -> None:
        super().__init__("Selected sound clip", parent)
        self.setObjectName("soundClipForm")
        self.doc = doc
        self.clip_id: str | None = None
        self._filling = False
        form = QFormLayout(self)
        self.cue = QLabel("Click a sound clip on the timeline", self)
        self.cue.setWordWrap(True)
        form.addRow(self.cue)
        self.gain = self._spin(form, "Gain dB", -60.0, 24.0, "gain_db")
        self.pan = self._spin(form, "Pan", -1.0, 1.0, "pan", step=0.1)
        self.fade_in = self._spin(form, "Fade in s", 0.0, 600.0, "fade_in", step=0.25)
        self.fade_out = self._spin(form, "Fade out s", 0.0, 600.0, "fade_out", step=0.25)
        self.length = self._spin(form, "Length s", 0.0, MAX_SILENCE_S, "length", step=1.0)  # as the loader allows
        self.length.setSpecialValueText("by its end")  # 0: the OUT cue, next clip or scene decides
        self.loop = QCheckBox("Loop (a bed repeats its file with a crossfade)", self)
        self.loop.toggled.connect(lambda on: self._edit(loop=on))
        form.addRow(self.loop)
        # An effect's place in its scene's room, as a line's (docs/user/staging.md).
        self.perspective = QComboBox(self)
        self.perspective.setObjectName("soundPerspective")
        self.perspective.addItem(UNPLACED, "")
        for name in PERSPECTIVES:
            self.perspective.addItem(name, name)
        self.perspective.currentIndexChanged.connect(
            lambda i: self._edit(perspective=self.perspective.itemData(i)))
        form.addRow("Perspective", self.perspective)
        self.distance = QDoubleSpinBox(self)
        self.distance.setObjectName("soundDistance")
        self.distance.setRange(0.0, DISTANCE_RANGE[1])  # 0: as the perspective places it
        self.distance.setDecimals(1)
        self.distance.setSingleStep(0.5)
        self.distance.setSuffix(" m")
        self.distance.setKeyboardTracking(False)
        self.distance.setSpecialValueText("as the perspective places it")
        self.distance.valueChanged.connect(self._edit_distance)
        form.addRow("Distance", self.distance)
        self.placement_note = QLabel(NOT_PLACEABLE, self)
        self.placement_note.setWordWrap(True)
        form.addRow(self.placement_note)
        self.remove = QPushButton("Remove clip", self)
        self.remove.clicked.connect(self.remove_clip)
        form.addRow(self.remove)
        doc.projectChanged.connect(lambda field: self.show_clip(self.clip_id) if field == "sounds" else None)
        self.show_clip(None)

    def _spin(self, form: QFormLayout, label: str, lo: float, hi: float, field: str,
              step: float = 1.0) -> QDoubleSpinBox:
        spin = QDoubleSpinBox(self)
        spin.setRange(lo, hi)
        spin.setDecimals(2)
        spin.setSingleStep(step)
        spin.setKeyboardTracking(False)
        spin.valueChanged.connect(lambda v: self._edit(**{field: v}))
        form.addRow(label, spin)
        return spin

    def clip(self) -> SoundClip | None:
        return self.doc.sound_clip(self.clip_id) if self.clip_id is not None else None

    def show_clip(self, clip_id: str | None) -> None:
        self.clip_id = clip_id
        clip = self.clip()
        self._filling = True
        try:
            for widget in (self.gain, self.pan, self.fade_in, self.fade_out, self.length, self.loop, self.remove):
                widget.setEnabled(clip is not None)
            placeable = clip is not None and self._kind(clip) == "effects"
            for placing in (self.perspective, self.distance):
                placing.setEnabled(placeable)
            self.placement_note.setVisible(clip is not None and not placeable)
            if clip is None:
                self.clip_id = None
                self.cue.setText("Click a sound clip on the timeline")
                return
            sound = clip.file.rsplit("/", 1)[-1] if clip.file else "no sound yet"
            self.cue.setText(f"{clip.lane}: {clip.cue or clip.id} ({sound})")
            self.gain.setValue(clip.gain_db)
            self.pan.setValue(clip.pan)
            self.fade_in.setValue(clip.fade_in)
            self.fade_out.setValue(clip.fade_out)
            self.length.setValue(clip.length or 0.0)
            self.loop.setChecked(clip.loop)
            self.perspective.setCurrentIndex(max(0, self.perspective.findData(clip.perspective)))
            distance = clip.position.distance if clip.position is not None else None
            self.distance.setValue(distance or 0.0)
        finally:
            self._filling = False

    def _edit_distance(self, value: float) -> None:
        """A distance of the producer's (0: the perspective's again), keeping any pan or path."""
        clip = self.clip()
        if clip is None:
            return
        distance = max(value, DISTANCE_RANGE[0]) if value else None
        position = replace(clip.position or Position(), distance=distance)
        self._edit(position=None if position == Position() else position)

    def _kind(self, clip: SoundClip) -> str:
        return next((lane.kind for lane in self.doc.project.sound_lanes if lane.name == clip.lane), "effects")

    def _edit(self, **values: Any) -> None:
        if self._filling or self.clip_id is None:
            return
        if "length" in values:  # 0 gives the end back to the OUT cue, the next clip or the scene
            length = values["length"] or None
            values = {"length": length, "end": "length" if length else self._natural_end()}
        command = sound_edits.set_clip(self.doc, self.clip_id, values, "Change sound clip")
        if command is not None:
            self.doc.undo.push(command)

    def remove_clip(self) -> None:
        if self.clip_id is None:
            return
        self.doc.undo.push(sound_edits.remove_clip(self.doc, self.clip_id))
        self.show_clip(None)

    def _natural_end(self) -> str:
        """The end a clip has without a length: its OUT cue, else a bed's next clip or
        scene end, else (a one-shot) its file."""
        clip = self.clip()
        if clip is None or clip.out_line is not None:
            return "out"
        return "file" if self._kind(clip) == "effects" else "next"
