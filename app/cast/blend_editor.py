"""Voice design: a Kokoro role's voice as a weighted blend of style vectors.

Two or more styles of one voices file, each with a weight; the role's voice
becomes ``af_heart:0.6+af_bella:0.4`` (engine.project.blend: the file keeps
the mix, so it reproduces). While the weights move the designer auditions the
blend: after ``AUDITION_DELAY_MS`` of stillness it asks for one audition
through the Session's audition path (``audition(params)``: the engine's
control thread plans it and the scheduler makes it at audition priority, and
a newer audition of the role supersedes an older one), so nothing is
synthesized on the GUI thread and a drag does not queue a line per step. OK
applies the blend as one undo step; Cancel leaves the role as it was.
"""

from __future__ import annotations

from collections.abc import Callable

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
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.project.blend import MAX_PARTS, BlendError, parse_blend
from engine.project.engines import blend_engine, engine_named
from engine.project.model import VoiceParams

AUDITION_DELAY_MS = 450  # a pause in the drag this long is a weight worth hearing
STEPS = 100  # slider resolution: weights in hundredths


def blend_spec(parts: list[tuple[str, int]]) -> str:
    """``[("af_heart", 60), ("af_bella", 40)]`` -> ``"af_heart:0.6+af_bella:0.4"``; one
    part is the style alone. Weights are relative (the engine divides by their sum)."""
    if len(parts) == 1:
        return parts[0][0]
    return "+".join(f"{name}:{weight / STEPS:g}" for name, weight in parts)


def initial_parts(voice: VoiceParams, styles: list[str]) -> list[tuple[str, int]]:
    """The blend the designer opens with: the role's own (a Kokoro role), else the
    first two styles half and half."""
    if engine_named(voice.backend).blends:
        try:
            parts = parse_blend(voice.voice)
        except BlendError:
            parts = ()
        if parts and all(name in styles for name, _ in parts):
            total = sum(w for _, w in parts)
            out = [(name, max(1, round(w / total * STEPS))) for name, w in parts]
            return out + ([(_unused(styles, out), STEPS // 2)] if len(out) == 1 and len(styles) > 1 else [])
    return [(name, STEPS // 2) for name in styles[:2]]


def _unused(styles: list[str], parts: list[tuple[str, int]]) -> str:
    used = {name for name, _ in parts}
    return next((s for s in styles if s not in used), styles[0])


class _PartRow:
    """One style of the blend: which vector, how much of it, and its share."""

    def __init__(self, editor: BlendEditor, name: str, weight: int) -> None:
        self.style = QComboBox(editor)
        self.style.addItems(editor.styles)
        self.style.setCurrentText(name)
        self.weight = QSlider(Qt.Orientation.Horizontal, editor)
        self.weight.setRange(1, STEPS)  # never 0: a part with no weight is a removed part
        self.weight.setValue(weight)
        self.weight.setMinimumWidth(180)
        self.share = QLabel(editor)
        self.share.setMinimumWidth(44)
        self.share.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.remove = QToolButton(editor)
        self.remove.setText("✕")
        self.remove.setToolTip("Remove this style from the blend")
        self.style.currentTextChanged.connect(editor.changed)
        self.weight.valueChanged.connect(editor.changed)
        self.remove.clicked.connect(lambda: editor.remove_part(self))

    def widgets(self) -> list[QWidget]:
        return [self.style, self.weight, self.share, self.remove]


class BlendEditor(QDialog):
    """Design a role's Kokoro voice. ``audition(params)`` hears a trial voice (the
    window routes it to the Session); :meth:`params` is the voice OK would set."""

    def __init__(self, role: str, voice: VoiceParams, styles: list[str],
                 audition: Callable[[VoiceParams], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("blendEditor")
        self.setWindowTitle(f"Design the voice of {role}")
        self.role, self.base, self.styles, self._audition = role, voice, styles, audition
        self.rows: list[_PartRow] = []
        self.auditioned: list[VoiceParams] = []  # what was sent to be heard, in order
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(AUDITION_DELAY_MS)
        self.timer.timeout.connect(self.audition_now)

        intro = QLabel(f"Mix Kokoro style vectors into a voice for {role}. The weights are relative; "
                       "the blend is saved in the project.", self)
        intro.setWordWrap(True)
        self.grid = QGridLayout()
        self.grid.setColumnStretch(1, 1)
        for col, title in enumerate(("Style", "Weight", "Share")):
            self.grid.addWidget(QLabel(f"<b>{title}</b>", self), 0, col)
        self.add_button = QPushButton("Add style", self)
        self.add_button.setToolTip(f"Mix in another style vector (at most {MAX_PARTS})")
        self.add_button.clicked.connect(self.add_part)
        self.result_label = QLabel(self)
        self.result_label.setObjectName("blendResult")
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.live = QCheckBox("Audition as the weights move", self)
        self.live.setChecked(True)
        self.listen = QPushButton("Audition", self)
        self.listen.clicked.connect(self.audition_now)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                   self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Use this voice")

        tools = QHBoxLayout()
        tools.addWidget(self.add_button)
        tools.addStretch(1)
        tools.addWidget(self.live)
        tools.addWidget(self.listen)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(self.grid)
        layout.addLayout(tools)
        layout.addWidget(self.result_label)
        layout.addWidget(buttons)
        for name, weight in initial_parts(voice, styles):
            self._add_row(name, weight)
        self._refresh()

    # ---- the parts --------------------------------------------------------------------
    def parts(self) -> list[tuple[str, int]]:
        return [(row.style.currentText(), row.weight.value()) for row in self.rows]

    def spec(self) -> str:
        return blend_spec(self.parts())

    def problem(self) -> str | None:
        names = [name for name, _ in self.parts()]
        twice = next((n for n in names if names.count(n) > 1), None)
        return f"{twice} is in the blend twice: pick another style or remove one" if twice else None

    def params(self) -> VoiceParams:
        """The role's voice with this blend (speed, pitch, variation kept)."""
        return self.base.with_changes(backend=blend_engine().name, voice=self.spec(), speaker=None)

    def add_part(self) -> None:
        if len(self.rows) < MAX_PARTS:
            self._add_row(_unused(self.styles, self.parts()), STEPS // 2)
            self.changed()

    def remove_part(self, row: _PartRow) -> None:
        if len(self.rows) <= 1:
            return
        self.rows.remove(row)
        for widget in row.widgets():
            self.grid.removeWidget(widget)
            widget.deleteLater()
        for i, kept in enumerate(self.rows):  # close the gap
            for col, widget in enumerate(kept.widgets()):
                self.grid.addWidget(widget, i + 1, col)
        self.changed()

    def _add_row(self, name: str, weight: int) -> None:
        row = _PartRow(self, name, weight)
        self.rows.append(row)
        for col, widget in enumerate(row.widgets()):
            self.grid.addWidget(widget, len(self.rows), col)

    # ---- reacting -----------------------------------------------------------------------
    def changed(self, *_: object) -> None:
        """A weight or style moved: show the new mix, audition it once the hand rests."""
        self._refresh()
        if self.live.isChecked() and self.problem() is None:
            self.timer.start()  # restarted by every step of a drag: one audition at its end

    def audition_now(self) -> None:
        self.timer.stop()
        if self.problem() is None:
            params = self.params()
            self.auditioned.append(params)
            self._audition(params)

    def _refresh(self) -> None:
        total = sum(w for _, w in self.parts()) or 1
        for row in self.rows:
            row.share.setText(f"{row.weight.value() / total:.0%}")
            row.remove.setEnabled(len(self.rows) > 1)
        self.add_button.setEnabled(len(self.rows) < min(MAX_PARTS, len(self.styles)))
        problem = self.problem()
        self.ok.setEnabled(problem is None)
        self.listen.setEnabled(problem is None)
        self.result_label.setText(problem or f"Voice: {blend_engine().listed(self.spec())}")

    def done(self, result: int) -> None:  # noqa: D102 - a closed designer auditions nothing more
        self.timer.stop()
        super().done(result)
