"""The word being spoken, lit in the script while a line plays.

The presenter's 20 Hz poll calls :meth:`SpokenWord.show` with the engine's
state; it knows which line the script highlights as playing (the script
model's ``playing_line``), where that line's clip starts (the engine's clip
views) and the line's words timed within the clip (``words(line_id)``, the
engine link's, read once per line and clip, not per frame). When the word changes it tells
the text column's delegate which characters to light and repaints that one
cell: no model signal, no reset, no relayout.

The delegate (:class:`SpokenWordDelegate`) is the script's typing delegate
that draws the playing row's text itself, with the word's characters on the
highlight colour; every other cell is drawn as before.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QPointF, QRectF
from PySide6.QtGui import QColor, QPainter, QPalette, QTextCharFormat, QTextLayout, QTextOption
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem, QTableView

from app.script.directions import direction_formats
from app.script.line_editor import TypingDelegate
from engine.session import ClipView, SessionState
from engine.synth.wordmap import WordTime, written_words

_Index = QModelIndex | QPersistentModelIndex
#: ``words(line_id)``: the line's written words timed within its clip, (word, start, end); empty when not known.
WordsOf = Callable[[str], tuple[WordTime, ...]]
# A word stays lit through the short silence after it, until the next begins
# (or this long past its end, so a pause does not keep the last word lit).
HOLD_S = 0.35
MARKER = QColor("#ffd54a")


class SpokenWordDelegate(TypingDelegate):
    """The text column's delegate: ``lit`` is (row, first character, end) of the
    word being spoken, or None."""

    lit: tuple[int, int, int] | None = None

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        lit = self.lit if self.lit is not None and index.row() == self.lit[0] else None
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        # Directions inside the words are drawn apart from them (app/script/directions.py).
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        directions = direction_formats(text, selected) if "(" in text or "[" in text else []
        if lit is None and not directions:
            super().paint(painter, option, index)
            return
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is None:
            super().paint(painter, option, index)
            return
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)  # background, focus
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        start, end = (lit[1], lit[2]) if lit is not None else (0, 0)
        _draw_text(painter, QRectF(rect.adjusted(margin, 0, -margin, 0)), text, opt, start, end, directions)


def _draw_text(painter: QPainter, rect: QRectF, text: str, opt: QStyleOptionViewItem, start: int, end: int,
               directions: list[QTextLayout.FormatRange] | None = None) -> None:
    """The cell's text wrapped at words as the view wraps it, centred
    vertically, ``directions`` styled apart, with [start, end) on the highlight colour."""
    layout = QTextLayout(text, opt.font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)  # as QCommonStyle wraps an item's text
    layout.setTextOption(option)
    palette: QPalette = opt.palette
    selected = bool(opt.state & QStyle.StateFlag.State_Selected)
    lit = QTextCharFormat()
    # A marker colour, not the palette's highlight: the playing line is often
    # the selected one, whose cell is already on the highlight colour.
    lit.setBackground(MARKER)
    lit.setForeground(QColor("black"))
    span = QTextLayout.FormatRange()
    span.start, span.length, span.format = start, max(0, end - start), lit
    layout.setFormats([*(directions or []), span] if end > start else list(directions or []))
    layout.beginLayout()
    height = 0.0
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(rect.width())
        line.setPosition(QPointF(0.0, height))
        height += line.height()
    layout.endLayout()
    painter.save()
    role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
    painter.setPen(palette.color(role))
    painter.setClipRect(rect)
    layout.draw(painter, QPointF(rect.left(), rect.top() + max(0.0, (rect.height() - height) / 2)))
    painter.restore()


def word_at(words: Sequence[WordTime], t: float) -> int | None:
    """The index of the word being spoken ``t`` seconds into the clip, or None
    (before the first word, or in a pause after one)."""
    starts = [start for _, start, _ in words]
    i = bisect.bisect_right(starts, t) - 1
    if i < 0:
        return None
    next_start = starts[i + 1] if i + 1 < len(starts) else float("inf")
    return i if t < min(next_start, words[i][2] + HOLD_S) else None


class SpokenWord(QObject):
    """Lights the spoken word of the playing line (GUI thread)."""

    def __init__(self, view: QTableView, text_column: int, words: WordsOf, text_of: Callable[[str], str],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.view, self.column, self.words_of, self.text_of = view, text_column, words, text_of
        self._clips: Sequence[ClipView] | None = None
        self._starts: dict[str, float] = {}
        self._timed: tuple[str, str, list[tuple[int, int]], tuple[WordTime, ...]] | None = None
        self.word: str | None = None  # the word lit now (tests and the screenshot read it)

    def delegate(self) -> SpokenWordDelegate | None:
        delegate = self.view.itemDelegateForColumn(self.column)
        return delegate if isinstance(delegate, SpokenWordDelegate) else None

    def show(self, state: SessionState, line_id: str | None) -> None:
        """``line_id``: the line the script shows as playing (None: none)."""
        if state.clips is not self._clips:
            self._clips = state.clips
            self._starts = {c.line_id: c.start for c in state.clips if not c.estimated}
            self._timed = None  # a clip arrived or moved: its words may have changed too
        lit = None
        word = None
        start = self._starts.get(line_id) if line_id is not None else None
        if line_id is not None and start is not None and state.transport.playing:
            spans, words = self._words(line_id, self.text_of(line_id))
            i = word_at(words, state.transport.position_s - start)
            if i is not None and i < len(spans):
                row = self._row(line_id)
                if row is not None:
                    lit = (row, *spans[i])
                    word = words[i][0]
        self._light(lit)
        self.word = word

    def _words(self, line_id: str, text: str) -> tuple[list[tuple[int, int]], tuple[WordTime, ...]]:
        """The line's word positions in its text and their times, read once per line and clip."""
        if self._timed is None or self._timed[:2] != (line_id, text):
            words = self.words_of(line_id)
            found = written_words(text)
            if [w for w, _, _ in found] != [w for w, _, _ in words]:
                words = ()  # the text changed since the clip was made: light nothing
            self._timed = (line_id, text, [(a, b) for _, a, b in found], words)
        return self._timed[2], self._timed[3]

    def _row(self, line_id: str) -> int | None:
        model = self.view.model()
        row_of = getattr(model, "row_of_line", None)
        try:
            return int(row_of(line_id)) if row_of is not None else None
        except KeyError:
            return None

    def _light(self, lit: tuple[int, int, int] | None) -> None:
        delegate = self.delegate()
        if delegate is None or delegate.lit == lit:
            return
        rows = {r for r in (delegate.lit, lit) if r is not None}
        delegate.lit = lit
        model = self.view.model()
        for row, _, _ in rows:  # repaint the one cell (or two, when the line changed)
            self.view.update(model.index(row, self.column))
