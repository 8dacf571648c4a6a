"""The play outlook in the studio: says when synthesis cannot keep up with playback.

A line the listener waits for is voiced sentence by sentence on every core and heard as it
grows, and the lines after it by all the workers, so a Kokoro cast plays from a cold
cache on two cores. Where the workers measure too slow a machine for that (the Session's
``outlook``: the lines not voiced yet, their backends, and what the workers measure here),
this label in the status bar says so while it matters, with the measured speed and the
remedy (pre-render first), and the presenter says so in the status line when play starts
anyway; where playback will hold, it is hidden. The same figures ``radioplay play`` prints.

GUI thread only: ``show`` is called from the presenter's poll.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from app.cast.voices import speed_text
from engine.project.engines import engine_named
from engine.sched.cost import Outlook

CHECK_EVERY = 10  # presenter polls between two outlooks (20 Hz polls: twice a second)


def short_text(outlook: Outlook) -> str:
    """``Kokoro ~0.9x real time: pre-render ~40 s before playing`` for the status bar."""
    slow = min(outlook.realtime.items(), key=lambda item: item[1], default=None)
    speed = f"{engine_named(slow[0]).label} {speed_text(slow[1])} real time: " if slow else ""
    return f"⚠ {speed}pre-render ~{outlook.prerender_s:.0f} s before playing"


class OutlookLabel(QLabel):
    """Hidden while synthesis keeps up; otherwise what it costs and what to do."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outlookLabel")
        self.outlook: Outlook | None = None
        self.hide()

    def show_outlook(self, outlook: Outlook | None) -> None:
        self.outlook = outlook
        if outlook is None or outlook.keeps_up:
            self.hide()
            return
        self.setText(short_text(outlook))
        self.setToolTip(outlook.describe().capitalize())
        self.show()
