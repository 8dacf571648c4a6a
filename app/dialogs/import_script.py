"""Import a Fountain or plain-text script, with a preview of the production it makes.

The import is engine.synth.production_import's, the same as ``radioplay import``: the
parse, the cast from the installed voices, the sound cues matched to the sound library
(sounds/ beside the script, the user's and the starter sounds). The dialog shows what
came out -- roles with their line counts and starting voices, the sound cues and the file
each took, possible aliases, warnings -- before the producer commits to it.
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

from app.cast.model import character_label, format_pan
from engine.project.importers.build import ImportReport
from engine.project.importers.parsed import ScriptSyntaxError
from engine.project.model import Project
from engine.project.starting_voices import voice_label
from engine.synth.library import VoiceLibrary
from engine.synth.production_import import ADD_SOUNDS_HINT, ImportedProduction, import_production

MEASURED_AFTER = (" After Import the voices are measured apart in the background, as radioplay import does "
                  "(progress and Cancel in the status bar).")


def _measurable() -> bool:
    """Whether the measured cast will refine this one (the speaker encoder is installed)."""
    from engine.listen.speaker import SpeakerEncoderUnavailable, weights_path

    try:
        weights_path()
    except SpeakerEncoderUnavailable:
        return False
    return True


class ImportDialog(QDialog):
    """After ``accepted``, ``project`` holds the imported production."""

    def __init__(self, script: Path, parent: QWidget | None = None, library: VoiceLibrary | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importDialog")
        self.script = Path(script)
        self.library = library
        self.imported: ImportedProduction | None = None
        self.project: Project | None = None
        self.report: ImportReport | None = None
        self.setWindowTitle(f"Import {self.script.name}")
        self.resize(640, 600)

        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.narrate = QCheckBox("Voice action paragraphs with a NARRATOR", self)
        self.narrate.setToolTip("Otherwise action stays as scene notes and is not spoken")
        self.narrate.toggled.connect(self.reload)
        self.cast = QTableWidget(0, 8, self)
        self.cast.setObjectName("importCast")
        self.cast.setHorizontalHeaderLabels(["Role", "Who", "Lines", "Voice", "Pitch", "Speed", "Variation", "Pan"])
        self.cast.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.cast.verticalHeader().hide()
        self.cast.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.cast.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # names get the room
        self.cues_summary = QLabel(self)
        self.cues_summary.setWordWrap(True)
        self.cues = QTableWidget(0, 3, self)
        self.cues.setObjectName("importCues")
        self.cues.setHorizontalHeaderLabels(["Lane", "Cue", "Sound"])
        self.cues.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.cues.verticalHeader().hide()
        self.cues.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.cues.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
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
        layout.addWidget(self.cast, 3)
        layout.addWidget(self.cues_summary)
        layout.addWidget(self.cues, 2)
        layout.addWidget(self.notes)
        layout.addWidget(self.buttons)
        self.reload()

    def reload(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        try:
            self.imported = import_production(self.script, narrate_action=self.narrate.isChecked(),
                                              library=self.library)
        except (ScriptSyntaxError, ValueError, OSError) as exc:
            self.imported, self.project, self.report = None, None, None
            self.cues_summary.setText("")
            self.cues.setRowCount(0)
            self.summary.setText(f"<b>{self.script.name} cannot be imported.</b>")
            self.notes.setText(str(exc))
            self.cast.setRowCount(0)
            ok.setEnabled(False)
            return
        self.project, self.report = self.imported.project, self.imported.report
        project, report = self.project, self.report
        self.summary.setText(f"<b>{project.title}</b>: {_count(len(project.cast), 'role')}, "
                             f"{_count(len(project.lines), 'line')}, {_count(len(project.scenes), 'scene')}. "
                             f"{report.casting}{MEASURED_AFTER if _measurable() else ''}")
        self.cast.setRowCount(len(project.cast))
        for row, role in enumerate(project.cast):
            name = QTableWidgetItem(role.name)
            name.setForeground(QColor(role.colour))
            voice = voice_label(role.voice)
            who = QTableWidgetItem(character_label(role.character))
            who.setToolTip(role.character.evidence)
            cells = [name, who, QTableWidgetItem(str(report.lines_per_role.get(role.name, 0))), QTableWidgetItem(voice),
                     QTableWidgetItem(f"{role.voice.pitch:+.1f} st"), QTableWidgetItem(f"{role.voice.speed:.2f}×"),
                     QTableWidgetItem(f"{role.voice.variation:.1f}"), QTableWidgetItem(format_pan(role.pan))]
            for col, item in enumerate(cells):
                self.cast.setItem(row, col, item)
        self._show_cues(self.imported)
        notes = [note[0].upper() + note[1:] + "." for note in self.imported.alias_notes()]
        notes += report.warnings
        self.notes.setText("\n".join(notes))
        ok.setEnabled(bool(project.lines))


    def _show_cues(self, imported: ImportedProduction) -> None:
        """The cue summary (the line ``radioplay import`` prints first) and one row per cue."""
        clips = imported.project.sounds
        lines = imported.cue_lines()
        hint = f"<br><i>{ADD_SOUNDS_HINT[0].upper()}{ADD_SOUNDS_HINT[1:]}.</i>" if imported.placeholders else ""
        suggested = imported.suggestion_lines()
        offered = (f"<br>{suggested[0].split(' (')[0]}: in the Sounds tab after the import, to accept or dismiss."
                   if suggested else "")
        self.cues_summary.setText((lines[0] if lines else "No sound cues (SFX:, AMBIENCE:, MUSIC:) in the script.")
                                  + hint + offered)
        self.cues.setVisible(bool(clips))
        self.cues.setRowCount(len(clips))
        for row, clip in enumerate(clips):
            sound = QTableWidgetItem(Path(clip.file).name if clip.file else "no sound yet")
            if clip.file:
                sound.setToolTip(clip.file)
            else:
                sound.setForeground(QColor("#b00020"))
            for col, item in enumerate((QTableWidgetItem(clip.lane), QTableWidgetItem(clip.cue), sound)):
                self.cues.setItem(row, col, item)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
