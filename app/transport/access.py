"""What the table read uses of the studio window: the document, a way to start a Session of its
own, and the GUI-thread marshal. The main window satisfies it; read-only properties, so the
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
