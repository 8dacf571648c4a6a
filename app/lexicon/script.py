"""The script's way into the Lexicon panel: "Add to Lexicon" on the word
selected (or under the cursor) in the line being edited.

The script's line editor is made by app/script/line_editor.py; rather than add menu
code there, an event filter on the script's viewport gives each line editor
a context menu with the panel's action, and the action's Ctrl+Shift+L works
anywhere in the window. GUI thread only.
"""

from __future__ import annotations

from typing import Any, cast

from PySide6.QtCore import QChildEvent, QEvent, QObject, Qt
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit

from app.lexicon.access import LexiconStudio
from app.lexicon.panel import LexiconPanel


def _open_editor(window: LexiconStudio) -> QLineEdit | QPlainTextEdit | None:
    """The script's open cell editor: the line's text box, or a line edit (the speaker, the delivery)."""
    viewport = window.script.view.viewport()
    editors: list[QLineEdit | QPlainTextEdit] = [*viewport.findChildren(QPlainTextEdit), *viewport.findChildren(QLineEdit)]
    return next((w for w in editors if w.isVisible()), None)


def script_word(window: LexiconStudio) -> tuple[str, str | None]:
    """The word selected (or under the cursor) in the script's open line editor, and its line's role."""
    editor = _open_editor(window)
    if editor is None:
        return "", None
    if isinstance(editor, QPlainTextEdit):
        cursor = editor.textCursor()
        word, text, at = cursor.selectedText().strip(), editor.toPlainText(), cursor.position()
    else:
        word, text, at = editor.selectedText().strip(), editor.text(), editor.cursorPosition()
    if not word:
        start = at
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "'-"):
            start -= 1
        end = at
        while end < len(text) and (text[end].isalnum() or text[end] in "'-"):
            end += 1
        word = text[start:end].strip("'-")
    line_id = window.script.current_line_id()
    role = window.doc.project.line(line_id).role if line_id else None
    return word, role


class _EditorMenus(QObject):
    """Gives each line editor the script opens an "Add to Lexicon" entry in its context menu."""

    def __init__(self, panel: LexiconPanel) -> None:
        super().__init__(panel)
        self.panel = panel

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        # Polished, not added: a child is announced while its constructor still runs (not yet an editor).
        if event.type() == QEvent.Type.ChildPolished:
            child = cast(QChildEvent, event).child()  # the type() says which class Qt made
            if isinstance(child, (QLineEdit, QPlainTextEdit)) and (
                    child.contextMenuPolicy() != Qt.ContextMenuPolicy.CustomContextMenu):
                child.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
                child.customContextMenuRequested.connect(lambda pos, e=child: self._menu(e, pos))
        return False

    def _menu(self, editor: QLineEdit | QPlainTextEdit, pos: Any) -> None:
        menu = editor.createStandardContextMenu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.addSeparator()
        menu.addAction(self.panel.add_action)
        menu.popup(editor.mapToGlobal(pos))


def install(window: LexiconStudio, panel: LexiconPanel) -> None:
    """Hook the panel's "Add to Lexicon" to the script (its editors' menus, a window shortcut)."""
    window.script.view.viewport().installEventFilter(_EditorMenus(panel))
    panel.add_action.triggered.connect(lambda: panel.add_from_script(*script_word(window)))
    window.addAction(panel.add_action)
