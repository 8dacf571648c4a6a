"""A staged line's position drawn on its timeline clip: pan as height (left at
the top, right at the bottom), distance as the size of the keyframe dots (near
is big), one segment between keyframes for movement."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

Keyframes = tuple[tuple[float, float, float], ...]  # (fraction of the line, pan, distance)
COLOUR = QColor("#ffd166")


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
    pen = QPen(COLOUR, 1.2, Qt.PenStyle.SolidLine if len(path) > 1 else Qt.PenStyle.DotLine)
    pen.setCosmetic(True)
    painter.setPen(pen)
    for (a, _), (b, _) in zip(points, points[1:], strict=False):
        painter.drawLine(a, b)
    painter.setBrush(COLOUR)
    for point, radius in points if len(path) > 1 else points[:1]:
        painter.drawEllipse(point, radius, radius)
    painter.restore()
