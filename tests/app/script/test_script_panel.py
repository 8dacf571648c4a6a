"""Issue 51, the script and cast panels: the Line column takes the width and wraps, at
1280x720, 1600x1000 and 1920x1080; the line editor shows the whole line; Escape leaves nothing
to redo; Tab leaves the table; the delivery picker's list reads whole; the cast shows every role."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QFontMetrics, QTextCursor
from PySide6.QtWidgets import QApplication, QComboBox, QPlainTextEdit

from app.document.document import Document
from app.script.editor import ScriptEditor
from app.script.line_editor import LineTextEdit
from app.script.model import Col
from engine.project.fileformat import load_project
from tests.support.paths import ARTIFACTS, SAMPLE

LONG = ("Radio Llanfair had broadcast from the same damp hilltop studio since 1962, and tonight, in the "
        "worst storm in years, it would sign off forever while the valley slept under the rain.")


def _open_at(qtbot, make_window, size: tuple[int, int], path=SAMPLE):
    window = make_window(path, show=False)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)  # the default layout is arranged for the size once the window shows
    return window


def _in_view(view, index) -> bool:
    rect = view.visualRect(index)
    return view.viewport().rect().contains(rect)


def _longest(window) -> str:
    return max(window.doc.project.lines, key=lambda line: len(line.text)).id


def _check_script_and_cast(qtbot, window, size: tuple[int, int]) -> None:
    """The selected line's role and whole text show, the Line column has most of the width, and
    every role of the cast is in view."""
    script = window.script
    view, model = script.view, script.model
    line_id = _longest(window)
    script.select_line(line_id)
    qtbot.waitUntil(lambda: view.heights.pending() == 0)
    header = view.horizontalHeader()
    assert header.sectionSize(Col.TEXT) >= 0.45 * view.viewport().width(), (size, header.sectionSize(Col.TEXT))
    assert view.horizontalScrollBar().maximum() == 0, size  # nothing of a line off to the side
    row = model.row_of_line(line_id)
    for col in (Col.ROLE, Col.TEXT):
        assert _in_view(view, model.index(row, col)), (size, col)
    # The row is as tall as its wrapped text: the text cell asks no more than the row has.
    option_height = view.itemDelegateForColumn(Col.TEXT).sizeHint(_option(view, row), model.index(row, Col.TEXT))
    assert view.rowHeight(row) >= option_height.height(), size
    cast = window.cast.view
    roles = cast.model().rowCount()
    assert roles == len(window.doc.project.cast) == 7
    assert all(_in_view(cast, cast.model().index(r, 1)) for r in range(roles)), (size, cast.viewport().height())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(ARTIFACTS / f"script-panel-{size[0]}x{size[1]}.png"))


def _option(view, row: int):
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QStyleOptionViewItem

    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    option.rect = QRect(0, 0, view.columnWidth(Col.TEXT), view.rowHeight(row))
    return option


def test_the_line_column_takes_the_width_at_1280x720_and_1600x1000_and_the_cast_shows_whole(qtbot, make_window):
    window = _open_at(qtbot, make_window, (1600, 1000))
    _check_script_and_cast(qtbot, window, (1600, 1000))
    # Made smaller (a window manager fitting it to a small screen): the panels around give way
    # before the script, and the cast still shows several roles.
    window.resize(1280, 720)
    qtbot.wait(50)
    view, model = window.script.view, window.script.model
    assert view.horizontalHeader().sectionSize(Col.TEXT) >= 0.45 * view.viewport().width()
    assert view.horizontalScrollBar().maximum() == 0
    row = model.row_of_line(_longest(window))
    assert _in_view(view, model.index(row, Col.ROLE)) and _in_view(view, model.index(row, Col.TEXT))
    cast = window.cast.view
    assert sum(_in_view(cast, cast.model().index(r, 1)) for r in range(cast.model().rowCount())) >= 4
    # View > Reset Layout makes the default layout for the size it has: every role again.
    window.actions_["reset_layout"].trigger()
    qtbot.wait(50)
    _check_script_and_cast(qtbot, window, (1280, 720))


def test_a_window_opened_at_1280x720_shows_the_script_and_the_whole_cast(qtbot, make_window):
    window = _open_at(qtbot, make_window, (1280, 720))
    _check_script_and_cast(qtbot, window, (1280, 720))


def test_the_cast_shows_all_seven_roles_at_1920x1080(qtbot, make_window):
    window = _open_at(qtbot, make_window, (1920, 1080))
    _check_script_and_cast(qtbot, window, (1920, 1080))
    # Moved to a laptop's screen and back: the cast keeps every role in view.
    window.resize(1280, 720)
    qtbot.wait(50)
    window.resize(1920, 1080)
    qtbot.wait(50)
    _check_script_and_cast(qtbot, window, (1920, 1080))
    window.actions_["reset_layout"].trigger()  # View > Reset Layout: the same, for the size it has
    qtbot.wait(50)
    _check_script_and_cast(qtbot, window, (1920, 1080))


def test_rows_wrap_and_a_long_script_is_fitted_in_turns(qtbot):
    """2,000 lines: the rows in view take their heights at the next turn of the event loop, the
    rest a chunk per turn after it, so the loop keeps turning; a long line's row is taller."""
    project = load_project(SAMPLE)
    lines = [replace(project.lines[i % len(project.lines)], id=f"L{i:05d}") for i in range(2000)]
    lines[1] = replace(lines[1], text=LONG)
    lines[2] = replace(lines[2], text="Yes.")
    editor = ScriptEditor(Document(replace(project, lines=lines)))
    qtbot.addWidget(editor)
    editor.resize(900, 600)
    editor.show()
    qtbot.waitExposed(editor)
    view, model = editor.view, editor.model
    view.heights.all()  # as after a resize
    QApplication.processEvents()  # one turn: the rows in view
    assert 0 < view.heights.pending() < model.rowCount()
    long_row, short_row = model.row_of_line("L00001"), model.row_of_line("L00002")
    assert view.rowHeight(long_row) > view.rowHeight(short_row)
    qtbot.waitUntil(lambda: view.heights.pending() == 0)
    last = model.rowCount() - 1
    assert view.rowHeight(last) == view.sizeHintForRow(last)  # the far end fitted too
    # A narrower Line column: the long line wraps onto more lines.
    before = view.rowHeight(long_row)
    editor.resize(600, 600)
    qtbot.waitUntil(lambda: view.rowHeight(long_row) > before)


def _edit_text(qtbot, window, line_id: str) -> LineTextEdit:
    view = window.script.view
    index = window.script.model.index(window.script.model.row_of_line(line_id), Col.TEXT)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = next((e for e in view.findChildren(LineTextEdit) if e.isVisible()), None)
    assert editor is not None
    return editor


def test_the_line_editor_shows_the_whole_line_on_several_lines(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, show=False)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    line = window.doc.project.lines[1]
    window.doc.apply_line_field(line.id, "text", LONG)
    editor = _edit_text(qtbot, window, line.id)
    assert isinstance(editor, QPlainTextEdit) and editor.text() == LONG
    metrics = QFontMetrics(editor.font())
    assert editor.height() >= 2 * metrics.lineSpacing()  # more than one line high
    assert editor.needed_height() <= editor.height()  # and all of it shows
    # Typing at the end grows the editor with the text; Shift+Enter breaks nothing, it commits.
    editor.moveCursor(QTextCursor.MoveOperation.End)
    height = editor.height()
    qtbot.keyClicks(editor, " And then the lights went out across the whole of the valley." * 2)
    assert editor.height() > height
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert "\n" not in line.text and "\u2028" not in line.text and line.text.endswith("valley.")
    assert window.script.view.findChild(LineTextEdit) is None or not window.script.view.findChild(
        LineTextEdit).isVisible()
    # A pasted line break becomes a space: a spoken line is one paragraph.
    editor = _edit_text(qtbot, window, line.id)
    editor.moveCursor(QTextCursor.MoveOperation.End)
    pasted = QMimeData()
    pasted.setText(" Wait.\nListen.")
    editor.insertFromMimeData(pasted)
    assert editor.text().endswith(" Wait. Listen.")


def test_escape_while_typing_leaves_the_text_and_nothing_to_redo(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    undo = window.doc.undo
    first, second = window.doc.project.lines[:2]
    editor = _edit_text(qtbot, window, first.id)
    editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(editor, " kept")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert undo.count() == 1 and first.text.endswith(" kept")
    original = second.text
    editor = _edit_text(qtbot, window, second.id)
    editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(editor, " no")
    assert second.text == original + " no"  # written live
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert second.text == original
    assert not undo.canRedo() and not window.actions_["redo"].isEnabled()
    assert window.actions_["redo"].text() == "&Redo"  # no "Redo Edit text" to re-apply the cancelled text
    assert undo.count() == 1 and undo.index() == 1  # the committed line is still the one step to undo
    undo.undo()
    assert not first.text.endswith(" kept") and second.text == original


def test_tab_leaves_the_script_for_the_cast_and_the_timeline_and_goes_cell_to_cell_in_an_editor(
        qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    view = window.script.view
    view.setCurrentIndex(window.script.model.index(window.script.model.row_of_line(
        window.doc.project.lines[0].id), Col.ROLE))
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is window.cast.view
    qtbot.keyClick(window.cast.view, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is window.timeline
    # In an open cell Tab commits and opens the next one: the speaker, the delivery, the line.
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    view.edit(view.currentIndex())
    role_editor = QApplication.focusWidget()
    assert role_editor is not None and view.isAncestorOf(role_editor)
    qtbot.keyClick(role_editor, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: view.currentIndex().column() == Col.NOTE)
    assert view.isAncestorOf(QApplication.focusWidget())
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), LineTextEdit))
    assert view.currentIndex().column() == Col.TEXT


def test_the_delivery_picker_lists_its_words_whole(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    view, model = window.script.view, window.script.model
    index = model.index(model.row_of_line(window.doc.project.lines[0].id), Col.NOTE)
    view.setCurrentIndex(index)
    view.edit(index)
    picker = window.script.direction_delegate
    combo = view.findChild(QComboBox, "deliveryChoice")
    assert combo is not None and combo.isVisible() and picker is not None
    editor = combo.parentWidget()
    assert editor.width() >= editor.sizeHint().width()  # the picker as wide as its words, over the Line column
    for box in (combo, editor.intensity):
        metrics = QFontMetrics(box.view().font())
        widest = max(metrics.horizontalAdvance(box.itemText(i)) for i in range(box.count()))
        box.showPopup()
        qtbot.waitUntil(box.view().isVisible)
        assert box.view().viewport().width() >= widest, (box.objectName(), box.view().viewport().width(), widest)
        box.hidePopup()
