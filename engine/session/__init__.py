"""One open production: the engine behind the studio and ``radioplay play``.

The Session (control.py) is composed of parts, each owning its state: the
line book (lines.py), the playback pass (playback.py), the live mix and
loudness matching (mix.py), the sound lanes (sound_desk.py) and the speech
check (checking.py); what it shows readers is in views.py.
"""

from engine.session.control import Session
from engine.session.views import (
           ClipView,
           LineState,
           LineStatus,
           SessionState,
           TransportSnapshot,
           waveform_peaks,
)

__all__ = ["ClipView", "LineState", "LineStatus", "Session", "SessionState", "TransportSnapshot",
           "waveform_peaks"]
