"""Scene items of the timeline: clips (with cached waveform paths), the playhead, the loop shade.

Why items and not one big paint: with ~500 clips the scene's BSP index hands each paint only the
clips under the exposed strip, so scrolling, a moving playhead or one clip filling in repaints a
few items, never the whole production.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

import numpy as np
from pyqtgraph import functions as pgfn
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from app.timeline.position import Keyframes, draw_position
from app.timeline.ruler import LOOP_COLOUR, PLAYHEAD_COLOUR, format_time

#: ``peaks(line_id, columns)`` -> float array (columns, 2) of (min, max) in [-1, 1], or None
#: while the clip's audio does not exist yet.
PeaksFn = Callable[[str, int], "np.ndarray | None"]

MAX_WAVEFORM_COLUMNS = 4096  # wider clips stretch the path: a column per pixel is plenty
PATHS_PER_CLIP = 3  # zoom levels whose paths a clip keeps (the current one and a step either way)

Z_CLIP, Z_DRAGGED, Z_LOOP, Z_GUIDE, Z_PLAYHEAD = 10.0, 20.0, 25.0, 30.0, 40.0


class ClipLike(Protocol):
    """What the timeline reads from a clip (engine.session.ClipView has these fields)."""

    line_id: str
    role: str
    start: float
    end: float
    estimated: bool


def waveform_path(peaks: np.ndarray) -> QPainterPath:
    """A closed outline of (min, max) peaks in column units: x in [0, columns], y in [-1, 1]
    pointing down (Qt's y axis), so the painter only scales it to the clip's rectangle."""
    peaks = np.clip(np.asarray(peaks, dtype=np.float64), -1.0, 1.0)
    n = peaks.shape[0]
    cols = np.arange(n, dtype=np.float64) + 0.5
    x = np.concatenate((cols, cols[::-1]))
    y = np.concatenate((-peaks[:, 1], -peaks[::-1, 0]))
    path: QPainterPath = pgfn.arrayToQPath(x, y, connect="all", finiteCheck=False)
    path.closeSubpath()
    return path


def draw_lock(painter: QPainter, rect: QRectF, colour: QColor) -> None:
    """A padlock in ``rect``: a locked line keeps its take (app/script/check_marks.py draws it in the script)."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    w, h = rect.width(), rect.height()
    body = QRectF(rect.left() + w * 0.15, rect.top() + h * 0.45, w * 0.7, h * 0.55)
    shackle = QRectF(rect.left() + w * 0.3, rect.top() + h * 0.05, w * 0.4, h * 0.8)
    pen = QPen(colour, max(1.2, w * 0.12))
    pen.setCosmetic(True)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawArc(shackle, 0, 180 * 16)
    painter.drawLine(QPointF(shackle.left(), shackle.center().y()), QPointF(shackle.left(), body.top()))
    painter.drawLine(QPointF(shackle.right(), shackle.center().y()), QPointF(shackle.right(), body.top()))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawRoundedRect(body, 1.5, 1.5)
    painter.restore()


class ClipItem(QGraphicsItem):
    """One line's clip. Estimated clips (no audio yet) are dashed outlines of the predicted
    length; ready clips are filled and carry a waveform path cached per column count."""

    def __init__(self, clip: ClipLike, colour: QColor, peaks: PeaksFn | None, label: str = "") -> None:
        super().__init__()
        self.line_id = clip.line_id
        self.role = clip.role
        self.start = float(clip.start)
        self.end = float(clip.end)
        self.estimated = bool(clip.estimated)
        self.label = label
        self.selected = False
        self.locked = False  # its line is locked (a padlock on the clip)
        self.position: Keyframes = ()  # a staged line's pan and distance keyframes (app/timeline/position.py)
        self._colour = QColor(colour)
        self._peaks = peaks
        self._paths: OrderedDict[int, QPainterPath] = OrderedDict()
        self._w = 1.0
        self._h = 1.0
        self.peaks_calls = 0  # how often the peaks callable ran (the path cache keeps this low)
        self.setZValue(Z_CLIP)
        self.setAcceptHoverEvents(False)
        self._update_tooltip()

    # ----------------------------------------------------------------- state

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.start)

    def update_from(self, clip: ClipLike, colour: QColor, label: str) -> bool:
        """Take new clip data; True if anything visible changed. A changed length or an
        estimate becoming audio drops the cached waveform paths."""
        new = (float(clip.start), float(clip.end), bool(clip.estimated), clip.role)
        old = (self.start, self.end, self.estimated, self.role)
        changed = new != old or colour != self._colour or label != self.label
        if new[1] - new[0] != old[1] - old[0] or new[2] != old[2]:
            self._paths.clear()
        self.start, self.end, self.estimated, self.role = new
        self._colour = QColor(colour)
        self.label = label
        if changed:
            self._update_tooltip()
            self.update()
        return changed

    def set_position(self, path: Keyframes) -> None:
        if path != self.position:
            self.position = path
            self.update()

    def invalidate_peaks(self) -> None:
        self._paths.clear()
        self.update()

    def set_locked(self, locked: bool) -> None:
        if locked != self.locked:
            self.locked = locked
            self._update_tooltip()
            self.update()

    def cached_columns(self) -> list[int]:
        """Column counts of the waveform paths this clip holds (tests and diagnostics)."""
        return list(self._paths)

    def outline_style(self) -> Qt.PenStyle:
        """Dashed while the clip is an estimate, solid once its audio exists."""
        return Qt.PenStyle.DashLine if self.estimated else Qt.PenStyle.SolidLine

    def set_geometry(self, x: float, y: float, w: float, h: float) -> None:
        w = max(2.0, w)
        if (w, h) != (self._w, self._h):
            self.prepareGeometryChange()
            self._w, self._h = w, h
        self.setPos(x, y)

    def _update_tooltip(self) -> None:
        span = f"{format_time(self.start, 1)} - {format_time(self.end, 1)}"
        state = " (estimated length: not synthesized yet)" if self.estimated else ""
        text = f"\n{self.label}" if self.label else ""
        lock = " (locked: keeps its take)" if self.locked else ""
        self.setToolTip(f"{self.role} {span}{state}{lock}{text}")

    # ----------------------------------------------------------------- painting

    def boundingRect(self) -> QRectF:
        return QRectF(-1.0, -1.0, self._w + 2.0, self._h + 2.0)

    def _path_for(self, columns: int) -> QPainterPath | None:
        path = self._paths.get(columns)
        if path is not None:
            self._paths.move_to_end(columns)
            return path
        if self._peaks is None:
            return None
        self.peaks_calls += 1
        peaks = self._peaks(self.line_id, columns)
        if peaks is None or len(peaks) == 0:
            return None  # not cached: ask again on the next paint, the audio may have arrived
        path = waveform_path(peaks)
        self._paths[columns] = path
        while len(self._paths) > PATHS_PER_CLIP:
            self._paths.popitem(last=False)
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        rect = QRectF(0.0, 0.0, self._w, self._h)
        c = self._colour
        if self._w < 6.0 and not self.selected:  # zoomed far out: a plain bar, no outline or waveform
            fill = QColor(c)
            fill.setAlpha(60 if self.estimated else 200)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.fillRect(rect, fill)
            return
        if self.estimated:
            fill = QColor(c)
            fill.setAlpha(45)
            pen = QPen(c, 1.0, Qt.PenStyle.DashLine)
        else:
            fill = QColor(c).darker(130)
            fill.setAlpha(200)
            pen = QPen(c.lighter(130), 1.0)
        if self.selected:
            pen = QPen(QColor("#ffffff"), 2.0, self.outline_style())
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 3.0, 3.0)
        if self._w < 3.0:
            return
        if not self.estimated:
            columns = max(1, min(MAX_WAVEFORM_COLUMNS, round(self._w)))
            path = self._path_for(columns)
            if path is not None:
                painter.save()
                top = 14.0 if self._h > 36 else 2.0
                half = (self._h - top - 2.0) / 2.0
                painter.translate(0.0, top + half)
                painter.scale(self._w / columns, half)
                painter.setPen(Qt.PenStyle.NoPen)
                wave = QColor(c).lighter(170)
                wave.setAlpha(220)
                painter.setBrush(wave)
                painter.drawPath(path)
                painter.restore()
        if self.position and self._w > 20 and self._h > 16:
            draw_position(painter, QRectF(0.0, 12.0 if self._h > 36 else 0.0, self._w, self._h - 12.0
                                          if self._h > 36 else self._h), self.position)
        lock_w = 0.0
        if self.locked and self._w > 16 and self._h > 12:
            lock_w = 12.0
            draw_lock(painter, QRectF(self._w - lock_w - 2.0, 2.0, 10.0, 11.0), QColor("#ffd166"))
        if self._w > 28 and self._h > 20:
            font = QFont(painter.font())
            font.setPointSizeF(max(6.5, font.pointSizeF() * 0.8))
            font.setItalic(self.estimated)
            painter.setFont(font)
            painter.setPen(QColor("#f0f0f0") if not self.estimated else c.lighter(120))
            text = self.label or self.line_id
            elided = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, self._w - 8 - lock_w)
            painter.drawText(QRectF(4.0, 1.0, self._w - 8 - lock_w, 13.0),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), elided)


class PlayheadItem(QGraphicsLineItem):
    """A one-pixel line: moving it invalidates two thin strips of the viewport, nothing else."""

    def __init__(self) -> None:
        super().__init__(QLineF(0.0, 0.0, 0.0, 1.0))
        pen = QPen(PLAYHEAD_COLOUR, 1.0)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setZValue(Z_PLAYHEAD)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_height(self, h: float) -> None:
        self.setLine(QLineF(0.0, 0.0, 0.0, max(1.0, h)))


class LoopShade(QGraphicsRectItem):
    """The loop region across all lanes, drawn over the clips with a light tint."""

    def __init__(self) -> None:
        super().__init__()
        self.setBrush(LOOP_COLOUR)
        self.setPen(Qt.PenStyle.NoPen)
        self.setZValue(Z_LOOP)  # over clips (tinted), under the playhead
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.hide()


class SnapGuide(QGraphicsLineItem):
    """Shown while a dragged clip is snapped: where it snapped to."""

    def __init__(self) -> None:
        super().__init__()
        pen = QPen(QColor("#ffd60a"), 1.0, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setZValue(Z_GUIDE)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.hide()


class DropHint(QGraphicsSimpleTextItem):
    """While a clip is dragged: what releasing it there will do, on a dark label by the clip."""

    PAD = 3.0

    def __init__(self) -> None:
        super().__init__()
        self.setBrush(QColor("#ffffff"))
        self.setZValue(Z_GUIDE)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.hide()

    def boundingRect(self) -> QRectF:
        return super().boundingRect().adjusted(-self.PAD, -self.PAD, self.PAD, self.PAD)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(20, 20, 20, 225))
        painter.drawRoundedRect(self.boundingRect(), 3.0, 3.0)
        # Qt paints with no widget when a scene is rendered to an image; PySide's stub of this
        # class's paint() leaves None out, as its base class's does not.
        super().paint(painter, option, widget)  # type: ignore[arg-type]
