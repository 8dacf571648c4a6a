"""Import a Fountain or plain-text script, with a preview of the cast it makes.

The parse and casting are engine.project.importers' (the same rules as
``radioplay import``); the dialog shows what came out -- roles with their
line counts and starting voices, possible aliases, warnings -- before the
producer commits to it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.cast.model import format_pan
from engine.project.importers.build import CastSuggester, ImportReport, import_script
from engine.project.importers.parsed import ScriptSyntaxError
from engine.project.model import Project


class ImportDialog(QDialog):
    """After ``accepted``, ``project`` holds the imported production."""

    def __init__(self, script: Path, parent: QWidget | None = None, suggest: CastSuggester | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importDialog")
        self.script = Path(script)
        self.suggest = suggest
        self.project: Project | None = None
        self.report: ImportReport | None = None
        self.setWindowTitle(f"Import {self.script.name}")
        self.resize(560, 440)

        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.narrate = QCheckBox("Voice action paragraphs with a NARRATOR", self)
        self.narrate.setToolTip("Otherwise action stays as scene notes and is not spoken")
        self.narrate.toggled.connect(self.reload)
        self.cast = QTableWidget(0, 7, self)
        self.cast.setObjectName("importCast")
        self.cast.setHorizontalHeaderLabels(["Role", "Lines", "Voice", "Pitch", "Speed", "Variation", "Pan"])
        self.cast.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.cast.verticalHeader().hide()
        self.cast.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.cast.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # names get the room
        self.notes = QLabel(self)
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.narrate)
        layout.addWidget(self.cast)
        layout.addWidget(self.notes)
        layout.addWidget(self.buttons)
        self.reload()

    def reload(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        try:
            self.project, self.report = import_script(self.script, narrate_action=self.narrate.isChecked(),
                                                      suggest=self.suggest)
        except (ScriptSyntaxError, ValueError, OSError) as exc:
            self.project, self.report = None, None
            self.summary.setText(f"<b>{self.script.name} cannot be imported.</b>")
            self.notes.setText(str(exc))
            self.cast.setRowCount(0)
            ok.setEnabled(False)
            return
        project, report = self.project, self.report
        self.summary.setText(f"<b>{project.title}</b>: {_count(len(project.cast), 'role')}, "
                             f"{_count(len(project.lines), 'line')}, {_count(len(project.scenes), 'scene')}. "
                             f"{report.casting}")
        self.cast.setRowCount(len(project.cast))
        for row, role in enumerate(project.cast):
            name = QTableWidgetItem(role.name)
            name.setForeground(QColor(role.colour))
            voice = role.voice.voice + (f" ({role.voice.speaker})" if role.voice.speaker is not None else "")
            cells = [name, QTableWidgetItem(str(report.lines_per_role.get(role.name, 0))), QTableWidgetItem(voice),
                     QTableWidgetItem(f"{role.voice.pitch:+.1f} st"), QTableWidgetItem(f"{role.voice.speed:.2f}×"),
                     QTableWidgetItem(f"{role.voice.variation:.1f}"), QTableWidgetItem(format_pan(role.pan))]
            for col, item in enumerate(cells):
                self.cast.setItem(row, col, item)
        notes = [f"{a} and {b} may be the same character; they stay separate roles "
                 f"(merge them by renaming if they are one person)." for a, b in report.aliases]
        notes += report.warnings
        self.notes.setText("\n".join(notes))
        ok.setEnabled(bool(project.lines))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
