"""What the table read uses of the studio window: the document, its running Session (or a way to
start one of its own), the GUI-thread marshal, and the script to follow the read in. The main window satisfies it; read-only properties, so the
window may hold any subtype.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from app.document.document import Document
from app.document.marshal import Marshal
from engine.project.model import Project
from engine.session import Session


class TableReadStudio(Protocol):
    @property
    def doc(self) -> Document: ...
    @property
    def marshal(self) -> Marshal: ...
    @property
    def session_factory(self) -> Callable[[Project, Path | None], Session]: ...

    def stop(self) -> None:
        """Stop the studio's own playback (it would talk over the read)."""

    def session(self) -> Session | None:
        """The studio's running Session (voices loaded, clips in memory): the read plays through it."""

    def lend_session(self, transform: Callable[[Project], Project] | None) -> None:
        """Hand that Session every snapshot through ``transform`` (None: the document as it is)."""

    def follow_read(self, line_id: str) -> None:
        """The read is at this line: the script shows it."""
