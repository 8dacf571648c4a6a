"""What the lexicon feature (the Lexicon panel, "Add to Lexicon" in the script) uses of the
studio window. The main window satisfies it; read-only properties, so the window may hold any
subtype.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QStatusBar, QTableView

from app.document.document import Document
from app.document.marshal import Marshal


class LexiconScript(Protocol):
    """The script editor: its table (whose line editors get the menu entry) and current line."""

    @property
    def view(self) -> QTableView: ...

    def current_line_id(self) -> str | None: ...
    def select_line(self, line_id: str, column: int = ...) -> None: ...


class LexiconAudition(Protocol):
    def audition(self, role: str, text: str) -> None: ...


class LexiconStudio(Protocol):
    @property
    def doc(self) -> Document: ...
    @property
    def script(self) -> LexiconScript: ...
    @property
    def marshal(self) -> Marshal: ...
    @property
    def engine(self) -> LexiconAudition: ...

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name
    def addAction(self, action: QAction) -> None: ...  # noqa: N802 - Qt's name
