"""The script editor: scenes and lines in order, edited in place.

Keyboard flow like a screenwriting tool: type the speaker (type-ahead over
the cast), Tab to the delivery note and the text; Enter commits what was
typed. Adding a line is its own command (Ctrl+Enter, "Insert line after"):
the next speaker is guessed from the alternation and the new line's text
opens for typing. Delete removes the selected lines (one undo step). While
playing, the line under the playhead is highlighted and, with "Follow
playhead" on, kept in view.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemDelegate,
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.document.commands import InsertLine, SetLineField, remove_lines
from app.document.document import Document
from app.script.clipboard import LineClipboard
from app.script.direction_picker import DirectionDelegate
from app.script.find_replace import FindBar
from app.script.model import LINE_ID, Col, ScriptModel
from app.script.spoken_word import SpokenWordDelegate
from app.widgets.delegates import OneLineDelegate, RoleDelegate, SpinDelegate


class ScriptView(QTableView):
    """A table where Enter opens an editable cell and, on a read-only one, seeks there."""

    activatedLine = Signal(str)  # Enter/double-click elsewhere than an editable cell: seek there

    def __init__(self, doc: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc

    def closeEditor(self, editor: QWidget, hint: QAbstractItemDelegate.EndEditHint) -> None:  # noqa: N802
        session = editor.property("typingSession")
        super().closeEditor(editor, hint)
        if hint == QAbstractItemDelegate.EndEditHint.RevertModelCache and session is not None:
            self._revert_typing(session)

    def _revert_typing(self, session: int) -> None:
        """Escape while typing puts the text back as it was (the text was written live)."""
        undo = self.doc.undo
        top = undo.command(undo.index() - 1) if undo.index() > 0 else None
        if isinstance(top, SetLineField) and top.merge_key == ("text", session):
            undo.undo()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        index = self.currentIndex()
        if self._types_into_text(event, index):
            # Typing on a selected line adds to its text, as F2 in a spreadsheet does: Qt's
            # AnyKeyPressed would open the editor with everything selected and replace it.
            self.edit(index)
            editor = self.focusWidget()
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
        self.view.setTabKeyNavigation(True)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(Col.TEXT, QHeaderView.ResizeMode.Stretch)
        for col, width in ((Col.STATUS, 92), (Col.TIME, 58), (Col.PAUSE, 112), (Col.ROLE, 110), (Col.NOTE, 120)):
            self.view.setColumnWidth(col, width)
        # Rows wrap their text, so each row is as tall as its text needs; measured here when what
        # it shows changes, not by the header's ResizeToContents: that re-measures every row on any
        # dataChanged, and the engine's status updates (several a second while a production is
        # voiced) then held the GUI thread: 150 lines, 150 ms a status update, the event loop
        # stopped for 2.5 s at a time (tests/app/lexicon/test_studio_big_lexicon.py).
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self._rows_timer = QTimer(self)
        self._rows_timer.setSingleShot(True)
        self._rows_timer.setInterval(50)
        self._rows_timer.timeout.connect(self.view.resizeRowsToContents)
        header.sectionResized.connect(self._column_resized)
        self.model.modelReset.connect(self._rows_timer.start)
        self.model.rowsInserted.connect(lambda _parent, first, last: self._fit_rows(first, last))
        self.model.dataChanged.connect(self._cells_changed)
        self.view.resizeRowsToContents()

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
        self.clipboard = LineClipboard(self)
        self.clipboard.status.connect(self.status)
        self.cut_action, self.copy_action, self.paste_action = self.clipboard.actions()
        self.find_bar = FindBar(self)
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

    def _column_resized(self, _index: int, _old: int, _new: int) -> None:
        self._rows_timer.start()

    # The columns whose text can wrap onto a second line; status and time never do.
    _WRAPPING = frozenset((Col.PAUSE, Col.ROLE, Col.NOTE, Col.TEXT))

    def _cells_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, _roles: object = None) -> None:
        if any(col in self._WRAPPING for col in range(top_left.column(), bottom_right.column() + 1)):
            self._fit_rows(top_left.row(), bottom_right.row())

    def _fit_rows(self, first: int, last: int) -> None:
        if last - first > 64:  # a cast change or a paste: one pass over every row, once
            self._rows_timer.start()
            return
        for row in range(first, last + 1):
            self.view.resizeRowToContents(row)

    def _rebind_roles(self) -> None:
        self.role_delegate.names = self.doc.project.role_names

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
