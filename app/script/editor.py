"""The script editor: scenes and lines in order, edited in place.

Keyboard flow like a screenwriting tool: type the speaker (type-ahead over
the cast), Tab to the delivery note and the text; Enter commits what was
typed, Escape puts it back (app/script/line_editor.py). Adding a line is its
own command (Ctrl+Enter, "Insert line after"): the next speaker is guessed
from the alternation and the new line's text opens for typing. Delete removes
the selected lines (one undo step). While playing, the line under the
playhead is highlighted and, with "Follow playhead" on, kept in view.

The Line column takes the width the narrow columns leave and wraps
(app/script/columns.py); each row is as tall as its text (app/script/row_heights.py).
Tab on the table, with no cell open, leaves it for the next panel (the window
sets the order), as Tab does in any other widget; inside an open cell it
goes on to the next cell.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemDelegate,
    QAbstractItemView,
    QApplication,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.document.commands import InsertLine, SetLineField, remove_lines
from app.document.document import Document
from app.script.clipboard import LineClipboard
from app.script.columns import Col, fit_columns, fit_role_column
from app.script.direction_picker import DirectionDelegate
from app.script.find_replace import FindBar
from app.script.line_editor import LineTextEdit
from app.script.model import LINE_ID, ScriptModel
from app.script.row_heights import RowHeights
from app.script.spoken_word import SpokenWordDelegate
from app.widgets.delegates import OneLineDelegate, RoleDelegate, SpinDelegate

# The Line column is never narrower than this many average characters (about ten words), and
# the script never shorter than this many one-line rows.
TEXT_MIN_CHARS = 56
TEXT_MIN_ROWS = 16


class ScriptView(QTableView):
    """A table where Enter opens an editable cell and, on a read-only one, seeks there."""

    activatedLine = Signal(str)  # Enter/double-click elsewhere than an editable cell: seek there

    def __init__(self, doc: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.heights = RowHeights(self)
        self.verticalHeader().sectionResized.connect(self._row_resized)

    def sizeHintForRow(self, row: int) -> int:  # noqa: N802 - Qt override
        return self.heights.row_height(row)

    def _row_resized(self, row: int, _old: int, _new: int) -> None:
        if self.state() == QAbstractItemView.State.EditingState and row == self.currentIndex().row():
            self.scrollTo(self.currentIndex())  # the line being typed grows: keep it in view

    def closeEditor(self, editor: QWidget, hint: QAbstractItemDelegate.EndEditHint) -> None:  # noqa: N802
        session = editor.property("typingSession")
        super().closeEditor(editor, hint)
        if hint == QAbstractItemDelegate.EndEditHint.RevertModelCache and session is not None:
            self._revert_typing(session)

    def _revert_typing(self, session: int) -> None:
        """Escape while typing puts the text back as it was (the text was written live). Not
        by undoing the typing, which would leave it to redo: the text as it was merges into the
        session's step, which then changes nothing and leaves the stack (SetLineField.mergeWith)."""
        undo = self.doc.undo
        top = undo.command(undo.index() - 1) if undo.index() > 0 else None
        if isinstance(top, SetLineField) and top.merge_key == ("text", session):
            undo.push(SetLineField(self.doc, top.line_id, top.field, top.old, merge_key=top.merge_key))

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        index = self.currentIndex()
        if self._types_into_text(event, index):
            # Typing on a selected line adds to its text, as F2 in a spreadsheet does: Qt's
            # AnyKeyPressed would open the editor with everything selected and replace it.
            self.edit(index)
            editor = self.focusWidget()
            if isinstance(editor, LineTextEdit):
                editor.moveCursor(QTextCursor.MoveOperation.End)
                QApplication.sendEvent(editor, event)
                return
            if isinstance(editor, QLineEdit):
                editor.deselect()
                editor.end(False)
                QApplication.sendEvent(editor, event)
                return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.state() != QAbstractItemView.State.EditingState:
            if index.isValid() and index.data(LINE_ID) is not None:
                if index.flags() & Qt.ItemFlag.ItemIsEditable:
                    self.edit(index)
                else:
                    self.activatedLine.emit(index.data(LINE_ID))
                return
        super().keyPressEvent(event)

    def _types_into_text(self, event: QKeyEvent, index: QModelIndex) -> bool:
        """A printable key, without Ctrl/Alt/Meta, on a text or note cell not being edited."""
        if self.state() == QAbstractItemView.State.EditingState or not index.isValid():
            return False
        if index.column() not in (Col.TEXT, Col.NOTE) or not index.flags() & Qt.ItemFlag.ItemIsEditable:
            return False
        chord = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
        text = event.text()
        return bool(text) and text.isprintable() and not event.modifiers() & chord


class ScriptEditor(QWidget):
    status = Signal(str)
    lineActivated = Signal(str)  # the producer wants to hear/see this line (seek the playhead)
    auditionLine = Signal(str)  # its delivery changed: hear the line as it now is

    def __init__(self, doc: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.model = ScriptModel(doc, self)
        self.model.refused.connect(self.status)
        self.view = ScriptView(doc, self)
        self.view.setObjectName("scriptTable")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed
                                  | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.view.setWordWrap(True)
        self.view.setShowGrid(False)
        self.view.setAlternatingRowColors(True)
        # Tab leaves the table for the next panel; inside an open cell it goes on to the next cell.
        self.view.setTabKeyNavigation(False)
        fit_columns(self.view, self.doc.project.role_names())
        self.view.heights.watch(self.model)
        doc.castReset.connect(self._fit_role_column)
        doc.projectReplaced.connect(self._fit_role_column)

        self.role_delegate = RoleDelegate(self.doc.project.role_names, self.view)
        self.role_delegate.rejected.connect(self.status)
        self.view.setItemDelegateForColumn(Col.ROLE, self.role_delegate)
        self.view.setItemDelegateForColumn(Col.TEXT, SpokenWordDelegate(self.view))  # lights the word being heard
        self.direction_delegate = DirectionDelegate(self.view)  # the delivery picker; a pick auditions the line
        self.direction_delegate.picked.connect(self.auditionLine)
        self.view.setItemDelegateForColumn(Col.NOTE, self.direction_delegate)
        pause = SpinDelegate(0.0, 600.0, 0.25, 2, " s", self.view, name="Pause")
        pause.clamped.connect(self.status)
        self.view.setItemDelegateForColumn(Col.PAUSE, pause)
        self.view.setItemDelegateForColumn(Col.STATUS, OneLineDelegate(self.view))
        self.view.activatedLine.connect(self.lineActivated)
        self.view.doubleClicked.connect(self._double_clicked)
        self.model.modelReset.connect(self._span_scenes)
        doc.projectReplaced.connect(self._rebind_roles)
        self._span_scenes()

        self.insert_action = QAction("Insert line after", self)
        self.insert_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_Return))
        self.insert_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.insert_action.setToolTip("Add a line after the current one, spoken by the next speaker")
        self.insert_action.triggered.connect(lambda: self.add_line_after_row(self.current_row()))
        self.delete_action = QAction("Delete lines", self)
        self.delete_action.setShortcut(QKeySequence.StandardKey.Delete)
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.delete_action.setToolTip("Delete the selected lines")
        self.delete_action.triggered.connect(self.delete_selected)
        self.addAction(self.insert_action)
        self.addAction(self.delete_action)
        self.clipboard = LineClipboard(self, self)
        self.clipboard.status.connect(self.status)
        self.cut_action, self.copy_action, self.paste_action = self.clipboard.actions()
        self.find_bar = FindBar(self, self)
        self.find_bar.status.connect(self.status)
        self.find_action, self.replace_action = self.find_bar.find_action, self.find_bar.replace_action
        self.follow_action = QAction("Follow playhead", self)
        self.follow_action.setCheckable(True)
        self.follow_action.setChecked(True)
        self.follow_action.setToolTip("While playing, keep the line being heard in view")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.view)
        layout.addWidget(self.find_bar)

    def edit_actions(self) -> list[QAction]:
        """The script's own commands, for the Edit menu and the shortcut list."""
        return [*self.clipboard.actions(), self.insert_action, self.delete_action, *self.find_bar.actions()]

    def show_playhead(self, position_s: float, playing: bool) -> None:
        """Highlight the line under the playhead while playing; with Follow on, keep it in view
        (not while the producer is typing in a cell: the view must not move under the cursor)."""
        line_id = self.model.line_at(position_s) if playing else None
        if line_id == self.model.playing_line():
            return
        self.model.set_playing_line(line_id)
        if (line_id is not None and self.follow_action.isChecked()
                and self.view.state() != QAbstractItemView.State.EditingState):
            self.view.scrollTo(self.model.index(self.model.row_of_line(line_id), Col.TEXT))

    def _rebind_roles(self) -> None:
        self.role_delegate.names = self.doc.project.role_names

    def _fit_role_column(self) -> None:
        fit_role_column(self.view, self.doc.project.role_names())
        self.updateGeometry()  # the narrowest the script can be follows the names

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Never narrower than its narrow columns and a Line column of TEXT_MIN_CHARS, nor shorter
        than TEXT_MIN_ROWS lines: in a window made smaller the panels around give way first
        (app/shell/panels.py), so a small window still shows who says what."""
        hint = super().minimumSizeHint()
        view = self.view
        header = view.horizontalHeader()
        narrow = sum(header.sectionSize(col) for col in Col if col != Col.TEXT and not header.isSectionHidden(col))
        chrome = (view.verticalHeader().sizeHint().width() + view.verticalScrollBar().sizeHint().width()
                  + 2 * view.frameWidth())
        text = view.fontMetrics().averageCharWidth() * TEXT_MIN_CHARS
        rows = (view.horizontalHeader().sizeHint().height() + 2 * view.frameWidth()
                + TEXT_MIN_ROWS * (view.fontMetrics().height() + 6))
        return QSize(max(hint.width(), narrow + chrome + text), max(hint.height(), rows))

    def _span_scenes(self) -> None:
        self.view.clearSpans()
        for row in range(self.model.rowCount()):
            if self.model.is_scene_row(row):
                self.view.setSpan(row, 0, 1, len(Col))

    def current_row(self) -> int:
        index = self.view.currentIndex()
        return index.row() if index.isValid() else self.model.rowCount() - 1

    def current_line_id(self) -> str | None:
        index = self.view.currentIndex()
        return index.data(LINE_ID) if index.isValid() else None

    def select_line(self, line_id: str, column: int = Col.TEXT) -> None:
        row = self.model.row_of_line(line_id)
        index = self.model.index(row, column)
        self.view.setCurrentIndex(index)
        self.view.scrollTo(index)

    def insertion_point(self, row: int) -> tuple[int, str | None]:
        """(index of the line a new line goes after, -1 for the top; its scene) for ``row``:
        after that row's line, at the top of a scene heading's scene, or at the end."""
        project = self.doc.project
        line_id = self.model.line_id_at(row)
        if line_id is None and self.model.is_scene_row(row):
            line_id = self.model.line_id_at(row + 1)
            after = self.doc.line_index(line_id) - 1 if line_id else len(project.lines) - 1
            return after, self.model.scene_of_row(row)
        after = self.doc.line_index(line_id) if line_id else len(project.lines) - 1
        scene = project.lines[after].scene if after >= 0 else (project.scenes[0].id if project.scenes else None)
        return after, scene

    def add_line_after_row(self, row: int) -> str | None:
        """New line after the line at ``row`` (or at the end), speaker guessed; starts typing its text."""
        project = self.doc.project
        after, scene = self.insertion_point(row)
        if not project.cast:
            self.status.emit("Add a role to the cast first: every line needs a speaker")
            return None
        role = self.doc.guess_next_role(after) or project.cast[0].name
        line = self.doc.new_line(role, "", scene)
        self.doc.undo.push(InsertLine(self.doc, after + 1, line))
        self.select_line(line.id)
        # Open the editor once the view has finished closing the previous one.
        QTimer.singleShot(0, self, lambda: self._edit_text_of(line.id))
        self.status.emit(f"New line for {role} (Shift+Tab twice to change the speaker)")
        return line.id

    def _edit_text_of(self, line_id: str) -> None:
        if line_id in {line.id for line in self.doc.project.lines}:
            self.view.edit(self.model.index(self.model.row_of_line(line_id), Col.TEXT))

    def selected_line_ids(self) -> list[str]:
        rows = {i.row() for i in self.view.selectionModel().selectedIndexes()}
        if not rows and self.view.currentIndex().isValid():
            rows = {self.view.currentIndex().row()}
        return [lid for r in sorted(rows) if (lid := self.model.line_id_at(r)) is not None]

    def delete_selected(self) -> None:
        ids = self.selected_line_ids()
        if ids:
            self.doc.undo.push(remove_lines(self.doc, ids))
            self.status.emit(f"Deleted {len(ids)} line{'s' if len(ids) != 1 else ''} (Ctrl+Z brings them back)")

    def _double_clicked(self, index: QModelIndex) -> None:
        if index.column() in (Col.STATUS, Col.TIME) and index.data(LINE_ID):
            self.lineActivated.emit(index.data(LINE_ID))
