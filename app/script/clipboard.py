"""Cut, copy and paste of script lines, as text any other program reads.

The clipboard holds lines in the plain-text script format the importer reads
(``NAME (note): text``, and ``[pause 1.5]`` before a line that waits), so
copied lines paste into a mail or a text editor as a readable script, and a
script typed or copied elsewhere pastes in as lines: through the same parser
as File > Import, so the two cannot disagree. A paste adds the roles it names
that the cast lacks. Cut and paste are one undo step each.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QUndoCommand

from app.document.commands import InsertLine, InsertRole, Macro, remove_lines
from app.script.access import ScriptAccess
from engine.project.bounds import edited_overstep
from engine.project.importers.parsed import Dialogue, Pause, ScriptSyntaxError
from engine.project.importers.plaintext import parse_plaintext
from engine.project.model import Line, next_colour


def lines_to_text(lines: list[Line]) -> str:
    """``NAME (note): text`` per line, a ``[pause N]`` line before each pause."""
    out: list[str] = []
    for line in lines:
        if line.pause_before:
            out.append(f"[pause {line.pause_before:g}]")
        head = f"{line.role} ({line.note})" if line.note else line.role
        out.append(f"{head}: {line.text}")
    return "".join(f"{row}\n" for row in out)


def text_to_lines(text: str) -> tuple[list[tuple[str, str, str, float]], int]:
    """(role, note, text, pause before) for each spoken line of a plain-text script, and how many
    other elements (scene headings, directions) were left out. Raises ScriptSyntaxError."""
    parsed = parse_plaintext(text, source="clipboard")
    rows: list[tuple[str, str, str, float]] = []
    pause, left_out = 0.0, 0
    for element in parsed.elements:
        if isinstance(element, Pause):
            pause += element.seconds
        elif isinstance(element, Dialogue):
            rows.append((element.character, element.note, element.text, pause))
            pause = 0.0
        else:
            left_out += 1
    return rows, left_out


class LineClipboard(QObject):
    """The script editor's Cut, Copy and Paste commands (``status(message)`` says what happened)."""

    status = Signal(str)

    def __init__(self, editor: ScriptAccess, parent: QObject) -> None:
        super().__init__(parent)
        self.editor = editor
        self.cut_action = self._action("Cut", QKeySequence.StandardKey.Cut, "Cut the selected lines", self.cut)
        self.copy_action = self._action("Copy", QKeySequence.StandardKey.Copy,
                                        "Copy the selected lines as 'NAME: line' text", self.copy)
        self.paste_action = self._action("Paste", QKeySequence.StandardKey.Paste,
                                         "Insert 'NAME: line' text from the clipboard after the current line",
                                         self.paste)

    def _action(self, text: str, key: QKeySequence.StandardKey, tip: str, slot: object) -> QAction:
        action = QAction(text, self)  # owned here; the editor holds it for its shortcut
        action.setShortcuts(QKeySequence.keyBindings(key))
        # Only while the script has focus: a cell being typed in keeps its own Ctrl+C.
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.setToolTip(tip)
        action.triggered.connect(slot)
        self.editor.addAction(action)
        return action

    def actions(self) -> list[QAction]:
        return [self.cut_action, self.copy_action, self.paste_action]

    def copy(self) -> int:
        ids = self.editor.selected_line_ids()
        if ids:
            QGuiApplication.clipboard().setText(lines_to_text([self.editor.doc.project.line(i) for i in ids]))
        return len(ids)

    def cut(self) -> None:
        ids = self.editor.selected_line_ids()
        if not self.copy():
            return
        command = remove_lines(self.editor.doc, ids)
        command.setText("Cut line" if len(ids) == 1 else f"Cut {len(ids)} lines")
        self.editor.doc.undo.push(command)
        self.status.emit(f"Cut {_count(len(ids))} (Ctrl+V pastes them, Ctrl+Z puts them back)")

    def paste(self) -> None:
        text = QGuiApplication.clipboard().text()
        if not text.strip():
            self.status.emit("Nothing to paste: the clipboard holds no text")
            return
        try:
            rows, left_out = text_to_lines(text)
        except ScriptSyntaxError as exc:
            self.status.emit(f"Cannot paste: line {exc.line} of the clipboard: {exc.problem}")
            return
        if not rows:
            self.status.emit("Nothing to paste: the clipboard holds no 'NAME: line' text")
            return
        doc = self.editor.doc
        after, scene = self.editor.insertion_point(self.editor.current_row())
        steps: list[QUndoCommand] = []
        names = {name.casefold(): name for name in doc.project.role_names()}
        added: list[str] = []
        for role_name, *_ in rows:
            if role_name.casefold() not in names:
                role = replace(doc.new_role(), name=role_name,
                               colour=next_colour(len(doc.project.cast) + len(added)))
                steps.append(InsertRole(doc, len(doc.project.cast) + len(added), role))
                names[role_name.casefold()] = role_name
                added.append(role_name)
        taken = {line.id for line in doc.project.lines}
        new_lines: list[Line] = []
        for role_name, note, line_text, pause in rows:
            line = doc.new_line(names[role_name.casefold()], line_text, scene)
            while line.id in taken:
                line = doc.new_line(line.role, line_text, scene)
            taken.add(line.id)
            line.note, line.pause_before = note, pause
            new_lines.append(line)
            steps.append(InsertLine(doc, after + len(new_lines), line))
        if (problem := edited_overstep(doc.project, *new_lines)) is not None:  # engine/project/bounds.py
            self.status.emit(f"Cannot paste: {problem}")
            return
        doc.undo.push(Macro("Paste line" if len(new_lines) == 1 else f"Paste {len(new_lines)} lines", steps))
        self.editor.select_line(new_lines[-1].id)
        extra = [f"added {', '.join(added)} to the cast"] if added else []
        if left_out:
            extra.append(f"left out {left_out} scene heading{'s' if left_out != 1 else ''} or direction"
                         f"{'s' if left_out != 1 else ''}")
        self.status.emit(f"Pasted {_count(len(new_lines))}" + (f" ({'; '.join(extra)})" if extra else ""))


def _count(n: int) -> str:
    return f"{n} line{'s' if n != 1 else ''}"
