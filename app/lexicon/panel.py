"""The Lexicon panel: how names and words are said, for the project or one role.

Top: every entry (word, say, scope, and what is wrong with it, in red), with
a filter. Below: the entry being written (word, say as a respelling or
``[[phonemes]]``, scope), heard in any role's voice as it is typed (the
engine auditions it at audition priority; the GUI thread only asks), then
the lines that use the selected entry (click one to select it in the
script), and Import/Export (PLS or CSV, read and written on a worker thread).
Every change is one undo step (app/lexicon/edits.py) that reaches the engine
like any edit; the engine voices again only the lines whose entries changed.

"Add to Lexicon" (the panel's action; app/lexicon/script.py hooks it to the
script) takes the word selected in the line being edited.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.document.marshal import run_task
from app.lexicon import edits as lexicon_edits
from app.lexicon.access import LexiconStudio
from app.lexicon.model import PROJECT_SCOPE, LexiconModel
from engine.output_paths import OutputPathError
from engine.project.lexicon_io import (
    LexiconFileError,
    entries_of,
    lexicon_output,
    read_lexicon,
    write_lexicon,
)
from engine.synth.lexicon_check import entry_problem, phoneme_problem

AUDITION_QUIET_MS = 450  # typing pauses this long before the word is heard
FILE_FILTER = "Pronunciation lexicons (*.pls *.csv);;PLS (*.pls);;CSV (*.csv)"


class LexiconPanel(QWidget):
    def __init__(self, window: LexiconStudio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lexiconPanel")
        self.window_ = window
        self.doc = window.doc
        self.editing: tuple[str | None, str] | None = None  # (scope, word) of the entry in the form
        self._task: Any = None
        self.model = LexiconModel(self)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter entries")
        self.filter.setClearButtonEnabled(True)
        self.table = QTableView(self)
        self.table.setObjectName("lexiconTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        row_h = self.fontMetrics().height() + 6
        self.table.verticalHeader().setDefaultSectionSize(row_h)
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height() + 3 * row_h + 4)  # three entries
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in enumerate((110, 130, 80)):
            self.table.setColumnWidth(col, width)
        self.word = QLineEdit(self)
        self.word.setObjectName("lexiconWord")
        self.word.setPlaceholderText("Word or name, as written")
        self.say = QLineEdit(self)
        self.say.setObjectName("lexiconSay")
        self.say.setPlaceholderText("Respelling (Clan vire) or [[phonemes]]")
        self.scope = QComboBox(self)
        self.scope.setToolTip("Project: every role; a role: its lines only (a role's entry wins)")
        self.voice = QComboBox(self)
        self.voice.setToolTip("Hear the word in this role's voice as you type")
        self.hear_button = QPushButton("Hear", self)
        self.add_button = QPushButton("Add", self)
        self.remove_button = QPushButton("Remove", self)
        self.problem = QLabel("", self)
        self.problem.setObjectName("lexiconProblem")
        self.problem.setStyleSheet("color: #b3261e")
        self.uses = QListWidget(self)
        self.uses.setObjectName("lexiconUses")
        self.uses.setMaximumHeight(3 * self.fontMetrics().height() + 10)  # a few lines; the entries get the rest
        self.import_button = QPushButton("Import…", self)
        self.export_button = QPushButton("Export…", self)
        self.status = QLabel("", self)
        # One line each, cut at the panel's edge (the whole text in the tooltip): a wrapped
        # message would grow the panel in its scroll area, and it would not shrink back.
        for label in (self.problem, self.status):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._layout()

        self.add_action = QAction("Add to Lexicon", self)
        self.add_action.setShortcut(QKeySequence("Ctrl+Shift+L"))
        self.add_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.add_action.setToolTip("Add the word selected in the script to the lexicon")
        self._audition_timer = QTimer(self)
        self._audition_timer.setSingleShot(True)
        self._audition_timer.setInterval(AUDITION_QUIET_MS)
        self._audition_timer.timeout.connect(self.audition)
        self._connect()
        self.reload()

    def _layout(self) -> None:
        form = QGridLayout()
        form.addWidget(QLabel("Word"), 0, 0)
        form.addWidget(self.word, 0, 1)
        form.addWidget(self.scope, 0, 2)
        form.addWidget(QLabel("Say"), 1, 0)
        form.addWidget(self.say, 1, 1, 1, 2)
        hear = QHBoxLayout()
        hear.addWidget(QLabel("Hear as"))
        hear.addWidget(self.voice, 1)
        for button in (self.hear_button, self.add_button, self.remove_button):
            hear.addWidget(button)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.import_button)
        top.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(form)
        layout.addLayout(hear)
        layout.addWidget(self.problem)
        layout.addWidget(QLabel("Lines using it"))
        layout.addWidget(self.uses)
        layout.addWidget(self.status)

    def _connect(self) -> None:
        doc = self.doc
        doc.projectReplaced.connect(self.reload)
        doc.castReset.connect(self.reload)
        doc.projectChanged.connect(self._field_changed)
        # Bound methods, not lambdas, on the document's signals: Qt drops them with the panel.
        doc.roleChanged.connect(self._role_changed)
        doc.linesReset.connect(self._show_uses)
        doc.lineChanged.connect(self._line_changed)
        self.filter.textChanged.connect(lambda _text: self.reload())
        self.table.selectionModel().currentRowChanged.connect(lambda current, _previous: self._row_chosen(current.row()))
        self.word.textEdited.connect(lambda _text: self._form_changed())
        self.say.textEdited.connect(lambda _text: self._form_changed(audition=True))
        self.scope.currentIndexChanged.connect(lambda _i: self._form_changed())
        self.hear_button.clicked.connect(self.audition)
        self.add_button.clicked.connect(self.commit)
        self.remove_button.clicked.connect(self.remove)
        self.uses.itemClicked.connect(self._line_clicked)
        self.import_button.clicked.connect(lambda: self.import_file())
        self.export_button.clicked.connect(lambda: self.export_file())

    # ---- the document -> the panel ------------------------------------------------------
    def _field_changed(self, field: str) -> None:
        if field == "lexicon":
            self.reload()

    def _role_changed(self, _name: str, field: str) -> None:
        self._field_changed(field)

    def _line_changed(self, _line_id: str) -> None:
        self._show_uses()

    def reload(self) -> None:
        """A lexicon or the cast changed: the table, the scope and voice choices follow."""
        project = self.doc.project
        names = project.role_names()
        for combo, first in ((self.scope, [PROJECT_SCOPE]), (self.voice, [])):
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(first + names)
            combo.setCurrentIndex(max(0, combo.findText(current)))
            combo.blockSignals(False)
        self.model.reload(project, self.filter.text().strip())
        if self.editing is not None:
            row = self.model.find(self.editing[1], self.editing[0])
            if row >= 0:
                self.table.selectionModel().setCurrentIndex(
                    self.model.index(row, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows)
            elif self.editing[0] is not None and self.editing[0] not in names:
                self.editing = None
        self._form_changed()

    def _row_chosen(self, row: int) -> None:
        if not 0 <= row < len(self.model.rows):
            return
        word, say, role = self.model.rows[row]
        self.editing = (role, word)
        self.word.setText(word)
        self.say.setText(say)
        self.scope.setCurrentText(role or PROJECT_SCOPE)
        if role is not None:
            self.voice.setCurrentText(role)
        self._form_changed()

    def _scope(self) -> str | None:
        text = self.scope.currentText()
        return None if self.scope.currentIndex() <= 0 or text == PROJECT_SCOPE else text

    def _form_changed(self, audition: bool = False) -> None:
        word, say = self.word.text().strip(), self.say.text().strip()
        problem = entry_problem(word, say) if (word or say) else None
        self._say(self.problem, problem or "")
        self.add_button.setEnabled(bool(word and say) and problem is None)
        self.add_button.setText("Update" if self.editing is not None else "Add")
        self.remove_button.setEnabled(self.editing is not None)
        self._show_uses()
        if audition and self.voice.count():
            self._audition_timer.start()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._show_uses()

    def _show_uses(self) -> None:
        if not self.isVisible():
            return  # typing in the script while the tab is hidden costs nothing; shown, it catches up
        self.uses.clear()
        word = self.word.text().strip()
        if not word:
            return
        scope = self._scope()
        try:
            lines = lexicon_edits.lines_using(self.doc.project, scope, word) if self._stored(scope, word) else []
        except KeyError:  # the scope's role is gone
            lines = []
        for line in lines:
            item = QListWidgetItem(f"{line.role}: {line.text}")
            item.setData(Qt.ItemDataRole.UserRole, line.id)
            self.uses.addItem(item)

    def _stored(self, scope: str | None, word: str) -> bool:
        return word in lexicon_edits.lexicon_of(self.doc.project, scope)

    def _line_clicked(self, item: QListWidgetItem) -> None:
        self.window_.script.select_line(item.data(Qt.ItemDataRole.UserRole))

    # ---- edits --------------------------------------------------------------------------
    def add_word(self, word: str, role: str | None = None) -> None:
        """Start a new entry for ``word`` (from the script): the producer writes how to say it."""
        self.editing = None
        self.table.clearSelection()
        self.word.setText(word.strip())
        self.say.clear()
        self.scope.setCurrentIndex(0)
        if role is not None:
            self.voice.setCurrentText(role)
        self._form_changed()
        dock = self.parentWidget()
        while dock is not None and not isinstance(dock, QDockWidget):
            dock = dock.parentWidget()
        if dock is not None:  # the panel's tab comes to the front
            dock.show()
            dock.raise_()
        self.say.setFocus()

    def add_from_script(self, word: str, role: str | None) -> None:
        """"Add to Lexicon" from the script (app/lexicon/script.py finds the word)."""
        if not word:
            self._say(self.status, "Select a word in a line's text first (double-click the line, then select the word)")
            return
        self.add_word(word, role)

    def commit(self) -> None:
        word, say, scope = self.word.text().strip(), self.say.text().strip(), self._scope()
        problem = entry_problem(word, say)
        if problem is not None:
            self._say(self.problem, problem)
            return
        command = lexicon_edits.set_entry(self.doc, scope, word, say, self.editing)
        self.editing = (scope, word)
        if command is not None:
            self.doc.undo.push(command)
        self.reload()

    def remove(self) -> None:
        if self.editing is None:
            return
        scope, word = self.editing
        self.editing = None
        if self._stored(scope, word):
            self.doc.undo.push(lexicon_edits.remove_entry(self.doc, scope, word))
        self.word.clear()
        self.say.clear()
        self.reload()

    def audition(self) -> None:
        """Hear what is in the form in the chosen role's voice (the engine does the work)."""
        self._audition_timer.stop()
        text = self.say.text().strip() or self.word.text().strip()
        role = self.voice.currentText()
        if text and role and entry_problem(self.word.text().strip() or text, text) is None:
            self.window_.engine.audition(role, text)

    # ---- files --------------------------------------------------------------------------
    def import_file(self, path: Path | None = None) -> None:
        if path is None:
            name, _ = QFileDialog.getOpenFileName(self, "Import lexicon", "", FILE_FILTER)
            if not name:
                return
            path = Path(name)
        self._say(self.status, f"Reading {path.name}…")
        self._task = run_task("radioplay-lexicon-io", lambda: read_lexicon(path, phoneme_problem),
                              self.window_.marshal, lambda entries: self._imported(path, entries), self._failed)

    def _imported(self, path: Path, entries: list[Any]) -> None:
        try:
            command = lexicon_edits.add_entries(self.doc, entries, f"Import lexicon {path.name}")
        except LexiconFileError as exc:
            self._failed(LexiconFileError(f"{path}: {exc}"))
            return
        if command.steps:  # an import that changes nothing is no undo step
            self.doc.undo.push(command)
        self._say(self.status, f"Imported {_entries(len(entries))} from {path.name}"
                  + ("" if command.steps else " (the lexicon had them all already)"))

    def export_file(self, path: Path | None = None) -> None:
        asked = path is None  # the dialog's "replace it?" is the explicit overwrite (engine/output_paths.py)
        if path is None:
            name, _ = QFileDialog.getSaveFileName(self, "Export lexicon", "lexicon.pls", FILE_FILTER)
            if not name:
                return
            path = Path(name)
        entries = entries_of(self.doc.project)  # frozen entries: the worker reads no live object
        roles = sum(1 for e in entries if e.role is not None)
        note = f" ({roles} role entries left out: PLS has no roles, CSV keeps them)" \
            if roles and path.suffix.lower() in (".pls", ".xml") else ""
        self._say(self.status, f"Writing {path.name}…")
        inputs = [("the open project", self.doc.path)] if self.doc.path is not None else []
        self._task = run_task("radioplay-lexicon-io",
                              lambda: write_lexicon(lexicon_output(path, inputs=inputs, overwrite=asked), entries),
                              self.window_.marshal,
                              lambda count: self._say(self.status, f"Exported {_entries(count)} to {path.name}{note}"),
                              self._failed)

    @staticmethod
    def _say(label: QLabel, text: str) -> None:
        label.setText(text)
        label.setToolTip(text)

    def _failed(self, exc: BaseException) -> None:
        message = (str(exc) if isinstance(exc, (LexiconFileError, OutputPathError, OSError))
                   else f"{type(exc).__name__}: {exc}")
        self._say(self.status, message)
        self.window_.statusBar().showMessage(message, 10000)


def _entries(count: int) -> str:
    return f"{count} {'entry' if count == 1 else 'entries'}"
