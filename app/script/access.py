"""What the script's helpers use: ScriptAccess, the script editor as the clipboard and find
and replace see it; CheckStudio, the studio window as the speech check's marks see it.

The editor builds those helpers, so they depend on ScriptAccess rather than importing
``ScriptEditor`` (which would close an import circle), and take the editor a second time as
their Qt parent (a Protocol is no QWidget, as typing cannot say "both"); CheckStudio keeps the script feature
free of the shell (the main window satisfies it). Read-only properties, so the window may hold
any subtype.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QStatusBar, QTableView

from app.document.document import Document
from app.script.model import ScriptModel
from engine.session import Session, SessionState


class ScriptAccess(Protocol):
    doc: Document

    @property
    def view(self) -> QTableView: ...

    def addAction(self, action: QAction) -> None: ...  # noqa: N802 - Qt's name
    def current_row(self) -> int: ...
    def current_line_id(self) -> str | None: ...
    def select_line(self, line_id: str, column: int = ...) -> None: ...
    def insertion_point(self, row: int) -> tuple[int, str | None]: ...
    def selected_line_ids(self) -> list[str]: ...


class CheckedScript(Protocol):
    """The script editor's table and model, where the check's flags and locks are drawn."""

    @property
    def view(self) -> QTableView: ...
    @property
    def model(self) -> ScriptModel: ...


class CheckEngine(Protocol):
    def state(self) -> SessionState | None: ...
    def flush(self) -> None: ...


class LockedClips(Protocol):
    """The timeline, which draws a lock on a locked line's clip."""

    def set_locked(self, line_ids: Iterable[str]) -> None: ...


class CheckStudio(Protocol):
    @property
    def doc(self) -> Document: ...
    @property
    def script(self) -> CheckedScript: ...
    @property
    def engine(self) -> CheckEngine: ...
    @property
    def timeline(self) -> LockedClips: ...
    @property
    def settings(self) -> QSettings: ...
    @property
    def actions_(self) -> Mapping[str, QAction]: ...

    def session(self) -> Session | None: ...
    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name
