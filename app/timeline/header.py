"""Lane headers: role colour and name at the left of each lane, with the lane's peak meter.

A child widget of the timeline view placed in its left viewport margin; it asks the view where
each lane is, so it follows vertical scrolling, lane height and lane changes.

The meter under each name reads dBFS on a scale (marks and labels, the unit in the corner
above the headers), with the lane's short-term loudness (LUFS, the last 3 s) at the right of
its name. It is green, amber from -18 dBFS and orange from -6; only its clip box turns red,
when the engine counts an over on the lane (a sample of the signal leaving the lane at or past
0 dBFS: ``MeterSnapshot.lane_overs``), and it stays lit until clicked, as on a console. Loud
speech is not clipping: the master may read -16 LUFS while a lane peaks at -3 dBFS. Fed
nothing (paused, stopped), a bar falls at the engine's rate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QMouseEvent, QMoveEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QWidget

from app.widgets.meter import CLIP_DB, fall

HEADER_WIDTH = 132
LEVEL_FLOOR_DB = -60.0
LANE_SCALE_DB = (-48, -24, -12, 0)
_BAR_H, _CLIP_W = 4.0, 9.0
_CLIP_ON, _CLIP_OFF = QColor("#ff2d2d"), QColor(60, 60, 60)  # off reads grey, not a dim red


class _Lane(Protocol):  # read-only: a Lane is frozen
    @property
    def name(self) -> str: ...
    @property
    def colour(self) -> str: ...
    @property
    def muted(self) -> bool: ...


class _View(Protocol):
    def lanes(self) -> Sequence[_Lane]: ...
    def lane_span(self, index: int) -> tuple[float, float]: ...


def _lufs_text(lufs: float) -> str:
    return f"{lufs:.0f} LUFS".replace("-", "\u2212") if math.isfinite(lufs) and lufs > -70 else ""


def level_fraction(db: float | None) -> float:
    """0..1 along a lane's level bar, quantized to 1/100 so tiny changes repaint nothing."""
    if db is None or not math.isfinite(db):
        return 1.0 if db is not None and db > 0 else 0.0
    return round(min(1.0, max(0.0, 1.0 - db / LEVEL_FLOOR_DB)), 2)


def _bar_colour(db: float) -> QColor:
    return QColor("#4cc35a") if db < -18 else QColor("#e8c547") if db < -6 else QColor("#f08a24")


class LaneHeader(QWidget):
    def __init__(self, view: _View, parent: QWidget, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)  # the view (which the Protocol cannot say it is)
        self._view = view
        self.clock = clock  # bars fall on this clock (seconds)
        self.setFixedWidth(HEADER_WIDTH)
        self.setToolTip("Lane peak level in dBFS and short-term loudness in LUFS; the box at the right "
                        "lights red when the lane's signal goes over 0 dBFS, until you click it")
        self._levels: dict[str, float] = {}
        self._loudness: dict[str, float] = {}
        self._overs: dict[str, int] = {}  # the engine's count of overs per lane, as last seen
        self._fed_at = clock()
        self._clipped: set[str] = set()
        self._small = QFont(self.font())
        self._small.setPointSizeF(max(6.0, self._small.pointSizeF() * 0.7))
        #: The scale's unit, in the corner above the headers (left of the ruler).
        self.unit = QLabel("peak dBFS", parent)
        self.unit.setFont(self._small)
        self.unit.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom)
        self.unit.setContentsMargins(0, 0, 6, 3)

    def moveEvent(self, event: QMoveEvent) -> None:  # noqa: N802 - Qt override
        super().moveEvent(event)
        self.unit.setGeometry(self.x(), 0, self.width(), self.y())

    # ------------------------------------------------------------------ levels

    def set_levels(self, levels: Mapping[str, float], holds: Mapping[str, float] | None = None,
                   loudness: Mapping[str, float] | None = None, overs: Mapping[str, int] | None = None) -> None:
        """Per-lane peak dBFS and hold marks (missing: silence), short-term LUFS and the
        engine's count of overs. Bars fall at the engine's rate from what they showed; a new
        over latches the lane's clip box (without counts, as before them: a peak or hold at
        0 dBFS). Repaints only the meters that moved."""
        now = self.clock()
        dt, self._fed_at = now - self._fed_at, now
        for i, lane in enumerate(self._view.lanes()):
            old = self._levels.get(lane.name, -math.inf)
            new = fall(old, levels.get(lane.name, -math.inf), dt)
            self._levels[lane.name] = new
            if overs is not None:
                count = overs.get(lane.name, 0)
                went_over = count > self._overs.get(lane.name, count)  # the first sight sets the count
                self._overs[lane.name] = count
            else:
                went_over = max(new, (holds or {}).get(lane.name, -math.inf)) >= CLIP_DB
            clipped = lane.name not in self._clipped and went_over
            if clipped:
                self._clipped.add(lane.name)
            old_lufs = self._loudness.get(lane.name, -math.inf)
            new_lufs = (loudness or {}).get(lane.name, -math.inf)
            self._loudness[lane.name] = new_lufs
            if _lufs_text(old_lufs) != _lufs_text(new_lufs):  # the readout sits on the name's row
                top, height = self._view.lane_span(i)
                self.update(0, int(top), self.width(), int(height) + 1)
            elif clipped or level_fraction(old) != level_fraction(new):
                top, height = self._view.lane_span(i)
                self.update(0, int(top + height) - 12, self.width(), 12)

    def level(self, lane: str) -> float:
        """The bar's length for ``lane``, 0 (silent or below -60 dBFS) .. 1 (0 dBFS)."""
        return level_fraction(self._levels.get(lane))

    def clipped(self, lane: str) -> bool:
        return lane in self._clipped

    def loudness_text(self, lane: str) -> str:
        """The lane's short-term loudness as drawn ("" while silent)."""
        return _lufs_text(self._loudness.get(lane, -math.inf))

    def scale_marks(self) -> list[tuple[float, str]]:
        """(fraction along the bar, label) of the dBFS scale under each lane's meter."""
        return [(level_fraction(float(db)), str(db)) for db in LANE_SCALE_DB]

    def _bar_rect(self, top: float, height: float) -> QRectF:
        return QRectF(10.0, top + height - _BAR_H - 4.0, self.width() - 16.0 - _CLIP_W, _BAR_H)

    def clip_rect(self, index: int) -> QRectF:
        """Lane ``index``'s clip box, in header coordinates."""
        bar = self._bar_rect(*self._view.lane_span(index))
        return QRectF(bar.right() + 3.0, bar.top() - 2.0, _CLIP_W, bar.height() + 2.0)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        for i, lane in enumerate(self._view.lanes()):
            if self.clip_rect(i).adjusted(-3, -4, 3, 4).contains(event.position()) and lane.name in self._clipped:
                self._clipped.discard(lane.name)
                self.update(self.clip_rect(i).toAlignedRect().adjusted(-2, -2, 2, 2))
                event.accept()
                return
        super().mousePressEvent(event)

    # ------------------------------------------------------------------ painting

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        pal = self.palette()
        p.fillRect(event.rect(), pal.window())
        fm = QFontMetricsF(p.font())
        w = float(self.width())
        for i, lane in enumerate(self._view.lanes()):
            top, height = self._view.lane_span(i)
            if top + height < event.rect().top() or top > event.rect().bottom():
                continue
            colour = QColor(lane.colour)
            band = QColor(colour)
            band.setAlpha(35 if not lane.muted else 12)
            p.fillRect(QRectF(0.0, top, w, height), band)
            if lane.muted:
                colour.setAlpha(80)
            p.fillRect(QRectF(0.0, top, 5.0, height), colour)
            text_colour = QColor(pal.windowText().color())
            if lane.muted:
                text_colour.setAlpha(110)
            p.setPen(text_colour)
            detail = getattr(lane, "detail", "")  # a sound lane's ducking, small, at the right
            room = w - 16
            if detail:
                p.setFont(self._small)
                dw = QFontMetricsF(self._small).horizontalAdvance(detail)
                p.drawText(QRectF(w - 6 - dw, top + 2.0, dw, fm.height()),
                           int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), detail)
                p.setFont(self.font())
                room -= dw + 4
            lufs = self.loudness_text(lane.name)
            if lufs:
                p.setFont(self._small)
                lw = QFontMetricsF(self._small).horizontalAdvance(lufs)
                p.drawText(QRectF(10.0 + room - lw, top + 2.0, lw, fm.height()),
                           int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), lufs)
                p.setFont(self.font())
                room -= lw + 4
            name = fm.elidedText(lane.name + (" (muted)" if lane.muted else ""), Qt.TextElideMode.ElideRight, room)
            p.drawText(QRectF(10.0, top + 2.0, w - 14, fm.height()), int(Qt.AlignmentFlag.AlignLeft), name)
            self._paint_meter(p, i, lane.name, top, height, fm.height())
            p.setPen(pal.mid().color())
            p.drawLine(0, int(top + height) - 1, int(w), int(top + height) - 1)
        p.setPen(pal.dark().color())
        p.drawLine(int(w) - 1, event.rect().top(), int(w) - 1, event.rect().bottom())
        p.end()

    def _paint_meter(self, p: QPainter, index: int, name: str, top: float, height: float, name_h: float) -> None:
        bar = self._bar_rect(top, height)
        p.fillRect(bar, QColor(30, 30, 30))
        db = self._levels.get(name, -math.inf)
        f = level_fraction(db)
        if f > 0:
            p.fillRect(QRectF(bar.left(), bar.top(), bar.width() * f, bar.height()), _bar_colour(db))
        p.fillRect(self.clip_rect(index), _CLIP_ON if name in self._clipped else _CLIP_OFF)
        tick = QColor(self.palette().windowText().color())
        tick.setAlpha(150)
        p.setPen(tick)
        p.setFont(self._small)
        sfm = QFontMetricsF(self._small)
        labels = height >= 2.0 + name_h + sfm.height() + _BAR_H + 6.0  # room between name and bar
        for fraction, label in self.scale_marks():
            x = bar.left() + bar.width() * fraction
            p.drawLine(QPointF(x, bar.top() - 2), QPointF(x, bar.top() - 0.5))
            if labels:
                tw = sfm.horizontalAdvance(label)
                left = min(max(bar.left(), x - tw / 2), bar.right() - tw)
                p.drawText(QPointF(left, bar.top() - 3), label)
        p.setFont(self.font())

