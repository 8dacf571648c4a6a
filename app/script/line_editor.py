"""The script's line editor: the whole line, wrapped to the cell, written to the model as it is typed.

A spoken line is one paragraph (the importers fold a script's line breaks into spaces, and a
line copies out as one ``NAME: line``), so the editor wraps the text to the column's width and
shows all of it, growing over the row below when the typing outruns the row, and no key puts
a break in it. The keys are a screenwriter's:

- Enter (Shift+Enter too) commits the line; Ctrl+Enter is the script's "Insert line after";
- Escape puts the text back as it was when the editor opened, and leaves nothing to redo;
- Tab and Shift+Tab commit and go on to the next or previous cell (speaker, delivery, line),
  as in a screenwriting tool; a tab character has no place in a spoken line;
- a pasted line break becomes a space.

The model receives ``(text, session)`` under TYPING_ROLE on every keystroke, where ``session``
is the same for one opening of the editor, so the undo stack merges the whole typing session
into one step while the timeline and the engine see the text as it is typed; Enter commits the
text once more under the EditRole, where the model finishes it (a leading "(note)" becomes the
line's delivery note).
"""

from __future__ import annotations

import itertools
import math
import re

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QKeyEvent, QResizeEvent, QTextCursor, QTextOption
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QStyledItemDelegate, QStyleOptionViewItem, QWidget

_Index = QModelIndex | QPersistentModelIndex
TYPING_ROLE = Qt.ItemDataRole.UserRole + 20  # setData(index, (text, session_key), TYPING_ROLE)
_sessions = itertools.count(1)
_BREAKS = re.compile(r"[ \t]*[\r\n\u2028\u2029]+[ \t]*")
_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class LineTextEdit(QPlainTextEdit):
    """A frameless, wrapping text box for one spoken line; see the module docstring for its keys."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().setDocumentMargin(2)  # close to the cell's own text margin: it wraps where the cell did
        self.document().documentLayout().documentSizeChanged.connect(self._grow)

    def text(self) -> str:
        return self.toPlainText()

    def set_text(self, text: str) -> None:
        """Replace the text without a keystroke's signal; the cursor goes to the end."""
        self.blockSignals(True)
        try:
            self.setPlainText(text)
        finally:
            self.blockSignals(False)
        self.moveCursor(QTextCursor.MoveOperation.End)

    def needed_height(self) -> int:
        """The height that shows every wrapped line of the text at the editor's width."""
        height = 0.0
        block = self.document().begin()
        while block.isValid():
            height += self.blockBoundingRect(block).height()  # lays the block out at this width
            block = block.next()
        return math.ceil(height + 2 * self.document().documentMargin()) + 2 * self.frameWidth()

    def _grow(self) -> None:
        needed = self.needed_height()
        if needed > self.height():
            self.resize(self.width(), needed)  # over the row below until the row catches up

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._grow()  # narrower: more lines

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.key() in _ENTER:  # the delegate commits on Enter; no key breaks a spoken line
            event.accept()
            return
        super().keyPressEvent(event)

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802 - Qt override
        if source.hasText():
            self.insertPlainText(_BREAKS.sub(" ", source.text()))


class TypingDelegate(QStyledItemDelegate):
    """The Line column's delegate: a :class:`LineTextEdit` that writes to the model on every keystroke."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        edit = LineTextEdit(parent)
        session = next(_sessions)
        edit.setProperty("typingSession", session)  # Escape takes this session's typing back
        persistent = QPersistentModelIndex(index)
        edit.textChanged.connect(lambda: self._typed(persistent, edit.text(), session))
        return edit

    def _typed(self, index: QPersistentModelIndex, text: str, session: int) -> None:
        if index.isValid():
            model = index.model()
            model.setData(model.index(index.row(), index.column()), (text, session), TYPING_ROLE)

    def setEditorData(self, editor: QWidget, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, LineTextEdit)
        text = str(index.data(Qt.ItemDataRole.EditRole) or "")
        if editor.text() != text:  # the model echoes each keystroke back: keep the cursor
            editor.set_text(text)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, LineTextEdit)
        # Always commit, even when typing already stored this text: the model
        # finishes the text on commit (a leading "(note)" becomes the line's note).
        model.setData(index, editor.text(), Qt.ItemDataRole.EditRole)

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: _Index) -> None:  # noqa: N802
        rect = option.rect
        height = max(rect.height(), editor.needed_height()) if isinstance(editor, LineTextEdit) else rect.height()
        editor.setGeometry(rect.x(), rect.y(), rect.width(), height)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        # Qt's own filter hands Tab and Enter to a text box (which would type them): here they
        # commit, as they do in every other cell of the script.
        if not isinstance(watched, LineTextEdit) or event.type() != QEvent.Type.KeyPress:
            return super().eventFilter(watched, event)
        assert isinstance(event, QKeyEvent)
        key, mods = event.key(), event.modifiers()
        chord = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
        hint: QStyledItemDelegate.EndEditHint | None = None
        if key == Qt.Key.Key_Escape:
            self.closeEditor.emit(watched, QStyledItemDelegate.EndEditHint.RevertModelCache)
            return True
        if key == Qt.Key.Key_Backtab or (key == Qt.Key.Key_Tab and mods & Qt.KeyboardModifier.ShiftModifier):
            hint = QStyledItemDelegate.EndEditHint.EditPreviousItem
        elif key == Qt.Key.Key_Tab:
            hint = QStyledItemDelegate.EndEditHint.EditNextItem
        elif key in _ENTER:
            hint = QStyledItemDelegate.EndEditHint.NoHint
        if hint is None or mods & chord:
            return super().eventFilter(watched, event)
        self.commitData.emit(watched)
        self.closeEditor.emit(watched, hint)
        return True
