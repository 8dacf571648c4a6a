"""Applying a revision: one undo step that swaps the production's script for the revised one."""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from app.document.document import Document
from engine.project.model import Project


class ApplyRevision(QUndoCommand):
    """Redo puts the revised cast, scenes, lines, sounds and revisions in; undo puts the old back."""

    def __init__(self, doc: Document, revised: Project, name: str) -> None:
        super().__init__(f"Import {name}")
        self.doc = doc
        self.other = revised  # what the next redo or undo puts in

    def redo(self) -> None:
        self.other = self.doc.apply_revision(self.other)

    def undo(self) -> None:
        self.other = self.doc.apply_revision(self.other)
