"""What the script's helpers (clipboard, find and replace) use of the script editor.

The editor builds those helpers, so they depend on this Protocol rather than
importing ``ScriptEditor`` (which would close an import circle).
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QTableView

from app.document.document import Document


class ScriptAccess(Protocol):
    doc: Document
    view: QTableView

    def addAction(self, action: QAction) -> None: ...  # noqa: N802 - Qt's name
    def current_row(self) -> int: ...
    def current_line_id(self) -> str | None: ...
    def select_line(self, line_id: str, column: int = ...) -> None: ...
    def insertion_point(self, row: int) -> tuple[int, str | None]: ...
    def selected_line_ids(self) -> list[str]: ...
