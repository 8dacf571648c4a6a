"""The studio's everyday details: cast value ranges, the shortcut list, the status line,
context menus on lines, roles, clips and lanes (and a screenshot of the script with one)."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import importlib
import re

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QDoubleSpinBox, QMenu, QMessageBox

from app.cast.model import Col as CastCol
from app.document.commands import SetLineFields
from app.script.model import Col
from tests.support.paths import ARTIFACTS, SAMPLE
from tests.support.studio import wait_engine

# (column, typed, value it becomes, the range the message must show)
OUT_OF_RANGE = [
    (CastCol.PITCH, "20", 12.0, ("-12", "+12")),
    (CastCol.PITCH, "-30", -12.0, ("-12", "+12")),
    (CastCol.SPEED, "9", 4.0, ("0.25", "4")),
    (CastCol.VARIATION, "5", 2.0, ("0", "2")),
    (CastCol.GAIN, "99", 24.0, ("-60", "+24")),
    (CastCol.PAN, "3", 1.0, ("-1", "+1")),
    (CastCol.PRIORITY, "500", 100.0, ("0.01", "100")),
]
FIELD = {CastCol.PITCH: "voice.pitch", CastCol.SPEED: "voice.speed", CastCol.VARIATION: "voice.variation",
         CastCol.GAIN: "gain_db", CastCol.PAN: "pan", CastCol.PRIORITY: "priority"}


def _value(role, field: str) -> float:
    return getattr(role.voice, field[6:]) if field.startswith("voice.") else getattr(role, field)


def test_out_of_range_cast_values_are_clamped_visibly_with_the_range_shown(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    cast = window.cast
    role = window.doc.project.cast[0]
    for col, typed, expected, (lo, hi) in OUT_OF_RANGE:
        index = cast.model.index(0, col)
        tip = cast.model.headerData(col, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        assert lo in tip and hi in tip, (col, tip)
        cast.view.setCurrentIndex(index)
        cast.view.edit(index)
        spin = cast.view.findChild(QDoubleSpinBox)
        assert spin is not None and spin.isVisible()
        assert lo in spin.toolTip() and hi in spin.toolTip()
        spin.lineEdit().selectAll()
        qtbot.keyClicks(spin.lineEdit(), typed)
        qtbot.keyClick(spin, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: cast.view.findChild(QDoubleSpinBox) is None, timeout=2000)  # committed, closed
        assert _value(role, FIELD[col]) == expected, (col, typed)
        message = window.statusBar().currentMessage()
        assert typed in message and lo in message and hi in message, (col, message)


def test_the_shortcut_list_shows_only_keys_a_person_can_type(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    window.actions_["shortcuts"].trigger()
    box = window.findChild(QMessageBox, "shortcutsBox")
    assert box is not None
    table = dict(re.findall(r"<tr><td>(.*?)</td><td>&nbsp;&nbsp;<b>(.*?)</b></td></tr>", box.text()))
    assert table["Undo"].startswith("Ctrl+Z")
    typeable = re.compile(r"((Ctrl|Shift|Alt|Meta)\+)*([A-Z0-9]|F([1-9]|1[0-2])|Space|Home|End|Del|Ins|Backspace"
                          r"|Return|Enter|Esc|Tab|PgUp|PgDown|Left|Right|Up|Down|[-+=,.]|Wheel)")
    for command, keys in table.items():
        for key in keys.split(", "):
            assert typeable.fullmatch(key), f"{command}: {key!r} in {keys!r}"
    for command in ("Cut", "Copy", "Paste", "Find…", "Replace…", "Insert line after", "Add to Lexicon"):
        assert command in table, command


def test_a_long_status_message_is_cut_at_a_word_with_all_of_it_on_hover(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    window.resize(900, 600)
    message = ("ROLE1 speaks 3 lines; give them to another role before removing ROLE1, or undo the "
               "change that made them, then try again ") * 4
    window.show_status(message.strip())
    bar = window.statusBar()
    shown = bar.shown_text()
    assert shown.endswith("…")
    head = shown[:-1].rstrip()
    assert message.startswith(head) and not message[len(head)].isalnum()  # cut between words
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.message_rect().width()
    assert bar.toolTip() == message.strip()
    window.show_status("Short.")
    assert bar.shown_text() == "Short."


def _texts(menu: QMenu) -> list[str]:
    return [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]


def _action(menu: QMenu, text: str):
    return next(a for a in menu.actions() if a.text().replace("&", "") == text)


def test_script_lines_have_a_context_menu(qtbot, make_window, tiny_file):
    context_menus = importlib.import_module("app.shell.context_menus")
    window = make_window(tiny_file)
    view, model = window.script.view, window.script.model
    assert view.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    lines = window.doc.project.lines
    line = lines[1]
    pos = view.visualRect(model.index(model.row_of_line(line.id), Col.TEXT)).center()
    menu = context_menus.script_menu(window, pos)
    for text in ("Play from here", "Audition line", "Insert line after", "Delete lines", "Cut", "Copy", "Paste",
                 "Follow playhead"):
        assert text in _texts(menu), text
    assert window.script.current_line_id() == line.id  # the menu acts on the line clicked
    count = len(lines)
    _action(menu, "Insert line after").trigger()
    assert len(lines) == count + 1 and lines[1] is line


def test_roles_have_a_context_menu(qtbot, make_window, tiny_file):
    context_menus = importlib.import_module("app.shell.context_menus")
    window = make_window(tiny_file)
    view = window.cast.view
    assert view.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    pos = view.visualRect(window.cast.model.index(1, CastCol.NAME)).center()
    menu = context_menus.cast_menu(window, pos)
    assert {"Audition", "Add role", "Remove role"} <= set(_texts(menu))
    assert window.cast.current_role() == "ROLE1"
    _action(menu, "Add role").trigger()
    assert len(window.doc.project.cast) == 4


def test_clips_and_lanes_have_a_context_menu(qtbot, make_window, tiny_file):
    context_menus = importlib.import_module("app.shell.context_menus")
    window = make_window(tiny_file)
    timeline, doc = window.timeline, window.doc
    assert timeline.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    assert timeline.header.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    line = doc.project.lines[1]
    doc.undo.push(SetLineFields(doc, line.id, {"start": 0.5}, "pin"))
    item = timeline.clip_item(line.id)
    pos = timeline.mapFromScene(item.sceneBoundingRect().center())
    menu = context_menus.timeline_menu(window, pos)
    assert {"Play from here", "Reset timing"} <= set(_texts(menu))
    _action(menu, "Reset timing").trigger()
    assert line.start is None
    window.actions_["undo"].trigger()
    assert line.start == 0.5

    top, _height = timeline.lane_span(2)  # ROLE2's lane, above its clips' margin
    menu = context_menus.timeline_menu(window, QPoint(5, int(top) + 1))
    assert {"Mute ROLE2", "Solo ROLE2"} <= set(_texts(menu))
    _action(menu, "Mute ROLE2").trigger()
    assert doc.project.role("ROLE2").mute
    menu = context_menus.lane_menu(window, "ROLE2")
    assert _action(menu, "Mute ROLE2").isChecked()
    _action(menu, "Solo ROLE2").trigger()
    assert doc.project.role("ROLE2").solo


def test_screenshot_of_the_script_with_a_context_menu_and_the_find_bar(qtbot, make_window):
    context_menus = importlib.import_module("app.shell.context_menus")
    window = make_window(SAMPLE)
    wait_engine(qtbot, window)
    script = window.script
    script.replace_action.trigger()
    script.find_bar.find_edit.setText("broadcast")
    script.find_bar.find_next()
    view = script.view
    script.select_line(window.doc.project.lines[3].id)
    window.play_from_line()  # the line being heard is highlighted
    qtbot.waitUntil(lambda: script.model.playing_line() is not None, timeout=30_000)
    index = view.currentIndex()
    pos = view.visualRect(index.siblingAtColumn(Col.TEXT)).center()
    menu = context_menus.script_menu(window, pos)
    menu.popup(view.viewport().mapToGlobal(pos))
    qtbot.waitUntil(menu.isVisible)
    qtbot.wait(300)
    image = window.grab().toImage()
    painter = QPainter(image)  # the menu is a window of its own: drawn where it opened, over the script
    at = view.viewport().mapTo(window, pos)
    at.setX(min(at.x(), window.width() - menu.width()))  # as a popup shifts to stay on the screen
    painter.drawPixmap(at, menu.grab())
    painter.end()
    menu.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "script-context-menu.png"
    assert image.save(str(path))
    print(f"\nscreenshot: {path}")
