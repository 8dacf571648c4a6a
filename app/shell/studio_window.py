"""The main window as the shell's own modules see it.

panels, menus, file_ops and context_menus act on the main window; typing them
with ``MainWindow`` itself would close an import circle (the window imports
each of them). They depend on this Protocol instead, and ``MainWindow``
satisfies it. The features never see it: each declares the few members it
uses in its own Protocol (app/<feature>/access.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QByteArray, QObject, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QLabel, QLayout, QMenu, QMenuBar, QStatusBar, QToolBar, QWidget

from app.cast.panel import CastPanel
from app.cast.voices import VoiceCatalog
from app.document.document import Document
from app.document.files import RecentFiles
from app.document.marshal import Marshal
from app.document.recovery import Autosaver, Recovery, RecoveryStore
from app.live.engine_link import EngineLink, SessionFactory
from app.live.presenter import EnginePresenter
from app.script.editor import ScriptEditor
from app.timeline.view import TimelineView
from app.transport.bar import TransportBar
from engine.project.model import Project
from engine.session import Session


class FileCommands(Protocol):
    """What the menus ask of the window's file operations."""

    recent: RecentFiles

    def open(self, path: Path | None = None) -> bool: ...
    def recover(self, recovery: Recovery) -> bool: ...


class StudioWindow(Protocol):
    doc: Document
    settings: QSettings
    marshal: Marshal
    catalog: VoiceCatalog
    recovery: RecoveryStore
    autosaver: Autosaver
    session_factory: SessionFactory
    engine: EngineLink
    script: ScriptEditor
    cast: CastPanel
    timeline: TimelineView
    transport: TransportBar
    cast_dock: QDockWidget
    timeline_dock: QDockWidget
    engine_label: QLabel
    actions_: dict[str, QAction]
    recent_menu: QMenu
    output_menu: QMenu
    device_menu: QMenu
    synthesis_device: str
    master_menu: QMenu

    # Read-only, so the window may hold a subtype (a mutable Protocol member is invariant).
    @property
    def files(self) -> FileCommands: ...
    @property
    def monitor_dock(self) -> QDockWidget: ...
    @property
    def presenter(self) -> EnginePresenter: ...

    # Qt's own (QMainWindow). window(): the window itself, as the QWidget its menus, toolbars and
    # dialogs are parented to (typing cannot say "a QMainWindow with these members").
    def window(self) -> QWidget: ...
    def actions(self) -> list[QAction]: ...
    def show(self) -> None: ...
    def statusBar(self) -> QStatusBar: ...  # noqa: N802
    def menuBar(self) -> QMenuBar: ...  # noqa: N802
    def addAction(self, action: QAction) -> None: ...  # noqa: N802
    def addToolBar(self, area: Qt.ToolBarArea, toolbar: QToolBar) -> None: ...  # noqa: N802
    def layout(self) -> QLayout | None: ...
    def width(self) -> int: ...
    def installEventFilter(self, watcher: QObject) -> None: ...  # noqa: N802
    def tabifiedDockWidgets(self, dock: QDockWidget) -> list[QDockWidget]: ...  # noqa: N802
    def restoreState(self, state: QByteArray, version: int = 0) -> bool: ...  # noqa: N802
    def height(self) -> int: ...
    def resizeDocks(self, docks: list[QDockWidget], sizes: list[int],  # noqa: N802
                    orientation: Qt.Orientation) -> None: ...

    # the window's commands
    def session(self) -> Session | None: ...
    def lend_session(self, transform: Callable[[Project], Project] | None) -> None: ...
    def follow_read(self, line_id: str) -> None: ...
    def another_window(self) -> StudioWindow: ...
    def show_error(self, title: str, text: str) -> None: ...
    def fill_recent_menu(self) -> None: ...
    def set_output(self, name: str) -> None: ...
    def start_engine(self) -> None: ...
    def move_clip(self, line_id: str, new_start: float) -> None: ...
    def set_playing(self, play: bool) -> None: ...
    def stop(self) -> None: ...
    def from_start(self) -> None: ...
    def seek(self, seconds: float) -> None: ...
    def seek_to_line(self, line_id: str) -> None: ...
    def play_from_line(self) -> None: ...
    def loop_changed(self, region: tuple[float, float] | None) -> None: ...
    def _loop_toggled(self, on: bool) -> None: ...
    def audition(self, role: str, text: str) -> None: ...
