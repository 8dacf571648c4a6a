"""Edit > Project Timing…: the production's timing settings in one dialog.

The gaps between lines and before a scene, and the lengths of the timing
directions a writer puts inside lines ("(beat)", "(pause)", "(long pause)";
an explicit "[pause 2]" keeps its own length). These are the project file's
``"timing"``; a change is one undo step (:class:`SetProjectField` on
``timing``). The running Session re-plans from it as from any edit: lines
move when a gap changes, and every line using a changed direction is voiced
again (the pause is inside its clip and its cache key).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from app.document.commands import SetProjectField
from app.document.document import Document
from engine.project.bounds import project_overstep
from engine.project.defaults import (
    DEFAULT_BEAT,
    DEFAULT_LINE_GAP,
    DEFAULT_LONG_PAUSE,
    DEFAULT_PAUSE,
    DEFAULT_SCENE_GAP,
    DIRECTION_PAUSE_RANGE,
    GAP_RANGE,
)
from engine.project.direction import parse_line
from engine.project.model import Project, Timing

# field, label, default, range, what it is for (a tooltip)
FIELDS: tuple[tuple[str, str, float, tuple[float, float], str], ...] = (
    ("line_gap", "Gap between lines:", DEFAULT_LINE_GAP, GAP_RANGE,
     "Silence between lines that simply follow each other"),
    ("scene_gap", "Gap before a scene:", DEFAULT_SCENE_GAP, GAP_RANGE,
     "Silence before the first line of a new scene"),
    ("beat", "(beat):", DEFAULT_BEAT, DIRECTION_PAUSE_RANGE,
     "Length of (beat), (a beat), (short pause) inside a line"),
    ("pause", "(pause):", DEFAULT_PAUSE, DIRECTION_PAUSE_RANGE,
     "Length of (pause) inside a line"),
    ("long_pause", "(long pause):", DEFAULT_LONG_PAUSE, DIRECTION_PAUSE_RANGE,
     "Length of (long pause), (silence) inside a line"),
)
DIRECTION_PAUSES = ("beat", "pause", "long_pause")


def lines_using(project: Project) -> dict[str, int]:
    """How many lines use each timing direction (its text or its Delivery note)."""
    counts = dict.fromkeys(DIRECTION_PAUSES, 0)
    for line in project.lines:
        used = {d.name for d in parse_line(line.text, line.note, project.timing).directions if d.kind == "pause"}
        for name in used & set(DIRECTION_PAUSES):
            counts[name] += 1
    return counts


class TimingDialog(QDialog):
    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Project Timing")
        self.setObjectName("timingDialog")
        self.project, self.timing = project, project.timing
        self.spins: dict[str, QDoubleSpinBox] = {}
        used = lines_using(project)
        form = QFormLayout()
        for name, label, default, (lo, hi), tip in FIELDS:
            spin = QDoubleSpinBox()
            spin.setObjectName(f"timing_{name}")
            spin.setRange(lo, hi)
            spin.setDecimals(2)
            spin.setSingleStep(0.05)
            spin.setSuffix(" s")
            spin.setValue(getattr(self.timing, name))
            spin.setToolTip(f"{tip} (default {default:g} s)")
            self.spins[name] = spin
            if name in used:
                count = used[name]
                row = QVBoxLayout()
                row.setSpacing(0)
                row.addWidget(spin)
                note = QLabel(f"used by {count} line{'s' if count != 1 else ''}" if count else "not used yet")
                note.setObjectName(f"timing_{name}_used")
                note.setStyleSheet("color: palette(mid)")
                row.addWidget(note)
                form.addRow(label, row)
            else:
                form.addRow(label, spin)
        intro = QLabel("Gaps between lines, and how long the timing directions inside lines last. "
                       "An explicit [pause 2] keeps its own length. Lines using a changed direction "
                       "are voiced again.")
        intro.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
                                        | QDialogButtonBox.StandardButton.RestoreDefaults)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(self.restore_defaults)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        self.problem = QLabel()  # why OK was refused: a line past its bounds (engine/project/bounds.py)
        self.problem.setObjectName("timing_problem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(420, self.sizeHint().height())

    def restore_defaults(self) -> None:
        for name, _label, default, _range, _tip in FIELDS:
            self.spins[name].setValue(default)

    def accept(self) -> None:
        """Longer directions must leave every line within its bounds, or the file would not open."""
        found = project_overstep(replace(self.project, timing=self.chosen()))
        if found is None:
            super().accept()
            return
        index, problem = found
        self.problem.setText(f"With these lengths line {self.project.lines[index].id} would ask for too much: "
                             f"{problem}")
        self.problem.show()

    def chosen(self) -> Timing:
        return replace(self.timing, **{name: round(spin.value(), 3) for name, spin in self.spins.items()})


def change_timing(doc: Document, timing: Timing) -> SetProjectField | None:
    """The undo step that sets the project's timing; None when nothing changed."""
    if timing == doc.project.timing:
        return None
    changed = [label.rstrip(":") for name, label, *_ in FIELDS if getattr(timing, name) != getattr(doc.project.timing, name)]
    return SetProjectField(doc, "timing", timing, f"Change timing: {', '.join(changed)}")


def edit_timing(doc: Document, parent: QWidget | None = None) -> TimingDialog:
    """Edit > Project Timing…: the dialog (modal); OK pushes the change as one undo step."""
    dialog = TimingDialog(doc.project, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def accepted() -> None:
        command = change_timing(doc, dialog.chosen())
        if command is not None:
            doc.undo.push(command)

    dialog.accepted.connect(accepted)
    dialog.open()
    return dialog
