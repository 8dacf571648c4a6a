"""What the revision import uses of the studio window (the main window satisfies it).

A Protocol of the few members it reads, so the feature depends on neither the shell nor
the other panels; read-only properties, so the window may hold any subtype.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QStatusBar

from app.document.document import Document
from engine.synth.library import VoiceLibrary


class VoiceSpeeds(Protocol):
    """The voice catalogue's speed figure (app/cast/voices.py): measured here, else the prior."""

    library: VoiceLibrary

    def realtime(self, backend: str) -> float: ...


class RevisionStudio(Protocol):
    @property
    def doc(self) -> Document: ...
    @property
    def catalog(self) -> VoiceSpeeds: ...

    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name
