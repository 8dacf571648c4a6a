"""Cast > Design Voice…: a role's voice as a design over its installed voice.

A slider for every field of the design (engine.project.design: pitch level,
range and slope, vocal-tract length, breathiness, jitter, tilt, rate, gain) and the
presets a producer understands (engine.project.voice_presets: woman, girl,
older man, husky, ...), each filling the sliders from the source voice's
gender and still adjustable. While a slider moves the designer auditions
the design: after ``AUDITION_DELAY_MS`` of stillness it asks for one
audition through the Session's audition path (the engine's control thread
plans it, the scheduler makes it at audition priority, and a newer audition
of the role supersedes an older one), so nothing is synthesized on the GUI
thread and a drag does not queue a line per step. OK applies the design as
one undo step; Cancel leaves the role as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from engine.project.design import FIELD_LIMITS, NEUTRAL, VoiceDesign
from engine.project.engines import engine_named
from engine.project.model import VoiceParams
from engine.project.voice_presets import GENDERS, PRESETS, design_for, source_gender

AUDITION_DELAY_MS = 350  # a pause in the drag this long is a setting worth hearing
CUSTOM = "(custom)"


@dataclass(frozen=True)
class Field:
    """One slider: the design field, its label, unit and slider steps per unit."""

    name: str
    label: str
    unit: str
    steps: int  # slider positions per unit of the field
    tip: str

    def text(self, value: float) -> str:
        if self.name in ("formant", "f0_range", "rate"):
            return f"×{value:.2f}"
        if self.name == "breathiness":
            return "whisper" if value >= 1.0 else f"{value:.0%}"
        if self.name == "jitter":
            return f"{value:.1%}"
        return f"{value:+.1f} {self.unit}"


FIELDS = (
    Field("f0_shift", "Pitch", "st", 10, "Pitch level in semitones (the formants stay: still the same throat)"),
    Field("f0_range", "Pitch range", "", 100, "How much the pitch moves: 0 monotone, 1 as spoken, 1.5 livelier"),
    Field("f0_slope", "Pitch slope", "st", 10, "Semitones added from the start of a line to its end "
          "(falling or rising delivery)"),
    Field("formant", "Vocal tract", "", 100, "Formants up (> 1, a shorter tract: a woman's, a child's) or down "
          "(< 1, a larger man's), pitch kept"),
    Field("breathiness", "Breathiness", "", 100, "Breath mixed into the voice; all the way = a whisper"),
    Field("jitter", "Unsteadiness", "", 1000, "Pitch jitter from one period to the next: the roughness of an "
          "older voice (a few per cent)"),
    Field("tilt", "Brightness", "dB/oct", 10, "Spectral tilt above 1 kHz: + brighter, - darker and softer"),
    Field("rate", "Rate", "", 100, "Speaking rate (time-scaled, pitch and formants kept)"),
    Field("gain", "Level", "dB", 10, "Level offset kept through loudness levelling (a shout stays louder)"),
)


class _FieldRow:
    def __init__(self, editor: DesignEditor, field: Field) -> None:
        self.field = field
        lo, hi = FIELD_LIMITS[field.name]
        self.label = QLabel(field.label, editor)
        self.label.setToolTip(field.tip)
        self.slider = QSlider(Qt.Orientation.Horizontal, editor)
        self.slider.setObjectName(f"design_{field.name}")
        self.slider.setRange(round(lo * field.steps), round(hi * field.steps))
        self.slider.setMinimumWidth(240)
        self.slider.setToolTip(field.tip)
        self.value = QLabel(editor)
        self.value.setMinimumWidth(76)
        self.value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.slider.valueChanged.connect(editor.changed)

    def get(self) -> float:
        return self.slider.value() / self.field.steps

    def set(self, value: float) -> None:
        self.slider.setValue(round(value * self.field.steps))


class DesignEditor(QDialog):
    """Design a role's voice. ``audition(params)`` hears a trial voice (the window
    routes it to the Session); :meth:`params` is the voice OK would set."""

    def __init__(self, role: str, voice: VoiceParams, audition: Callable[[VoiceParams], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("designEditor")
        self.setWindowTitle(f"Design the voice of {role}")
        self.role, self.base, self._audition = role, voice, audition
        self.auditioned: list[VoiceParams] = []  # what was sent to be heard, in order
        self._filling = False  # sliders set by a preset: one audition, not one per slider
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(AUDITION_DELAY_MS)
        self.timer.timeout.connect(self.audition_now)

        source = engine_named(voice.backend).called(voice.voice)
        intro = QLabel(f"Make a character of <b>{source}</b> for {role}: start from a preset, then move "
                       "the sliders. The design is saved in the project.", self)
        intro.setWordWrap(True)
        self.preset = QComboBox(self)
        self.preset.setObjectName("designPreset")
        self.preset.addItem(CUSTOM)
        for p in PRESETS:
            self.preset.addItem(p.name)
            self.preset.setItemData(self.preset.count() - 1, p.description, Qt.ItemDataRole.ToolTipRole)
        self.gender = QComboBox(self)
        self.gender.setObjectName("designSourceGender")
        self.gender.addItems(list(GENDERS))
        self.gender.setCurrentText(source_gender(voice.backend, voice.voice))
        self.gender.setToolTip("Who the installed voice is: 'woman' raises a man's voice and leaves a "
                               "woman's as it is; 'man' does the reverse")
        top = QHBoxLayout()
        top.addWidget(QLabel("Preset", self))
        top.addWidget(self.preset, 1)
        top.addSpacing(12)
        top.addWidget(QLabel("Installed voice is", self))
        top.addWidget(self.gender)

        self.grid = QGridLayout()
        self.grid.setColumnStretch(1, 1)
        self.rows: dict[str, _FieldRow] = {}
        for i, field in enumerate(FIELDS):
            row = _FieldRow(self, field)
            self.rows[field.name] = row
            self.grid.addWidget(row.label, i, 0)
            self.grid.addWidget(row.slider, i, 1)
            self.grid.addWidget(row.value, i, 2)

        self.reset = QPushButton("Neutral", self)
        self.reset.setToolTip("The installed voice as it is")
        self.reset.clicked.connect(lambda: self.set_design(NEUTRAL))
        self.live = QCheckBox("Audition as the sliders move", self)
        self.live.setChecked(True)
        self.listen = QPushButton("Audition", self)
        self.listen.clicked.connect(self.audition_now)
        self.summary = QLabel(self)
        self.summary.setObjectName("designResult")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                   self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Use this design")

        tools = QHBoxLayout()
        tools.addWidget(self.reset)
        tools.addStretch(1)
        tools.addWidget(self.live)
        tools.addWidget(self.listen)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(top)
        layout.addLayout(self.grid)
        layout.addLayout(tools)
        layout.addWidget(self.summary)
        layout.addWidget(buttons)

        self.set_design(voice.design, audition=False)
        self.preset.currentTextChanged.connect(self.choose_preset)
        self.gender.currentTextChanged.connect(lambda _: self.choose_preset(self.preset.currentText()))

    # ---- the design ---------------------------------------------------------------------
    def design(self) -> VoiceDesign:
        return VoiceDesign(**{name: row.get() for name, row in self.rows.items()})

    def params(self) -> VoiceParams:
        """The role's voice with this design (voice, speed, pitch, variation kept)."""
        return self.base.with_changes(design=self.design())

    def set_design(self, design: VoiceDesign, audition: bool = True) -> None:
        self._filling = True
        for name, row in self.rows.items():
            row.set(getattr(design, name))
        self._filling = False
        self._refresh()
        if audition:
            self.changed()

    def choose_preset(self, name: str) -> None:
        """A preset fills every slider for the installed voice's gender (still adjustable)."""
        if name == CUSTOM:
            return
        self.set_design(design_for(name, self.gender.currentText()))
        self._show_preset(name)

    # ---- reacting -----------------------------------------------------------------------
    def changed(self, *_: object) -> None:
        """A slider moved: show the values, audition once the hand rests."""
        if self._filling:
            return
        self._refresh()
        if self.live.isChecked():
            self.timer.start()  # restarted by every step of a drag: one audition at its end

    def audition_now(self) -> None:
        self.timer.stop()
        params = self.params()
        self.auditioned.append(params)
        self._audition(params)

    def _refresh(self) -> None:
        for row in self.rows.values():
            row.value.setText(row.field.text(row.get()))
        design = self.design()
        gender = self.gender.currentText()
        self._show_preset(next((p.name for p in PRESETS if self.on_sliders(design_for(p.name, gender)) == design),
                               CUSTOM))
        changed = design.to_dict()
        self.summary.setText("Design: the installed voice as it is" if not changed else
                            "Design: " + ", ".join(f"{self.rows[k].field.label.lower()} "
                                                   f"{self.rows[k].field.text(v)}" for k, v in changed.items()))

    def on_sliders(self, design: VoiceDesign) -> VoiceDesign:
        """``design`` as the sliders can hold it (each field to its slider's step)."""
        return VoiceDesign(**{name: round(getattr(design, name) * row.field.steps) / row.field.steps
                              for name, row in self.rows.items()})

    def _show_preset(self, name: str) -> None:
        self.preset.blockSignals(True)
        self.preset.setCurrentText(name)
        self.preset.blockSignals(False)

    def done(self, result: int) -> None:  # noqa: D102 - a closed designer auditions nothing more
        self.timer.stop()
        super().done(result)

