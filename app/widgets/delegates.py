"""Item delegates shared by the cast panel and the script editor.

Editors are small and keyboard-first: a spin box with the engine's range
(a number typed outside it is clamped and the clamp is reported, with the
range, never dropped digit by digit), a combo box for choices, a line edit
with type-ahead over the cast (picking from its popup is the edit). The
script's line editor, which writes while you type, is app/script/line_editor.py.
"""

from __future__ import annotations

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
from PySide6.QtGui import QPainter, QValidator
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


def format_number(value: float, lo: float, suffix: str = "") -> str:
    """A value as a range shows it: signed where the range goes below zero (-12 to +12 st)."""
    return f"{value:+g}{suffix}" if lo < 0 else f"{value:g}{suffix}"


def range_text(lo: float, hi: float, suffix: str = "") -> str:
    return f"{format_number(lo, lo)} to {format_number(hi, lo, suffix)}"


class RangeSpinBox(QDoubleSpinBox):
    """A spin box that takes any number typed. QDoubleSpinBox's own validator refuses a key
    that would leave the range, so "20" for a pitch of -12..+12 silently became 2; here the
    number stays as typed and SpinDelegate clamps it on commit, saying so."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._typed: str | None = None
        self.lineEdit().textEdited.connect(self._edited)

    def _edited(self, text: str) -> None:
        self._typed = self._number(text)

    def stepBy(self, steps: int) -> None:  # noqa: N802 - arrows after typing: the value is the stepped one
        self._typed = None
        super().stepBy(steps)

    def _number(self, text: str) -> str:
        body = text.strip().removeprefix(self.prefix().strip()).removesuffix(self.suffix().strip()).strip()
        locale = self.locale()
        return body.replace(locale.groupSeparator(), "").replace(locale.decimalPoint(), ".")

    def typed(self) -> str | None:
        """The number as the producer typed it: Enter makes the spin box clamp its own text
        before the delegate commits, so the delegate reads this to say what was clamped."""
        return self._typed

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        body = self._number(text)
        if body in ("", "-", "+", ".", "-.", "+."):
            return QValidator.State.Intermediate, text, pos
        try:
            float(body)
        except ValueError:
            return QValidator.State.Invalid, text, pos
        return QValidator.State.Acceptable, text, pos

    def valueFromText(self, text: str) -> float:  # noqa: N802
        try:
            return float(self._number(text))
        except ValueError:
            return self.value()


class SpinDelegate(QStyledItemDelegate):
    """A spin box for (lo, hi) with the column's step and suffix. ``clamped(message)`` says when
    a typed number was outside the range and what it became."""

    clamped = Signal(str)

    def __init__(self, lo: float, hi: float, step: float, decimals: int, suffix: str = "",
                 parent: QObject | None = None, *, name: str = "Value") -> None:
        super().__init__(parent)
        self.lo, self.hi, self.step, self.decimals, self.suffix = lo, hi, step, decimals, suffix
        self.name = name

    def range_text(self) -> str:
        return range_text(self.lo, self.hi, self.suffix)

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        spin = RangeSpinBox(parent)
        spin.setRange(self.lo, self.hi)
        spin.setSingleStep(self.step)
        spin.setDecimals(self.decimals)
        spin.setSuffix(self.suffix)
        spin.setKeyboardTracking(False)
        spin.setFrame(False)
        spin.setToolTip(f"{self.name}: {self.range_text()}")
        return spin

    def setEditorData(self, editor: QWidget, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QDoubleSpinBox)
        editor.setValue(float(index.data(Qt.ItemDataRole.EditRole) or 0.0))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, RangeSpinBox)
        typed = editor.typed()
        if typed is None:  # stepped with the arrows or the wheel: always in range
            model.setData(index, editor.value(), Qt.ItemDataRole.EditRole)
            return
        try:
            number = float(typed)
        except ValueError:  # "-" or "." alone: nothing to set
            return
        value = round(min(self.hi, max(self.lo, number)), self.decimals)
        model.setData(index, value, Qt.ItemDataRole.EditRole)
        if value != round(number, self.decimals):  # said last, so no message about the edit hides it
            self.clamped.emit(f"{self.name} {typed} is outside the range {self.range_text()}: "
                              f"set to {format_number(value, self.lo, self.suffix)}")


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
        # Picking a name in the popup is the edit: commit at once (the Enter that picked it
        # never reaches the delegate, so without this a second Enter was needed).
        completer.activated.connect(lambda text, e=edit: self._picked(e, text))
        edit.setCompleter(completer)
        edit.setPlaceholderText("Type a role…")
        return edit

    def _picked(self, editor: QLineEdit, text: str) -> None:
        editor.setText(text)
        self.commitData.emit(editor)
        self.closeEditor.emit(editor, QStyledItemDelegate.EndEditHint.NoHint)

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


class OneLineDelegate(QStyledItemDelegate):
    """Draws its cell on one line, elided, in a view that wraps text elsewhere (the
    script's status column: a long error belongs in the tooltip, not in a tall row)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: _Index) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText
        option.textElideMode = Qt.TextElideMode.ElideRight

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:  # noqa: N802
        hint = super().sizeHint(option, index)
        return QSize(min(hint.width(), 160), option.fontMetrics.height() + 6)


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
