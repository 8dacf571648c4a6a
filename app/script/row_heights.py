"""Each script row as tall as its wrapped text, without holding the GUI thread.

The Line column wraps, so a row is as tall as its text at the column's width, and a new
width (the window resized, a column dragged) changes every row's height. Qt's own
``resizeRowsToContents`` asks every cell of every row, at once; on a long script that
stops the event loop for as long as it takes, on each change. Here a row asks only the cells
that wrap at their width (the Line always; Pause, Role and Delivery only when their text is
wider than the column, which is rare), the rows in view are fitted on the next turn of the
event loop and the rest a chunk per turn after it, so typing, playback and the window stay
live on a script of thousands of lines (``bench/script_rows.py``, docs/dev/benchmarks.md).
A row whose text changes is fitted at once, so the row being typed in grows with its text.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QRect, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QStyleOptionViewItem, QTableView

from app.script.columns import WRAPPING, Col

CHUNK = 150  # rows fitted per turn of the event loop once those in view are
MANY = 64  # a change to more rows than this is fitted in turns (a cast change, a paste)
# Room for the cell's text margins: a text within this of its column's width is measured exactly.
_SLACK = 12


class RowHeights(QObject):
    """Fits the rows of ``view`` (whose ``sizeHintForRow`` calls :meth:`row_height`) to their text."""

    def __init__(self, view: QTableView) -> None:
        super().__init__(view)
        self.view = view
        self._pending: set[int] = set()
        self._one_line = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._work)
        view.horizontalHeader().sectionResized.connect(lambda *_: self.all())
        view.verticalScrollBar().valueChanged.connect(lambda _v: self._timer.start() if self._pending else None)

    def watch(self, model: QAbstractItemModel) -> None:
        model.modelReset.connect(self.all)
        model.layoutChanged.connect(self.all)
        model.rowsInserted.connect(lambda _p, first, _last: self.rows(first, model.rowCount() - 1))
        model.rowsRemoved.connect(lambda _p, first, _last: self.rows(first, model.rowCount() - 1))
        model.dataChanged.connect(self._cells_changed)
        self.all()

    def pending(self) -> int:
        """How many rows still wait for their height (tests and the benchmark read it)."""
        return len(self._pending)

    def all(self) -> None:
        """Every row anew: those in view first."""
        model = self.view.model()
        self._one_line = 0  # the font or the style may have changed too
        self._pending = set(range(model.rowCount())) if model is not None else set()
        self._timer.start()

    def rows(self, first: int, last: int) -> None:
        if first > last:
            return
        if last - first >= MANY:
            self._pending.update(range(first, last + 1))
            self._timer.start()
            return
        for row in range(first, last + 1):
            self._pending.discard(row)
            self.view.resizeRowToContents(row)

    def _cells_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, _roles: object = None) -> None:
        if any(col in WRAPPING for col in range(top_left.column(), bottom_right.column() + 1)):
            self.rows(top_left.row(), bottom_right.row())

    def _work(self) -> None:
        model = self.view.model()
        count = model.rowCount() if model is not None else 0
        self._pending = {row for row in self._pending if row < count}
        # Those in view first: fitting them can bring more rows into view, so until none waits there.
        while self._pending:
            shown = [row for row in self._in_view() if row in self._pending]
            if not shown:
                break
            for row in shown:
                self._pending.discard(row)
                self.view.resizeRowToContents(row)
        for row in sorted(self._pending)[:CHUNK]:
            self._pending.discard(row)
            self.view.resizeRowToContents(row)
        if self._pending:
            self._timer.start()

    def _in_view(self) -> range:
        view = self.view
        top = view.rowAt(0)
        bottom = view.rowAt(view.viewport().height() - 1)
        count = view.model().rowCount()
        return range(max(0, top), (bottom if bottom >= 0 else count - 1) + 1)

    def row_height(self, row: int) -> int:
        """What the row needs: the tallest of its cells that wrap, at least one line."""
        view, model = self.view, self.view.model()
        option = QStyleOptionViewItem()
        view.initViewItemOption(option)
        height = self._line_height(option)
        for col in WRAPPING:
            if view.isColumnHidden(col):
                continue
            index = model.index(row, col)
            width = view.columnWidth(col)
            if col != Col.TEXT and not _too_wide(index, width, view.font()):
                continue
            # A rect with a height, as the view's own measure gives: the style wraps only in a valid one.
            option.rect = QRect(0, 0, width, max(1, view.rowHeight(row)))
            delegate = view.itemDelegateForIndex(index)
            height = max(height, delegate.sizeHint(option, index).height())
        return height

    def _line_height(self, option: QStyleOptionViewItem) -> int:
        """One line in any column (the status column's, the tallest of the one-line cells)."""
        if not self._one_line:
            model = self.view.model()
            index = model.index(0, Col.STATUS)
            delegate = self.view.itemDelegateForIndex(index) if index.isValid() else None
            self._one_line = delegate.sizeHint(option, index).height() if delegate is not None else 0
        return self._one_line


def _too_wide(index: QModelIndex, width: int, font: QFont) -> bool:
    """Whether the cell's text might not fit its column on one line (then it is measured)."""
    text = index.data(Qt.ItemDataRole.DisplayRole)
    if not text:
        return False
    text = str(text)
    if "\n" in text:
        return True
    cell_font = index.data(Qt.ItemDataRole.FontRole)
    metrics = QFontMetrics(cell_font if isinstance(cell_font, QFont) else font)
    return metrics.horizontalAdvance(text) + _SLACK > width
