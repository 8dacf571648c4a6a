"""Lane headers: role colour and name at the left of each lane, dimmed when the role is muted.

A child widget of :class:`app.timeline.TimelineView` placed in its left viewport margin; it
asks the view where each lane is, so it follows vertical scrolling and lane changes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from app.timeline import TimelineView

HEADER_WIDTH = 120
LEVEL_FLOOR_DB = -60.0


def level_fraction(db: float | None) -> float:
    """0..1 along a lane's level bar, quantized to 1/100 so tiny changes repaint nothing."""
    if db is None or not math.isfinite(db):
        return 1.0 if db is not None and db > 0 else 0.0
    return round(min(1.0, max(0.0, 1.0 - db / LEVEL_FLOOR_DB)), 2)


class LaneHeader(QWidget):
    def __init__(self, view: TimelineView) -> None:
        super().__init__(view)
        self._view = view
        self.setFixedWidth(HEADER_WIDTH)
        self._levels: dict[str, float] = {}

    def set_levels(self, levels: dict[str, float]) -> None:
        """Per-lane peak dBFS for the small level bars; repaints only lanes whose bar moved."""
        for i, lane in enumerate(self._view.lanes()):
            old, new = self._levels.get(lane.name), levels.get(lane.name)
            if level_fraction(old) != level_fraction(new):
                top, height = self._view.lane_span(i)
                self.update(0, int(top + height) - 6, self.width(), 6)
        self._levels = dict(levels)

    def level(self, lane: str) -> float:
        """The bar's length for ``lane``, 0 (silent or below -60 dBFS) .. 1 (0 dBFS)."""
        return level_fraction(self._levels.get(lane))

    def paintEvent(self, event: QPaintEvent) -> None:
        view = self._view
        p = QPainter(self)
        pal = self.palette()
        p.fillRect(event.rect(), pal.window())
        fm = QFontMetricsF(p.font())
        w = float(self.width())
        for i, lane in enumerate(view.lanes()):
            top, height = view.lane_span(i)
            if top + height < event.rect().top() or top > event.rect().bottom():
                continue
            rect = QRectF(0.0, top, w, height)
            colour = QColor(lane.colour)
            band = QColor(colour)
            band.setAlpha(35 if not lane.muted else 12)
            p.fillRect(rect, band)
            swatch = QColor(colour)
            if lane.muted:
                swatch.setAlpha(80)
            p.fillRect(QRectF(0.0, top, 5.0, height), swatch)
            text_colour = QColor(pal.windowText().color())
            if lane.muted:
                text_colour.setAlpha(110)
            p.setPen(text_colour)
            name = fm.elidedText(lane.name, Qt.TextElideMode.ElideRight, w - 16)
            p.drawText(QRectF(10.0, top + 4.0, w - 14, fm.height()), int(Qt.AlignmentFlag.AlignLeft), name)
            if lane.muted:
                p.drawText(QRectF(10.0, top + 6.0 + fm.height(), w - 14, fm.height()),
                           int(Qt.AlignmentFlag.AlignLeft), "muted")
            f = self.level(lane.name)
            if f > 0:
                meter = QColor("#4cc35a") if f < 0.9 else QColor("#e5483b")
                p.fillRect(QRectF(10.0, top + height - 5, (w - 16) * f, 3.0), meter)
            p.setPen(pal.mid().color())
            p.drawLine(0, int(top + height) - 1, int(w), int(top + height) - 1)
        p.setPen(pal.dark().color())
        p.drawLine(int(w) - 1, event.rect().top(), int(w) - 1, event.rect().bottom())
        p.end()
