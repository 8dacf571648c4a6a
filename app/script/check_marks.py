"""The speech check and locks, shown in the script and timeline; "Fix Flagged Lines".

The Session checks every voiced line in the background (engine/session/
checking.py) and publishes the results in ``SessionState.checks``. Here, on
the GUI thread:

- the script marks a flagged line: a red flag in its status cell, a red bar
  and red wavy underlines under the suspect words in its text, the reason
  after the text where it fits, and the reason and score as the row's tooltip;
  a locked line gets a padlock in its status cell (and on its timeline clip);
- Edit > Fix Flagged Lines asks how many new takes per line (at most; the
  ``check/takes`` setting remembers it, 3 at first) and hands the flagged,
  unlocked lines to ``Session.fix_lines``; when the engine has tried them, the
  takes it made and the best of each are recorded in the project as one undo
  step (a line edited, locked or given another take meanwhile is left alone).

The marks are painted over the script view after it paints (an event filter
on its viewport), so the script's own delegates stay as they are. Results
are read from the engine's latest-value slots by a 5 Hz QTimer: they change
at the pace of the check (a few lines a second at most).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QHelpEvent,
    QPainter,
    QPainterPath,
    QPen,
    QTextLayout,
    QTextOption,
    QUndoCommand,
)
from PySide6.QtWidgets import QInputDialog, QLabel, QStyle, QToolTip, QWidget

from app.document.commands import Macro, SetLineFields
from app.document.settings import FIX_TAKES
from app.script.access import CheckStudio
from app.script.columns import Col
from app.timeline.items import draw_lock
from engine.check.lines import LineResult
from engine.session.views import FixProgress

POLL_MS = 200
FLAG = QColor("#d03030")
LOCK = QColor("#b07d00")
MAX_TAKES = 10


def word_spans(text: str, words: Iterable[str]) -> list[tuple[int, int]]:
    """Where each of ``words`` (as the check spells them: lower case) stands in ``text``."""
    spans: list[tuple[int, int]] = []
    for word in set(words):
        pattern = rf"(?<![\w']){re.escape(word)}(?![\w'])"
        spans += [m.span() for m in re.finditer(pattern, text, re.IGNORECASE)]
    return sorted(spans)


def _squiggle(painter: QPainter, x1: float, x2: float, y: float) -> None:
    path = QPainterPath(QPointF(x1, y))
    x, up = x1, True
    while x < x2:
        x = min(x2, x + 2.0)
        path.lineTo(QPointF(x, y - 1.5 if up else y + 1.0))
        up = not up
    painter.drawPath(path)


def _flag(painter: QPainter, rect: QRectF) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(FLAG, 1.5))
    painter.drawLine(QPointF(rect.left() + 2, rect.top() + 1), QPointF(rect.left() + 2, rect.bottom()))
    banner = QPainterPath(QPointF(rect.left() + 2, rect.top() + 1))
    banner.lineTo(QPointF(rect.right(), rect.top() + rect.height() * 0.3))
    banner.lineTo(QPointF(rect.left() + 2, rect.top() + rect.height() * 0.6))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(FLAG)
    painter.drawPath(banner)
    painter.restore()


class CheckMarks(QObject):
    def __init__(self, window: CheckStudio, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.view = window.script.view
        self.results: Mapping[str, LineResult] = {}
        self.locked: frozenset[str] = frozenset()
        self.fixing: FixProgress | None = None
        self._applied = 0  # the last fix batch recorded in the project
        self._asked = False  # a fix was asked for and not recorded yet
        self.label = QLabel("", window.statusBar())
        self.label.setObjectName("checkLabel")
        self.label.setToolTip("The speech check hears every voiced line in the background and flags missing, "
                              "extra or garbled words, long silences, clipping and odd lengths")
        window.statusBar().addPermanentWidget(self.label)
        self.action = window.actions_["fix_flagged"]
        self.action.triggered.connect(self.ask_fix)
        # Kept, not asked for per event: the filter still sees events while the
        # window is torn down, when asking the half-destroyed view segfaults.
        self.viewport: QWidget | None = self.view.viewport()
        self.viewport.installEventFilter(self)
        self.viewport.destroyed.connect(self._viewport_gone)
        doc = window.doc
        for signal in (doc.lineChanged, doc.linesReset, doc.projectReplaced):
            signal.connect(self.refresh_locks)
        self.timer = QTimer(self)
        self.timer.setObjectName("checkPoll")
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self.timer.start()
        self.refresh_locks()

    def _viewport_gone(self, *_: object) -> None:
        self.viewport = None
        self.timer.stop()

    # ---- what the engine found ---------------------------------------------------------
    def poll(self) -> None:
        state = self.window.engine.state()
        if state is None:
            return
        if state.checks is not self.results:
            self.results = state.checks
            self.view.viewport().update()
        if state.fixing is not self.fixing:
            self.fixing = state.fixing
            if self.fixing is not None and self.fixing.done and self._asked and self.fixing.batch > self._applied:
                self.record(self.fixing)
        self._show_label()

    def flagged(self) -> list[str]:
        """Flagged lines in script order."""
        return [line.id for line in self.window.doc.project.lines
                if (r := self.results.get(line.id)) is not None and r.flagged]

    def _show_label(self) -> None:
        if self.fixing is not None and not self.fixing.done:
            text = f"Fixing flagged lines: {len(self.fixing.outcomes)} of {self.fixing.lines}"
        elif self.results:
            text = f"Speech check: {len(self.results)} checked, {len(self.flagged())} flagged"
        elif (session := self.window.session()) is not None and session.checker and session.checker.unavailable:
            text = "Speech check: not available"
            self.label.setToolTip(session.checker.unavailable)
        else:
            text = ""
        if text != self.label.text():
            self.label.setText(text)

    def refresh_locks(self, *_: object) -> None:
        locked = frozenset(line.id for line in self.window.doc.project.lines if line.locked is not None)
        if locked != self.locked:
            self.locked = locked
            self.window.timeline.set_locked(locked)
            self.view.viewport().update()

    # ---- Fix Flagged Lines -----------------------------------------------------------------
    def ask_fix(self) -> QInputDialog | None:
        """The small dialog: how many new takes per line at most (non-blocking)."""
        lines = self._fixable()
        if not lines:
            self.window.statusBar().showMessage("No flagged lines to fix (locked lines keep their takes)", 8000)
            return None
        dialog = QInputDialog(self.view)
        dialog.setObjectName("fixTakesDialog")
        dialog.setWindowTitle("Fix Flagged Lines")
        dialog.setLabelText(f"New takes to try for each of {len(lines)} flagged line(s), at most\n"
                            "(the best-scoring take is kept; locked lines are left alone):")
        dialog.setInputMode(QInputDialog.InputMode.IntInput)
        dialog.setIntRange(1, MAX_TAKES)
        dialog.setIntValue(min(MAX_TAKES, max(1, FIX_TAKES.read(self.window.settings))))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.intValueSelected.connect(self.fix)
        dialog.open()
        return dialog

    def _fixable(self) -> list[str]:
        return [line_id for line_id in self.flagged() if line_id not in self.locked]

    def fix(self, takes: int) -> None:
        FIX_TAKES.write(self.window.settings, takes)
        session = self.window.session()
        lines = self._fixable()
        if session is None or not lines:
            return
        self.window.engine.flush()  # the engine fixes the lines as they are now
        session.fix_lines(lines, takes)
        self._asked = True
        self.window.statusBar().showMessage(f"Making up to {takes} new take(s) of {len(lines)} flagged line(s)…",
                                            8000)

    def record(self, fixing: FixProgress) -> None:
        """The takes made and the best of each, into the project as one undo step."""
        self._applied, self._asked = fixing.batch, False
        doc = self.window.doc
        steps: list[QUndoCommand] = []
        better = 0
        for line_id, outcome in fixing.outcomes.items():
            try:
                line = doc.project.line(line_id)
            except KeyError:
                continue
            if line.locked is not None or line.text != outcome.text or line.take != outcome.take_before:
                continue  # changed since the fix began: the producer's edit wins
            steps.append(SetLineFields(doc, line_id, {"takes": outcome.takes, "take": outcome.take},
                                       "Fix flagged line"))
            better += outcome.take != outcome.take_before
        if steps:
            doc.undo.push(Macro("Fix flagged lines", steps))
        still = sum(1 for o in fixing.outcomes.values() if o.result.flagged)
        self.window.statusBar().showMessage(
            f"Fix flagged lines: {better} of {fixing.lines} line(s) now use a better take; {still} still flagged",
            10000)

    # ---- drawing over the script ---------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if self.viewport is not None and watched is self.viewport:
            if event.type() == QEvent.Type.Paint and (self.results or self.locked):
                self.view.viewportEvent(event)  # the table first, then the marks over it
                painter = QPainter(self.view.viewport())
                try:
                    self._paint(painter)
                finally:
                    painter.end()
                return True
            if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
                tip = self.tooltip_at(event.pos().y(), self.view.columnAt(event.pos().x()))
                if tip:
                    QToolTip.showText(event.globalPos(), tip, self.view.viewport())
                    return True
        return super().eventFilter(watched, event)

    def tooltip_at(self, y: int, column: int) -> str | None:
        """The row's check and lock, for the status and text columns."""
        if column not in (Col.STATUS, Col.TEXT):
            return None
        line_id = self.window.script.model.line_id_at(self.view.rowAt(y))
        if line_id is None:
            return None
        parts = []
        result = self.results.get(line_id)
        if result is not None and result.flagged:
            parts.append(f"Speech check: {result.reason} (score {result.score:.2f}). "
                         "Edit > Fix Flagged Lines tries new takes.")
        if line_id in self.locked:
            parts.append("Locked: keeps its take while the role's voice changes (unlock it in Takes).")
        return "\n".join(parts) or None

    def _paint(self, painter: QPainter) -> None:
        model = self.window.script.model
        first = self.view.rowAt(0)
        last = self.view.rowAt(self.view.viewport().height() - 1)
        if first < 0:
            return
        last = model.rowCount() - 1 if last < 0 else last
        for row in range(first, last + 1):
            line_id = model.line_id_at(row)
            if line_id is None:
                continue
            status = self.view.visualRect(model.index(row, Col.STATUS))
            if line_id in self.locked:
                draw_lock(painter, QRectF(status.right() - 14, status.center().y() - 6, 11, 12), LOCK)
            result = self.results.get(line_id)
            if result is not None and result.flagged:
                _flag(painter, QRectF(status.right() - 28, status.center().y() - 6, 11, 12))
                self._paint_text(painter, model.index(row, Col.TEXT), result)

    def _paint_text(self, painter: QPainter, index: QModelIndex, result: LineResult) -> None:
        rect = self.view.visualRect(index)
        text = str(index.data() or "")
        painter.fillRect(QRectF(rect.left(), rect.top() + 2, 3, rect.height() - 4), FLAG)
        margin = self.view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.view) + 1
        box = QRectF(rect.adjusted(margin, 0, -margin, 0))
        font = QFont(self.view.font())
        # The text as the view's delegate lays it out: word-wrapped, centred vertically.
        layout = QTextLayout(text, font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        layout.setTextOption(option)
        layout.beginLayout()
        height = 0.0
        while (line := layout.createLine()).isValid():
            line.setLineWidth(box.width())
            line.setPosition(QPointF(0.0, height))
            height += line.height()
        layout.endLayout()
        top = box.top() + max(0.0, (box.height() - height) / 2)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(FLAG, 1.2))
        for start, end in word_spans(text, result.suspect):
            line = layout.lineForTextPosition(start)
            if not line.isValid():
                continue
            x1, x2 = (float(line.cursorToX(at)[0]) for at in (start, end))  # type: ignore[index]  # (x, pos)
            _squiggle(painter, box.left() + x1, box.left() + x2, top + line.y() + line.ascent() + 2.5)
        if layout.lineCount():
            last = layout.lineAt(layout.lineCount() - 1)
            small = QFont(font)
            small.setItalic(True)
            small.setPointSizeF(font.pointSizeF() * 0.85)
            reason = f"check: {result.reason}"
            room = box.width() - last.naturalTextWidth() - 16
            width = QFontMetricsF(small).horizontalAdvance(reason)
            if width <= room:
                painter.setFont(small)
                painter.drawText(QRectF(box.right() - width, top + last.y(), width, last.height()),
                                 int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), reason)
        painter.restore()
