"""Where the monitor's texts are drawn, from the widgets' geometry (for the layout tests).

pyqtgraph draws tick labels inside an AxisItem's paint; ``AxisItem.generateDrawSpecs`` is the
layout it paints from, so the boxes below are the ones a producer sees: each tick label's text
box, each axis title and legend entry, in window coordinates.
"""

from __future__ import annotations

from itertools import combinations

import pyqtgraph as pg
from PySide6.QtCore import QPoint, QRectF
from PySide6.QtGui import QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QGraphicsTextItem, QWidget


def _text_item_box(item: QGraphicsTextItem) -> QRectF:
    """The text's own box (without the document margin) in scene coordinates."""
    margin = item.document().documentMargin()
    return item.mapRectToScene(item.boundingRect().adjusted(margin, margin, -margin, -margin))


def scene_text_boxes(view: pg.GraphicsView) -> list[tuple[str, QRectF]]:
    """(text, scene box) of every visible tick label, axis title and legend entry of ``view``."""
    boxes: list[tuple[str, QRectF]] = []
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    for item in view.scene().items():
        if isinstance(item, pg.AxisItem) and item.isVisible():
            painter = QPainter(image)
            specs = item.generateDrawSpecs(painter)
            font = painter.font()
            painter.end()
            fm = QFontMetricsF(item.style["tickFont"] or font)
            for rect, flags, text in (specs[2] if specs else []):
                boxes.append((text, item.mapRectToScene(fm.boundingRect(rect, flags, text))))
            if item.label.isVisible() and item.labelText:
                boxes.append((item.label.toPlainText().strip(), _text_item_box(item.label)))
        elif isinstance(item, pg.LabelItem) and item.isVisible() and item.text:
            boxes.append((item.text, _text_item_box(item.item)))
    return boxes


def window_text_boxes(view: pg.GraphicsView, window: QWidget) -> list[tuple[str, QRectF]]:
    offset = view.viewport().mapTo(window, QPoint(0, 0))
    return [(text, view.mapFromScene(box).boundingRect().toRectF().translated(offset))
            for text, box in scene_text_boxes(view)]


def overlaps(boxes: list[tuple[str, QRectF]], slack: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes overlap (by more than ``slack`` px on each axis)."""
    return [(a, b) for (a, ra), (b, rb) in combinations(boxes, 2)
            if ra.adjusted(slack, slack, -slack, -slack).intersects(rb.adjusted(slack, slack, -slack, -slack))]


def outside(boxes: list[tuple[str, QRectF]], area: QRectF, slack: float = 1.0) -> list[str]:
    """Texts not wholly inside ``area`` (cut off by the canvas edge)."""
    area = area.adjusted(-slack, -slack, slack, slack)
    return [text for text, box in boxes if not area.contains(box)]
