"""What the engine presenter uses of the studio window: the panels it draws the Session's state
on, the status bar's engine labels and the engine's actions. The main window satisfies it;
read-only properties, so the window may hold any subtype.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QStatusBar

from app.cast.voices import VoiceCatalog
from app.document.document import Document
from app.live.outlook import OutlookLabel
from app.script.editor import ScriptEditor
from app.timeline.view import TimelineView
from app.transport.bar import TransportBar
from app.transport.monitor import MonitorDock


class LiveStudio(Protocol):
    @property
    def doc(self) -> Document: ...
    @property
    def script(self) -> ScriptEditor: ...
    @property
    def timeline(self) -> TimelineView: ...
    @property
    def transport(self) -> TransportBar: ...
    @property
    def monitor(self) -> MonitorDock: ...
    @property
    def engine_label(self) -> QLabel: ...
    @property
    def lines_label(self) -> QLabel: ...
    @property
    def outlook_label(self) -> OutlookLabel: ...
    @property
    def actions_(self) -> Mapping[str, QAction]: ...
    @property
    def catalog(self) -> VoiceCatalog: ...

    def show_error(self, title: str, text: str) -> None: ...
    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name
