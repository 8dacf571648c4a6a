"""The window's status bar: a message that does not fit is cut at a word, with an ellipsis.

QStatusBar draws its message clipped at the first permanent widget, wherever
that falls (mid-word, mid-letter). This one draws the words that fit and "…",
and while a message is cut its whole text is the bar's tooltip. Every message
goes through it, whoever shows it (window, panels, menu status tips).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QSizeGrip, QStatusBar, QStyle, QStyleOption, QWidget

ELLIPSIS = "…"
_TRAILING = " ,;:-–—"  # not left dangling before the ellipsis


def elide_words(text: str, metrics: QFontMetrics, width: int) -> str:
    """``text`` if it fits in ``width`` pixels, else the most whole words that fit, then "…"
    (a first word too long for the space is cut where it must be)."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    words = text.split(" ")
    shown = ""
    for count in range(1, len(words) + 1):
        candidate = " ".join(words[:count]).rstrip(_TRAILING) + ELLIPSIS
        if metrics.horizontalAdvance(candidate) > width:
            break
        shown = candidate
    return shown or metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messageChanged.connect(self._message_changed)

    def _permanent(self) -> list[QWidget]:
        """Widgets that stay visible beside a message: the permanent ones and the size grip."""
        return [w for w in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                if w.isVisibleTo(self)]

    def message_rect(self) -> QRect:
        """Where the message is drawn: from the left edge to the first widget that stays."""
        left, right = 6, self.width() - 12
        for widget in self._permanent():  # other widgets are hidden while a message shows
            right = min(right, widget.x() - 2)
        return QRect(left, 0, max(0, right - left), self.height())

    def shown_text(self) -> str:
        return elide_words(self.currentMessage(), self.fontMetrics(), self.message_rect().width())

    def _message_changed(self, message: str) -> None:
        self.setToolTip(message if message and self.shown_text() != message else "")

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._message_changed(self.currentMessage())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        message = self.currentMessage()
        if not message:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, option, painter, self)
        for widget in self._permanent():
            if not isinstance(widget, QSizeGrip):
                option.rect = widget.geometry().adjusted(-1, -1, 1, 1)
                self.style().drawPrimitive(QStyle.PrimitiveElement.PE_FrameStatusBarItem, option, painter, self)
        painter.setPen(self.palette().windowText().color())
        painter.drawText(self.message_rect(), int(Qt.AlignmentFlag.AlignLeading | Qt.AlignmentFlag.AlignVCenter
                                                  | Qt.TextFlag.TextSingleLine), self.shown_text())
        painter.end()
