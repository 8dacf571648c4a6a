"""Find and replace in the script's lines: a bar under the script, like an editor's.

Ctrl+F opens it to find, Ctrl+H with the replace row; F3 / Shift+F3 (or
Enter in the find field) move to the next / previous line whose text
matches, wrapping at the ends; Escape closes it. Matching is on the spoken
text, case-insensitive unless "Match case" is on. "Replace" changes every
match in the current line and moves on; "Replace all" changes every line at
once as one undo step.
"""

from __future__ import annotations

import re
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QUndoCommand
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QWidget,
)

from app.document.commands import Macro, SetLineField
from app.script.access import ScriptAccess
from engine.project.bounds import edited_overstep
from engine.project.model import Line


class FindBar(QFrame):
    """Lives at the bottom of the script editor; hidden until Find or Replace."""

    status = Signal(str)

    def __init__(self, editor: ScriptAccess, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.editor = editor
        self.find_edit = QLineEdit(self)
        self.find_edit.setObjectName("findEdit")
        self.find_edit.setPlaceholderText("Find in the lines…")
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.returnPressed.connect(self.find_next)
        self.find_edit.textChanged.connect(lambda _text: self._update_count())
        self.replace_edit = QLineEdit(self)
        self.replace_edit.setObjectName("replaceEdit")
        self.replace_edit.setPlaceholderText("Replace with…")
        self.replace_edit.returnPressed.connect(self.replace)
        self.match_case = QCheckBox("Match case", self)
        self.match_case.toggled.connect(lambda _on: self._update_count())
        self.count_label = QLabel("", self)
        self.count_label.setMinimumWidth(110)
        previous = self._button("Previous", lambda: self.find_next(backward=True))
        following = self._button("Next", self.find_next)
        self.replace_button = self._button("Replace", self.replace)
        self.replace_all_button = self._button("Replace all", self.replace_all)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Close (Escape)")
        close.clicked.connect(self.close_bar)

        grid = QGridLayout(self)
        grid.setContentsMargins(6, 4, 6, 4)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(3)
        grid.addWidget(self.find_edit, 0, 0)
        row0 = QHBoxLayout()
        for widget in (previous, following, self.match_case, self.count_label):
            row0.addWidget(widget)
        row0.addStretch(1)
        row0.addWidget(close)
        grid.addLayout(row0, 0, 1)
        grid.addWidget(self.replace_edit, 1, 0)
        row1 = QHBoxLayout()
        row1.addWidget(self.replace_button)
        row1.addWidget(self.replace_all_button)
        row1.addStretch(1)
        grid.addLayout(row1, 1, 1)
        grid.setColumnStretch(0, 2)
        grid.setColumnStretch(1, 3)

        self.find_action = self._action("Find…", [QKeySequence(QKeySequence.StandardKey.Find)],
                                        "Find a word in the script's lines", lambda: self.open_bar(False))
        self.replace_action = self._action("Replace…", [QKeySequence("Ctrl+H")],
                                           "Find and replace in the script's lines", lambda: self.open_bar(True))
        self.find_next_action = self._action("Find next", [QKeySequence("F3")], "The next line that matches",
                                             self.find_next)
        self.find_previous_action = self._action("Find previous", [QKeySequence("Shift+F3")],
                                                 "The previous line that matches",
                                                 lambda: self.find_next(backward=True))
        self.hide()

    def _button(self, text: str, slot: object) -> QPushButton:
        button = QPushButton(text, self)
        button.setAutoDefault(False)
        button.clicked.connect(slot)
        return button

    def _action(self, text: str, keys: list[QKeySequence], tip: str, slot: object) -> QAction:
        action = QAction(text, self)  # owned here; the editor holds it for its shortcut
        action.setShortcuts(keys)
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.setToolTip(tip)
        action.triggered.connect(slot)
        self.editor.addAction(action)
        return action

    def actions(self) -> list[QAction]:
        return [self.find_action, self.replace_action, self.find_next_action, self.find_previous_action]

    # ---- showing ----------------------------------------------------------------
    def open_bar(self, with_replace: bool) -> None:
        for widget in (self.replace_edit, self.replace_button, self.replace_all_button):
            widget.setVisible(with_replace)
        self.show()
        self.find_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.find_edit.selectAll()
        self._update_count()

    def close_bar(self) -> None:
        self.hide()
        self.editor.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape:  # the line edits pass Escape up to here
            self.close_bar()
            event.accept()
            return
        super().keyPressEvent(event)

    # ---- finding ------------------------------------------------------------------
    def pattern(self) -> re.Pattern[str] | None:
        term = self.find_edit.text()
        if not term:
            return None
        return re.compile(re.escape(term), 0 if self.match_case.isChecked() else re.IGNORECASE)

    def matching_ids(self) -> list[str]:
        pattern = self.pattern()
        if pattern is None:
            return []
        return [line.id for line in self.editor.doc.project.lines if pattern.search(line.text)]

    def find_next(self, backward: bool = False) -> str | None:
        """Select the next (or previous) matching line after the current one, wrapping around."""
        if self.isHidden():
            self.open_bar(self.replace_edit.isVisible())
        matches = self.matching_ids()
        if not matches:
            self._update_count()
            return None
        lines = self.editor.doc.project.lines
        order = {line.id: i for i, line in enumerate(lines)}
        current = self.editor.current_line_id()
        here = order.get(current, -1) if current is not None else -1
        if backward:
            earlier = [m for m in matches if order[m] < here] if here >= 0 else []
            found = earlier[-1] if earlier else matches[-1]
        else:
            later = [m for m in matches if order[m] > here]
            found = later[0] if later else matches[0]
        self.editor.select_line(found)
        self._update_count(matches, found)
        return found

    def _update_count(self, matches: list[str] | None = None, current: str | None = None) -> None:
        matches = self.matching_ids() if matches is None else matches
        if not self.find_edit.text():
            self.count_label.setText("")
        elif not matches:
            self.count_label.setText("No line matches")
        else:
            total = f"{len(matches)} line{'s' if len(matches) != 1 else ''}"
            where = f"{matches.index(current) + 1} of " if current in matches else ""
            self.count_label.setText(where + total)

    # ---- replacing ----------------------------------------------------------------
    def _replaced(self, text: str) -> str | None:
        pattern = self.pattern()
        if pattern is None or not pattern.search(text):
            return None
        new = self.replace_edit.text()
        return pattern.sub(lambda _m: new, text)  # the replacement is literal text, not a regex template

    def replace(self) -> None:
        """Replace the matches in the current line, then go to the next matching line."""
        line_id = self.editor.current_line_id()
        if line_id is not None:
            new = self._replaced(self.editor.doc.project.line(line_id).text)
            if new is not None and self._refused([replace(self.editor.doc.project.line(line_id), text=new)]):
                return
            if new is not None:
                self.editor.doc.undo.push(SetLineField(self.editor.doc, line_id, "text", new, text="Replace"))
        self.find_next()

    def _refused(self, changed: list[Line]) -> bool:
        """Whether the replacement takes a line (or the production) past its bounds; says which."""
        problem = edited_overstep(self.editor.doc.project, *changed) if changed else None
        if problem is not None:
            self.status.emit(f"Not replaced: {problem}")
        return problem is not None

    def replace_all(self) -> int:
        doc = self.editor.doc
        steps: list[QUndoCommand] = []
        changed: list[Line] = []
        for line in doc.project.lines:
            new = self._replaced(line.text)
            if new is not None:
                steps.append(SetLineField(doc, line.id, "text", new))
                changed.append(replace(line, text=new))
        if self._refused(changed):
            return 0
        if steps:
            term, count = self.find_edit.text(), len(steps)
            doc.undo.push(Macro(f"Replace “{term}” in {count} line{'s' if count != 1 else ''}", steps))
        message = f"Replaced in {len(steps)} line{'s' if len(steps) != 1 else ''}" if steps else "No line matches"
        self.count_label.setText(message)
        self.status.emit(message + (" (Ctrl+Z undoes it)" if steps else ""))
        return len(steps)
