"""Item delegates shared by the cast panel and the script editor.

Editors are small and keyboard-first: a spin box with the engine's range,
a combo box for choices, a line edit with type-ahead over the cast, and a
line edit that writes while you type (merged into one undo step).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionButton,
    QStyleOptionViewItem,
    QWidget,
)

_Index = QModelIndex | QPersistentModelIndex


class SpinDelegate(QStyledItemDelegate):
    """A QDoubleSpinBox limited to (lo, hi) with the column's step and suffix."""

    def __init__(self, lo: float, hi: float, step: float, decimals: int, suffix: str = "",
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lo, self.hi, self.step, self.decimals, self.suffix = lo, hi, step, decimals, suffix

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        spin = QDoubleSpinBox(parent)
        spin.setRange(self.lo, self.hi)
        spin.setSingleStep(self.step)
        spin.setDecimals(self.decimals)
        spin.setSuffix(self.suffix)
        spin.setKeyboardTracking(False)
        spin.setFrame(False)
        return spin

    def setEditorData(self, editor: QWidget, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QDoubleSpinBox)
        editor.setValue(float(index.data(Qt.ItemDataRole.EditRole) or 0.0))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QDoubleSpinBox)
        editor.interpretText()
        model.setData(index, editor.value(), Qt.ItemDataRole.EditRole)


class ChoiceDelegate(QStyledItemDelegate):
    """A combo box whose (label, value) choices depend on the row."""

    def __init__(self, choices: Callable[[_Index], list[tuple[str, Any]]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.choices = choices

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        combo = QComboBox(parent)
        for label, value in self.choices(index):
            combo.addItem(label, value)
        # Picking an item is the edit: commit at once rather than on focus loss.
        combo.activated.connect(lambda _i, c=combo: self._commit(c))
        return combo

    def _commit(self, combo: QComboBox) -> None:
        self.commitData.emit(combo)
        self.closeEditor.emit(combo, QStyledItemDelegate.EndEditHint.NoHint)

    def setEditorData(self, editor: QWidget, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QComboBox)
        current = index.data(Qt.ItemDataRole.EditRole)
        found = editor.findData(current)
        if found < 0 and current is not None:
            editor.addItem(f"{current} (current)", current)
            found = editor.count() - 1
        editor.setCurrentIndex(max(0, found))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QComboBox)
        value = editor.currentData()
        if value is not None:
            model.setData(index, value, Qt.ItemDataRole.EditRole)


class RoleDelegate(QStyledItemDelegate):
    """Pick a speaker by typing: a completer over the cast, case-insensitive.

    On commit the typed text is resolved to one role (exact name, else the
    only name that starts with it, else the only name containing it);
    anything ambiguous or unknown keeps the old role and says why through
    ``rejected``.
    """

    rejected = Signal(str)

    def __init__(self, names: Callable[[], list[str]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.names = names

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        edit = QLineEdit(parent)
        completer = QCompleter(self.names(), edit)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        edit.setCompleter(completer)
        edit.setPlaceholderText("Type a role…")
        return edit

    def setEditorData(self, editor: QWidget, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QLineEdit)
        editor.setText(str(index.data(Qt.ItemDataRole.EditRole) or ""))
        editor.selectAll()

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QLineEdit)
        typed = editor.text().strip()
        role = resolve_role(typed, self.names())
        if role is None:
            if typed:
                self.rejected.emit(f"No single role matches {typed!r}; the speaker is unchanged")
            return
        model.setData(index, role, Qt.ItemDataRole.EditRole)


def resolve_role(typed: str, names: list[str]) -> str | None:
    if not typed:
        return None
    low = typed.casefold()
    for name in names:
        if name.casefold() == low:
            return name
    for test in (str.startswith, str.__contains__):
        found = [n for n in names if test(n.casefold(), low)]
        if len(found) == 1:
            return found[0]
    return None


TYPING_ROLE = Qt.ItemDataRole.UserRole + 20  # setData(index, (text, session_key), TYPING_ROLE)
_sessions = itertools.count(1)


class TypingDelegate(QStyledItemDelegate):
    """A line edit that writes to the model on every keystroke.

    The model receives ``(text, session)`` under TYPING_ROLE, where
    ``session`` is the same for one opening of the editor, so the undo
    stack merges the whole typing session into one step, while the
    timeline and the engine see the text as it is typed.
    """

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        edit = QLineEdit(parent)
        edit.setFrame(False)
        session = next(_sessions)
        edit.setProperty("typingSession", session)  # Escape undoes this session's typing
        persistent = QPersistentModelIndex(index)
        edit.textEdited.connect(lambda text: self._typed(persistent, text, session))
        return edit

    def _typed(self, index: QPersistentModelIndex, text: str, session: int) -> None:
        if index.isValid():
            model = index.model()
            model.setData(model.index(index.row(), index.column()), (text, session), TYPING_ROLE)

    def setEditorData(self, editor: QWidget, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QLineEdit)
        text = str(index.data(Qt.ItemDataRole.EditRole) or "")
        if editor.text() != text:  # the model echoes each keystroke back: keep the cursor
            editor.setText(text)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QLineEdit)
        # Always commit, even when typing already stored this text: the model
        # finishes the text on commit (a leading "(note)" becomes the line's note).
        model.setData(index, editor.text(), Qt.ItemDataRole.EditRole)


class OneLineDelegate(QStyledItemDelegate):
    """Draws its cell on one line, elided, in a view that wraps text elsewhere (the
    script's status column: a long error belongs in the tooltip, not in a tall row)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: _Index) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText  # type: ignore[attr-defined]
        option.textElideMode = Qt.TextElideMode.ElideRight  # type: ignore[attr-defined]

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:  # noqa: N802
        hint = super().sizeHint(option, index)
        return QSize(min(hint.width(), 160), option.fontMetrics.height() + 6)  # type: ignore[attr-defined]


class ButtonDelegate(QStyledItemDelegate):
    """Paints a push button in the cell; a click or Space on it emits ``clicked(row)``."""

    clicked = Signal(int)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        button = QStyleOptionButton()
        button.rect = QRect(option.rect.adjusted(2, 2, -2, -2))
        button.text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        button.state = QStyle.StateFlag.State_Enabled | QStyle.StateFlag.State_Raised
        style = option.widget.style() if option.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_PushButton, button, painter, option.widget)

    def editorEvent(self, event: QEvent, model: QAbstractItemModel, option: QStyleOptionViewItem,  # noqa: N802
                    index: _Index) -> bool:
        if event.type() == QEvent.Type.MouseButtonRelease:
            self.clicked.emit(index.row())
            return True
        if event.type() == QEvent.Type.KeyPress and getattr(event, "key", lambda: None)() == Qt.Key.Key_Space:
            self.clicked.emit(index.row())
            return True
        return False
