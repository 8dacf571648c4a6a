"""Editing the script in the studio window: Enter, new lines, the speaker popup, the Pause
column, and the script following the playhead."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QLineEdit, QWidget

from app.document.commands import SetLineFields
from app.script.line_editor import LineTextEdit
from app.script.model import LINE_ID, Col
from tests.support.studio import wait_engine


def _open_editor(qtbot, window, line_id: str, column: int) -> QWidget:
    """The open cell's editor: the line editor on the text, a line edit on the speaker."""
    view = window.script.view
    index = window.script.model.index(window.script.model.row_of_line(line_id), column)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = view.findChild(LineTextEdit if column == Col.TEXT else QLineEdit)
    assert editor is not None and editor.isVisible()
    return editor


def _editing(window) -> bool:
    return any(editor.isVisible() for kind in (LineTextEdit, QLineEdit)
               for editor in window.script.view.findChildren(kind))


def _cursor_to(editor: LineTextEdit, position: int) -> None:
    cursor = editor.textCursor()
    cursor.setPosition(position)
    editor.setTextCursor(cursor)


def test_enter_on_the_text_commits_and_adds_no_line(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    lines = window.doc.project.lines
    count = len(lines)
    editor = _open_editor(qtbot, window, lines[2].id, Col.TEXT)
    editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(editor, " Enough.")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.wait(50)  # an inserted line would arrive on the next event loop turn
    assert len(lines) == count
    assert lines[2].text.endswith(" Enough.")
    assert not _editing(window)
    # Enter on a text cell that is not being edited opens it for typing; it adds no line either.
    qtbot.keyClick(window.script.view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: _editing(window))
    assert len(lines) == count


def test_ctrl_enter_inserts_the_next_speakers_line_and_opens_it(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    lines = window.doc.project.lines
    assert [line.role for line in lines[:3]] == ["ROLE0", "ROLE1", "ROLE2"]
    _open_editor(qtbot, window, lines[2].id, Col.TEXT)
    count = len(lines)
    window.script.insert_action.trigger()  # Ctrl+Enter, also while typing
    assert len(lines) == count + 1
    new = lines[3]
    assert new.role == "ROLE1" and new.text == "" and new.scene == lines[2].scene  # A, B, A -> B
    qtbot.waitUntil(lambda: _editing(window))
    assert window.script.view.currentIndex().data(LINE_ID) == new.id
    qtbot.keyClicks(window.script.view.findChild(LineTextEdit), "Me again.")
    assert new.text == "Me again."


def test_a_new_empty_line_shows_empty_not_failed(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    window.script.select_line(window.doc.project.lines[0].id)
    new_id = window.script.add_line_after_row(window.script.current_row())
    assert new_id is not None
    model = window.script.model
    qtbot.waitUntil(lambda: model.status_of(new_id) is not None, timeout=20_000)
    qtbot.wait(300)  # a failure would be reported at once
    assert model.status_of(new_id) == ("EMPTY", None)
    row = model.row_of_line(new_id)
    assert model.index(row, Col.STATUS).data() == "empty"
    assert "⚠" not in (model.index(row, Col.TEXT).data() or "")
    assert "failed" not in window.lines_label.text()


def test_picking_a_speaker_from_the_popup_takes_one_enter(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    line = window.doc.project.lines[0]
    assert line.role == "ROLE0"
    editor = _open_editor(qtbot, window, line.id, Col.ROLE)
    editor.clear()
    qtbot.keyClicks(editor, "le2")  # matches ROLE2 only
    popup = editor.completer().popup()
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: line.role == "ROLE2", timeout=2000)
    qtbot.waitUntil(lambda: not _editing(window), timeout=2000)


def test_the_pause_column_shows_overlaps_and_pinned_times(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, show=False)
    doc, model = window.doc, window.script.model
    second, third, fourth = doc.project.lines[1:4]
    doc.undo.push(SetLineFields(doc, second.id, {"overlap": 0.4}, "overlap"))
    doc.undo.push(SetLineFields(doc, third.id, {"start": 83.4}, "pin"))
    doc.undo.push(SetLineFields(doc, fourth.id, {"pause_before": 1.5}, "pause"))

    def pause(line_id: str) -> str:
        return model.index(model.row_of_line(line_id), Col.PAUSE).data()

    assert pause(second.id) == "-0.4 s overlap"
    assert pause(third.id) == "pinned 1:23.4"
    assert pause(fourth.id) == "1.5 s"
    assert pause(doc.project.lines[0].id) == ""
    # Typing a pause on a pinned line makes it follow the previous line again, in one undo step.
    assert model.setData(model.index(model.row_of_line(third.id), Col.PAUSE), 0.5)
    assert third.start is None and third.pause_before == 0.5 and pause(third.id) == "0.5 s"
    doc.undo.undo()
    assert third.start == 83.4 and pause(third.id) == "pinned 1:23.4"


def test_the_script_highlights_and_follows_the_line_being_played(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    script = window.script
    lines = window.doc.project.lines
    for _ in range(24):  # enough lines that the last ones start out of view
        script.select_line(lines[-1].id)
        script.insert_action.trigger()
        lines[-1].text = "And another line, to make the script longer than the window."
    window.doc.linesReset.emit()
    view = script.view
    last = lines[-1]
    # The time column takes its starts from the engine's layout (or the estimate before the engine has one).
    qtbot.waitUntil(lambda: script.model.start_of(last.id) is not None, timeout=10_000)
    start = script.model.start_of(last.id)
    assert start is not None
    view.scrollToTop()
    assert script.follow_action.isChecked()  # on by default

    script.show_playhead(start + 0.05, playing=True)
    row = script.model.row_of_line(last.id)
    assert script.model.playing_line() == last.id
    assert script.model.index(row, Col.TEXT).data(Qt.ItemDataRole.BackgroundRole) is not None
    assert view.viewport().rect().intersects(view.visualRect(script.model.index(row, Col.TEXT)))

    # Follow off: the highlight moves, the view stays where the producer put it.
    script.follow_action.setChecked(False)
    view.scrollToTop()
    script.show_playhead(start + 0.06, playing=True)
    assert script.model.playing_line() == last.id
    assert not view.viewport().rect().intersects(view.visualRect(script.model.index(row, Col.TEXT)))
    script.show_playhead(start, playing=False)
    assert script.model.playing_line() is None  # stopped: no line is being played


def test_playback_drives_the_script_highlight(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    window.actions_["play_pause"].trigger()
    qtbot.waitUntil(lambda: window.script.model.playing_line() is not None, timeout=30_000)
    window.actions_["stop"].trigger()
    qtbot.waitUntil(lambda: window.script.model.playing_line() is None, timeout=10_000)


def test_typing_on_a_selected_line_adds_to_its_text_and_never_replaces_it(qtbot, make_window, tiny_file):
    """Issue "studio" item 2: a key on a selected row opened Qt's editor with the text selected,
    so the first character replaced the whole line."""
    window = make_window(tiny_file)
    line = window.doc.project.lines[1]
    before = line.text
    view = window.script.view
    view.setCurrentIndex(window.script.model.index(window.script.model.row_of_line(line.id), Col.TEXT))
    view.setFocus()
    qtbot.keyClicks(view, " ")  # the first key opens the editor ...
    assert _editing(window)
    editor = view.findChild(LineTextEdit)
    qtbot.keyClicks(editor, "More")  # ... which has the keyboard from then on
    assert editor.text() == before + " More" and editor.textCursor().position() == len(editor.text())
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert line.text == before + " More"
    window.doc.undo.undo()  # the typing is one undo step
    assert line.text == before


def test_keys_belong_to_the_open_line_editor(qtbot, make_window, tiny_file):
    """Space types (the window's Play shortcut must not take it) and Ctrl+Home / Ctrl+End move the
    cursor in the text instead of moving the table to another row."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    window = make_window(tiny_file)
    lines = window.doc.project.lines
    editor = _open_editor(qtbot, window, lines[2].id, Col.TEXT)
    for key, mods, text in ((Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier, " "),
                            (Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier, ""),
                            (Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier, "")):
        override = QKeyEvent(QEvent.Type.ShortcutOverride, key, mods, text)
        override.ignore()
        QApplication.sendEvent(editor, override)
        assert override.isAccepted(), key  # a shortcut with this key does not fire while typing
    _cursor_to(editor, 3)
    qtbot.keyClick(editor, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert _editing(window) and window.script.view.currentIndex().data(LINE_ID) == lines[2].id
    assert editor.textCursor().position() == len(editor.text())
    qtbot.keyClick(editor, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert _editing(window) and window.script.view.currentIndex().data(LINE_ID) == lines[2].id
    assert editor.textCursor().position() == 0
    qtbot.keyClick(editor, Qt.Key.Key_Space)
    state = window.engine.state()
    assert editor.text().startswith(" ") and (state is None or not state.transport.playing)
