"""File > Import Revision…: a revised draft matched to the open production, shown before
anything changes.

The work is engine/synth/revision_import.py's, the same as ``radioplay revise``: the
draft imported by the one import path, matched line by line, applied to a copy. The
dialog shows the report -- per role each line added, changed, split, merged, removed or
moved, with the old and the new words side by side; the lines to re-voice and how long
that should take here; new roles, scene and sound cue changes; recordings that no
longer match -- and applying it is one undo step (app/revisions/apply.py).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.document.files import SCRIPT_FILTER
from app.revisions.access import RevisionStudio
from app.revisions.apply import ApplyRevision
from engine.project.defaults import MAX_REVISION_NAME_CHARS
from engine.project.importers.parsed import ScriptSyntaxError
from engine.project.model import Project
from engine.project.revision import revision_name_problem
from engine.project.revision_apply import RevisedProduction
from engine.project.revision_report import Change
from engine.synth.library import VoiceLibrary
from engine.synth.revision_import import revise_from_script

# How each kind of change reads in the table: its word and its colour.
KIND_LOOKS = {"changed": ("changed", "#b26a00"), "split": ("split", "#b26a00"), "merged": ("merged", "#b26a00"),
              "added": ("added", "#1b7f3b"), "removed": ("removed", "#b00020"), "moved": ("moved", "#3d5a99")}
_WARN = "#b00020"


class RevisionDialog(QDialog):
    """After ``accepted``, ``revised`` holds the production as revised (not yet applied)."""

    def __init__(self, production: Project, script: Path, parent: QWidget | None = None, *,
                 destination: Path | None = None, library: VoiceLibrary | None = None,
                 realtime: Callable[[str], float] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("revisionDialog")
        self.script = Path(script)
        self.revised: RevisedProduction | None = None
        self.warnings: list[str] = []
        self.setWindowTitle(f"Import Revision {self.script.name}")
        self.resize(820, 600)
        self.summary = QLabel(self)
        self.summary.setObjectName("revisionSummary")
        self.summary.setWordWrap(True)
        self.name = QLineEdit(self)
        self.name.setObjectName("revisionName")
        self.name.setMaxLength(MAX_REVISION_NAME_CHARS)
        self.colour = QLabel(self)
        form = QFormLayout()
        form.addRow("Revision name:", self.name)
        form.addRow("Colour and date:", self.colour)
        self.table = QTableWidget(0, 5, self)
        self.table.setObjectName("revisionChanges")
        self.table.setHorizontalHeaderLabels(["Role", "Change", "Line", "Before", "After"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for col in (0, 1, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        for col in (3, 4):  # old and new words side by side get the room
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        self.notes = QLabel(self)
        self.notes.setObjectName("revisionNotes")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Apply Revision")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(form)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.notes)
        layout.addWidget(self.buttons)
        self._load(production, destination, library, realtime)

    def _load(self, production: Project, destination: Path | None, library: VoiceLibrary | None,
              realtime: Callable[[str], float] | None) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        try:
            self.revised, self.warnings = revise_from_script(production, self.script, destination=destination,
                                                             library=library)
        except (ScriptSyntaxError, ValueError, OSError) as exc:
            self.summary.setText(f"<b>{self.script.name} cannot be imported as a revision.</b>")
            self.notes.setText(str(exc))
            self.name.setEnabled(False)
            ok.setEnabled(False)
            return
        report = self.revised.report
        self.name.setText(report.name)
        self.colour.setText(f"<span style='color:{report.colour}'>■</span> {report.colour}, {report.date}")
        self.summary.setText(f"<b>{report.summary()}</b>")
        changes = [c for role_changes in report.by_role().values() for c in role_changes]
        self.table.setRowCount(len(changes))
        for row, change in enumerate(changes):
            for col, item in enumerate(_cells(change, production)):
                self.table.setItem(row, col, item)
        self.table.resizeRowsToContents()
        notes: list[str] = []
        if report.revoice:
            seconds = report.synthesis_seconds(realtime) if realtime is not None else report.revoice_seconds
            notes.append(f"{len(report.revoice)} lines to re-voice: about {report.revoice_seconds:.0f} s of speech, "
                         f"{_seconds(seconds)} of synthesis here. Every other line keeps its takes and lock.")
        notes += [f"New role {name}." for name in report.new_roles]
        notes += [f"{name} has no lines in this draft (kept in the cast)." for name in report.roles_without_lines]
        notes += [f"Scene {s}." for s in report.scenes]
        notes += [f"Sound cue {s}." for s in report.cues]
        notes += [f"<span style='color:{_WARN}'>The recording of {line_id} no longer matches its words: kept in "
                  f"the history, the line is synthesized until it is recorded again.</span>"
                  for line_id, _ in report.flagged]
        notes += self.warnings
        self.notes.setText("<br>".join(notes))
        ok.setEnabled(report.has_changes)

    def _accept(self) -> None:
        if self.revised is None:
            return
        name = self.name.text().strip()
        if (problem := revision_name_problem(name)) is not None:  # a pasted line break or control character
            self.notes.setText(f"Revision name: {html.escape(problem)}")
            return
        if name:
            self.revised.project.revisions[-1].name = name
            self.revised.report.name = name
        self.accept()


def _seconds(seconds: float) -> str:
    return "under a second" if seconds < 1 else f"about {seconds:.0f} s"


def _cells(change: Change, production: Project) -> list[QTableWidgetItem]:
    word, colour = KIND_LOOKS[change.kind]
    role = QTableWidgetItem(change.role)
    if any(r.name == change.role for r in production.cast):
        role.setForeground(QColor(production.role(change.role).colour))
    kind = QTableWidgetItem(word)
    kind.setForeground(QColor(colour))
    line_id = change.old_id or change.new_id or ""
    if change.partner:
        line_id += f" ({'part of' if change.kind == 'split' else 'into'} {change.partner})"
    before = QTableWidgetItem(change.old_text if change.old_id else "")
    after = QTableWidgetItem(change.new_text if change.new_id else "")
    if change.kind == "moved":
        before.setText("(same words, earlier or later in the script)")
        before.setForeground(QColor("#777777"))
    for item in (before, after):
        item.setToolTip(item.text())
    return [role, kind, QTableWidgetItem(line_id), before, after]


def open_revision_dialog(window: RevisionStudio, script: Path | None = None) -> RevisionDialog | None:
    """File > Import Revision…: pick the draft, show the report (window-modal, not blocking);
    applying it pushes one undo step."""
    parent = window if isinstance(window, QWidget) else None
    doc = window.doc
    if script is None:
        start = str(doc.path.parent) if doc.path else ""
        name, _ = QFileDialog.getOpenFileName(parent, "Import revision", start, SCRIPT_FILTER)
        if not name:
            return None
        script = Path(name)
    dialog = RevisionDialog(doc.project, script, parent, destination=doc.path, library=window.catalog.library,
                            realtime=window.catalog.realtime)

    def apply() -> None:
        revised = dialog.revised
        if revised is None:
            return
        doc.undo.push(ApplyRevision(doc, revised.project, revised.report.name))
        window.statusBar().showMessage(f"{revised.report.summary()}. Save to keep it.", 8000)

    dialog.accepted.connect(apply)
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog
