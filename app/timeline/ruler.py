"""The timeline's time ruler: mm:ss labels whose spacing follows the zoom, seek and loop gestures.

The ruler is a child widget that :class:`app.timeline.view.TimelineView` places in its top viewport
margin, so its x coordinates are the viewport's. It owns no time mapping of its own: it asks the
view (``time_at``/``x_of``) so ruler and lanes can never disagree. Painting is split so that a
moving playhead only repaints a few pixels of the ruler (:meth:`Ruler.playhead_moved`).
"""

from __future__ import annotations

import math
from typing import Protocol

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QApplication, QWidget

RULER_HEIGHT = 26
MIN_LABEL_SPACING_PX = 72.0

# (major step, minor step) in seconds, finest first; the ruler takes the first major step whose
# labels stay MIN_LABEL_SPACING_PX apart at the current zoom.
TICK_STEPS: tuple[tuple[float, float], ...] = (
    (0.05, 0.01), (0.1, 0.02), (0.25, 0.05), (0.5, 0.1), (1.0, 0.2), (2.0, 0.5), (5.0, 1.0),
    (10.0, 2.0), (15.0, 5.0), (30.0, 5.0), (60.0, 10.0), (120.0, 30.0), (300.0, 60.0),
    (600.0, 120.0), (900.0, 300.0), (1800.0, 300.0), (3600.0, 600.0),
)

LOOP_COLOUR = QColor(80, 160, 255, 70)
PLAYHEAD_COLOUR = QColor("#ff3b30")


def tick_steps(px_per_s: float, min_spacing_px: float = MIN_LABEL_SPACING_PX) -> tuple[float, float]:
    """(major, minor) tick steps in seconds for a zoom of ``px_per_s`` pixels per second."""
    for major, minor in TICK_STEPS:
        if major * px_per_s >= min_spacing_px:
            return major, minor
    return TICK_STEPS[-1]


def format_time(seconds: float, decimals: int = 0) -> str:
    """``mm:ss`` (``h:mm:ss`` past an hour), with ``decimals`` digits of seconds: 83.4 -> "01:23.4"."""
    sign = "-" if seconds < 0 else ""
    scale = 10 ** decimals
    total = round(abs(seconds) * scale)  # round once, so 59.96 s shows "01:00.0", never "00:60.0"
    whole, frac = divmod(total, scale)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
    if decimals:
        text += f".{frac:0{decimals}d}"
    return sign + text


def label_decimals(major_step: float) -> int:
    """Digits after the seconds that labels need to tell ticks ``major_step`` apart."""
    if major_step >= 1.0:
        return 0
    return 1 if major_step >= 0.1 else 2


class _Snapper(Protocol):
    def time(self, t: float, snap_on: bool = True) -> float: ...


class _View(Protocol):
    """What the ruler asks of the timeline view (app/timeline/view.py)."""

    @property
    def snapper(self) -> _Snapper: ...


    def zoom(self) -> float: ...
    def time_at(self, x: float) -> float: ...
    def x_of(self, seconds: float) -> float: ...
    def loop_region(self) -> tuple[float, float] | None: ...
    def loop_preview(self, region: tuple[float, float] | None) -> None: ...
    def ruler_loop_selected(self, region: tuple[float, float] | None) -> None: ...
    def ruler_clicked(self, seconds: float) -> None: ...


class Ruler(QWidget):
    """Time ruler above the lanes. Click seeks; a drag selects the loop region; a double-click
    clears it. Gestures are reported to the owning view, which emits its public signals."""

    def __init__(self, view: _View, parent: QWidget) -> None:
        super().__init__(parent)  # the view (which the Protocol cannot say it is)
        self._view = view
        self.setFixedHeight(RULER_HEIGHT)
        self.setMouseTracking(False)
        self.setCursor(Qt.CursorShape.IBeamCursor)
        self.setToolTip("Click to move the playhead; drag to select a loop region; double-click to clear it")
        self._press_x: int | None = None
        self._dragging = False
        self._drag_region: tuple[float, float] | None = None
        self._playhead_x: int | None = None
        self._font = QFont(self.font())
        self._font.setPointSizeF(max(7.0, self._font.pointSizeF() * 0.85))

    # --------------------------------------------------------------- state the view pushes

    @property
    def dragging(self) -> bool:
        return self._dragging

    def playhead_moved(self, x: int | None) -> None:
        """Repaint only the strips under the old and new playhead marker."""
        old, self._playhead_x = self._playhead_x, x
        if old == x:
            return
        for px in (old, x):
            if px is not None:
                self.update(QRect(px - 6, 0, 13, self.height()))

    # --------------------------------------------------------------- painting

    def paintEvent(self, event: QPaintEvent) -> None:
        view = self._view
        p = QPainter(self)
        pal = self.palette()
        p.fillRect(event.rect(), pal.window())
        h = self.height()
        x0, x1 = event.rect().left() - 1, event.rect().right() + 1
        region = self._drag_region if self._dragging else view.loop_region()
        if region is not None:
            a, b = view.x_of(region[0]), view.x_of(region[1])
            p.fillRect(QRectF(a, 0, max(1.0, b - a), h), LOOP_COLOUR)
        pps = view.zoom()
        major, minor = tick_steps(pps)
        decimals = label_decimals(major)
        p.setFont(self._font)
        # A label is drawn right of its tick: start from ticks left of the exposed strip whose
        # text reaches into it, or a strip repainted under the playhead cuts labels ("00:0(").
        reach = p.fontMetrics().horizontalAdvance(format_time(view.time_at(x1), decimals)) + 4
        t0 = max(0.0, view.time_at(x0 - reach))
        t1 = view.time_at(x1)
        text_pen = QPen(pal.windowText().color())
        tick_pen = QPen(pal.mid().color())
        first = math.floor(t0 / minor)
        last = math.ceil(t1 / minor)
        ratio = round(major / minor)
        for k in range(first, last + 1):
            t = k * minor
            if t < 0:
                continue
            x = view.x_of(t)
            if k % ratio == 0:
                p.setPen(text_pen)
                p.drawLine(int(x), h - 10, int(x), h)
                p.drawText(int(x) + 3, h - 12, format_time(t, decimals))
            else:
                p.setPen(tick_pen)
                p.drawLine(int(x), h - 4, int(x), h)
        p.setPen(QPen(pal.dark().color()))
        p.drawLine(x0, h - 1, x1, h - 1)
        if self._playhead_x is not None:
            px = self._playhead_x
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(PLAYHEAD_COLOUR)
            p.drawPolygon(QPolygonF([QPointF(px - 5, h - 9), QPointF(px + 5, h - 9), QPointF(px, h - 1)]))
        p.end()

    # --------------------------------------------------------------- gestures

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        self._press_x = int(event.position().x())
        self._dragging = False
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._press_x is None:
            return
        x = int(event.position().x())
        if not self._dragging and abs(x - self._press_x) < QApplication.startDragDistance():
            return
        self._dragging = True
        snap = not (event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        a = self._view.snapper.time(self._view.time_at(self._press_x), snap)
        b = self._view.snapper.time(self._view.time_at(x), snap)
        self._drag_region = (max(0.0, min(a, b)), max(0.0, max(a, b)))
        self.update()
        self._view.loop_preview(self._drag_region)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._press_x is None or event.button() != Qt.MouseButton.LeftButton:
            return
        press_x, self._press_x = self._press_x, None
        if self._dragging:
            self._dragging = False
            region, self._drag_region = self._drag_region, None
            if region is not None and region[1] - region[0] > 1e-6:
                self._view.ruler_loop_selected(region)
            else:
                self._view.loop_preview(None)
        else:
            self._view.ruler_clicked(max(0.0, self._view.time_at(press_x)))
        self.update()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._view.loop_region() is not None:
            self._view.ruler_loop_selected(None)
        event.accept()
