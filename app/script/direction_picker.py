"""The script's Delivery column: a direction picker, and how directions are shown.

The Delivery note directs the whole line (engine/project/direction.py). The
picker offers the delivery vocabulary (engine/project/deliveries.py) with an
intensity (light, default, strong, written "slightly quietly", "quietly",
"very quietly"); anything else typed is kept as written and shown as not
performed. When a pick is committed the delegate emits ``picked(line_id)``
and the editor auditions the line, so the producer hears the change.

How directions are shown (here and inside the words): app/script/directions.py.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from app.script.model import LINE_ID
from engine.project.deliveries import delivery_names, match_delivery

_Index = QModelIndex | QPersistentModelIndex
INTENSITY_WORDS = {"light": "slightly ", "default": "", "strong": "very "}


def compose(delivery: str, intensity: str) -> str:
    """The note a pick writes: ``very quietly``; a term outside the vocabulary as typed."""
    found = match_delivery(delivery)
    if found is None:
        return " ".join(delivery.split()).strip("()")
    return INTENSITY_WORDS[intensity] + found[0].name


class DirectionPicker(QWidget):
    """A delivery (a list of the vocabulary, or typed) and its intensity."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.delivery = QComboBox(self)
        self.delivery.setEditable(True)
        self.delivery.setObjectName("deliveryChoice")
        self.delivery.addItem("")
        self.delivery.addItems(list(delivery_names()))
        self.delivery.setToolTip("How the line is said: a direction the voice performs, or your own note")
        self.intensity = QComboBox(self)
        self.intensity.setObjectName("deliveryIntensity")
        for name in ("light", "default", "strong"):
            self.intensity.addItem(name, name)
        self.intensity.setCurrentIndex(1)
        self.intensity.setToolTip("How much of it: light (slightly), default, strong (very)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.delivery, 3)
        layout.addWidget(self.intensity, 2)
        self.setAutoFillBackground(True)
        for combo in (self.delivery, self.intensity):
            fit_popup(combo)

    def set_note(self, note: str) -> None:
        found = match_delivery(note)
        if found is not None:
            self.delivery.setCurrentText(found[0].name)
            self.intensity.setCurrentIndex(self.intensity.findData(found[1]))
        else:
            self.delivery.setCurrentText(note)

    def note(self) -> str:
        return compose(self.delivery.currentText(), str(self.intensity.currentData()))


def fit_popup(combo: QComboBox) -> None:
    """The combo's list as wide as its widest item: Qt opens it as wide as the combo, which in a
    table cell cut "whispering" to "w…g"."""
    view = combo.view()
    view.setTextElideMode(Qt.TextElideMode.ElideNone)
    view.setMinimumWidth(view.sizeHintForColumn(0) + view.verticalScrollBar().sizeHint().width()
                         + 2 * view.frameWidth())


class DirectionDelegate(QStyledItemDelegate):
    """The Delivery column's editor; ``picked(line_id)`` after a committed change."""

    picked = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        picker = DirectionPicker(parent)
        # Choosing from a list is the edit: commit at once (typing commits on Enter).
        picker.delivery.activated.connect(lambda _i, p=picker: self._commit(p))
        picker.intensity.activated.connect(lambda _i, p=picker: self._commit(p))
        return picker

    def _commit(self, picker: DirectionPicker) -> None:
        self.commitData.emit(picker)

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: _Index) -> None:  # noqa: N802
        # As wide as its words (over the Line column while it is open), not the narrow column's width.
        rect = option.rect
        editor.setGeometry(rect.x(), rect.y(), max(rect.width(), editor.sizeHint().width()), rect.height())

    def setEditorData(self, editor: QWidget, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, DirectionPicker)
        editor.set_note(str(index.data(Qt.ItemDataRole.EditRole) or ""))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, DirectionPicker)
        note = editor.note()
        if note == (index.data(Qt.ItemDataRole.EditRole) or ""):
            return
        model.setData(index, note, Qt.ItemDataRole.EditRole)
        line_id = index.data(LINE_ID)
        if line_id:
            self.picked.emit(str(line_id))
