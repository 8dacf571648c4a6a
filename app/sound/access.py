"""What the sound feature (the Sounds panel, the trims on the timeline) uses of the studio
window: the document, the timeline, the GUI-thread marshal and the engine's preview. The main
window satisfies it; read-only properties, so the window may hold any subtype.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from app.document.document import Document
from app.document.marshal import Marshal
from app.timeline.view import TimelineView


class SoundPreview(Protocol):
    def play_recording(self, audio: np.ndarray, rate: int) -> bool: ...


class SoundStudio(Protocol):
    @property
    def doc(self) -> Document: ...
    @property
    def timeline(self) -> TimelineView: ...
    @property
    def marshal(self) -> Marshal: ...
    @property
    def engine(self) -> SoundPreview: ...
