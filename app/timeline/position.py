"""A staged line's position drawn on its timeline clip: pan as height (left at
the top, right at the bottom), distance as the size of the keyframe dots (near
is big), one segment between keyframes for movement."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

Keyframes = tuple[tuple[float, float, float], ...]  # (fraction of the line, pan, distance)
COLOUR = QColor("#ffd166")
# A dark edge under the gold: the line stays readable on every lane's colour (on the FX lane's
# amber the gold alone was hard to see).
HALO = QColor(20, 20, 28, 190)


def keyframe_points(rect: QRectF, path: Keyframes) -> list[tuple[QPointF, float]]:
    """(point, dot radius) of each keyframe in ``rect``; a single keyframe spans the clip."""
    keys = path if len(path) > 1 else (((0.0,) + path[0][1:]), ((1.0,) + path[0][1:])) if path else ()
    top, height = rect.top() + 3.0, max(1.0, rect.height() - 6.0)
    points = []
    for at, pan, distance in keys:
        x = rect.left() + at * rect.width()
        y = top + (max(-1.0, min(1.0, pan)) + 1.0) / 2.0 * height
        points.append((QPointF(x, y), max(1.5, min(4.0, 4.0 / max(distance, 0.25) ** 0.5))))
    return points


def draw_position(painter: QPainter, rect: QRectF, path: Keyframes) -> None:
    points = keyframe_points(rect, path)
    if len(points) < 2:
        return
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    style = Qt.PenStyle.SolidLine if len(path) > 1 else Qt.PenStyle.DotLine
    dots = points if len(path) > 1 else points[:1]
    for colour, width, grow in ((HALO, 3.4, 1.0), (COLOUR, 1.6, 0.0)):
        pen = QPen(colour, width, style)
        pen.setCosmetic(True)
        painter.setPen(pen)
        for (a, _), (b, _) in zip(points, points[1:], strict=False):
            painter.drawLine(a, b)
        painter.setBrush(colour)
        for point, radius in dots:
            painter.drawEllipse(point, radius + grow, radius + grow)
    painter.restore()
