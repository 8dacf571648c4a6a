"""Cut, copy and paste of script lines, and find and replace, in the studio window."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence

from app.script.model import LINE_ID, Col


def _keys(action: QAction) -> list[str]:
    return [k.toString(QKeySequence.SequenceFormat.PortableText) for k in action.shortcuts()]


def _select_lines(window, first: str, last: str) -> None:
    model, view = window.script.model, window.script.view
    top, bottom = model.row_of_line(first), model.row_of_line(last)
    view.setCurrentIndex(model.index(top, Col.TEXT))
    view.selectionModel().select(QItemSelection(model.index(top, 0), model.index(bottom, len(Col) - 1)),
                                 QItemSelectionModel.SelectionFlag.ClearAndSelect)


def test_clipboard_and_find_commands_are_bound(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, show=False)
    script = window.script
    assert "Ctrl+X" in _keys(script.cut_action)
    assert "Ctrl+C" in _keys(script.copy_action)
    assert "Ctrl+V" in _keys(script.paste_action)
    assert "Ctrl+F" in _keys(script.find_action)
    assert "Ctrl+H" in _keys(script.replace_action)
    edit_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    for action in (script.cut_action, script.copy_action, script.paste_action, script.find_action,
                   script.replace_action):
        assert action in edit_menu.actions(), action.text()


def test_copy_writes_name_colon_line_and_paste_inserts_after_the_current_line(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, show=False)
    doc, script = window.doc, window.script
    lines = doc.project.lines
    lines[2].note, lines[2].pause_before = "softly", 1.5
    _select_lines(window, lines[1].id, lines[2].id)
    script.copy_action.trigger()
    assert QGuiApplication.clipboard().text() == (
        f"ROLE1: {lines[1].text}\n[pause 1.5]\nROLE2 (softly): {lines[2].text}\n")
    copied = [(line.role, line.text, line.note, line.pause_before) for line in lines[1:3]]
    count, steps = len(lines), doc.undo.count()

    script.select_line(lines[4].id)
    script.paste_action.trigger()
    assert len(lines) == count + 2
    assert [(line.role, line.text, line.note, line.pause_before) for line in lines[5:7]] == copied
    assert len({line.id for line in lines}) == len(lines)  # pasted lines get their own ids
    assert doc.undo.count() == steps + 1
    assert script.view.currentIndex().data(LINE_ID) == lines[6].id
    window.actions_["undo"].trigger()
    assert len(lines) == count


def test_cut_removes_the_lines_in_one_undo_step(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, show=False)
    lines = window.doc.project.lines
    cut = [line.id for line in lines[0:2]]
    _select_lines(window, cut[0], cut[1])
    window.script.cut_action.trigger()
    assert [line.id for line in lines][:1] != cut[:1] and len(lines) == 4
    assert QGuiApplication.clipboard().text().startswith("ROLE0: Line number 1")
    window.actions_["undo"].trigger()
    assert [line.id for line in lines[:2]] == cut


def test_pasting_text_from_another_app_adds_lines_and_the_missing_roles(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, show=False)
    doc = window.doc
    lines = doc.project.lines
    QGuiApplication.clipboard().setText("Newbie (nervous): Hello there.\r\nrole0: Hello yourself.\n")
    window.script.select_line(lines[-1].id)
    window.script.paste_action.trigger()
    assert "NEWBIE" in doc.project.role_names()
    assert [(line.role, line.note, line.text) for line in lines[-2:]] == [
        ("NEWBIE", "nervous", "Hello there."), ("ROLE0", "", "Hello yourself.")]
    window.actions_["undo"].trigger()  # one step: the lines and the role they brought
    assert "NEWBIE" not in doc.project.role_names() and len(lines) == 6


def test_pasting_text_that_is_not_a_script_says_why(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, show=False)
    messages: list[str] = []
    window.script.status.connect(messages.append)
    QGuiApplication.clipboard().setText("ROLE0: fine\nthis line has no speaker\n")
    window.script.paste_action.trigger()
    assert len(window.doc.project.lines) == 6
    assert messages and "line 2" in messages[-1] and "NAME: text" in messages[-1]


def test_find_moves_through_matching_lines_and_replace_all_is_one_undo_step(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    doc, script = window.doc, window.script
    lines = doc.project.lines
    script.select_line(lines[0].id)
    script.find_action.trigger()
    bar = script.find_bar
    assert bar.isVisible() and not bar.replace_edit.isVisible()
    bar.find_edit.setText("ROLE2")  # case-insensitive: "role2" in lines 3 and 6
    bar.find_next()
    assert script.current_line_id() == lines[2].id
    bar.find_next()
    assert script.current_line_id() == lines[5].id
    bar.find_next()  # wraps around
    assert script.current_line_id() == lines[2].id
    assert "2 lines" in bar.count_label.text()

    script.replace_action.trigger()
    assert bar.replace_edit.isVisible()
    bar.replace_edit.setText("the understudy")
    steps = doc.undo.count()
    bar.replace_all()
    assert all("role2" not in line.text.casefold() for line in lines)
    assert sum("the understudy" in line.text for line in lines) == 2
    assert doc.undo.count() == steps + 1
    window.actions_["undo"].trigger()
    assert sum("role2" in line.text for line in lines) == 2
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()


def test_replace_changes_the_current_line_and_moves_on(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    lines = window.doc.project.lines
    window.script.select_line(lines[0].id)
    window.script.replace_action.trigger()
    bar = window.script.find_bar
    bar.find_edit.setText("take 1")
    bar.replace_edit.setText("second take")
    bar.find_next()
    assert window.script.current_line_id() == lines[3].id
    bar.replace()
    assert lines[3].text.endswith("second take.")
    assert window.script.current_line_id() == lines[4].id
