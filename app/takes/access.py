"""What the Takes panel uses of the studio window (the main window satisfies it).

A Protocol of the few members the panel reads, so the takes feature depends on neither the
shell nor the script editor; read-only properties, so the window may hold any subtype.
"""

from __future__ import annotations

from typing import Protocol

from app.document.document import Document
from app.document.marshal import Marshal
from engine.session import Session


class LineCursor(Protocol):
    """The script's current line (the line the takes are of)."""

    def current_line_id(self) -> str | None: ...


class TakesStudio(Protocol):
    @property
    def doc(self) -> Document: ...
    @property
    def script(self) -> LineCursor: ...
    @property
    def marshal(self) -> Marshal: ...

    def session(self) -> Session | None: ...
