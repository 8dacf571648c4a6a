"""The studio window on the bundled sample and on tiny projects: panels, editing, keys, settings."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QImage, QKeySequence, QTextCursor

from app.script.line_editor import LineTextEdit
from app.script.model import Col as ScriptCol
from tests.support.paths import REPO, SAMPLE
from tests.support.studio import wait_engine

ARTIFACTS = Path(os.environ.get("RADIOPLAY_ARTIFACTS", REPO / "tests" / "app" / "artifacts"))


def _keys(action: QAction) -> list[str]:
    return [k.toString(QKeySequence.SequenceFormat.PortableText) for k in action.shortcuts()]


def _line_rows(window) -> list[str]:
    model = window.script.model
    return [lid for r in range(model.rowCount()) if (lid := model.line_id_at(r)) is not None]


def test_the_sample_shows_in_cast_script_and_lanes(qtbot, make_window):
    window = make_window(SAMPLE)
    project = window.doc.project
    names = project.role_names()
    cast = window.cast.model
    assert [cast.role_at(r).name for r in range(cast.rowCount())] == names
    assert _line_rows(window) == [line.id for line in project.lines]
    # The cast's lanes, then the sample's sound lanes under them.
    assert [lane.name for lane in window.timeline.lanes()] == names + ["♪ FX", "♪ AMBIENCE", "♪ MUSIC"]
    assert len(window.timeline.clip_items()) == len(project.lines) + len(project.sounds) == 48 + 14
    assert window.windowTitle().startswith("the-last-broadcast.radioplay")
    assert not window.isWindowModified()
    wait_engine(qtbot, window)
    assert window.engine_label.text() == "Engine: ready"


def _edit_text(qtbot, window, line_id: str, typed: str) -> LineTextEdit:
    view = window.script.view
    index = window.script.model.index(window.script.model.row_of_line(line_id), ScriptCol.TEXT)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = view.findChild(LineTextEdit)
    assert editor is not None and editor.isVisible()
    editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(editor, typed)
    return editor


def test_typing_a_line_is_one_undo_step_and_marks_the_window_modified(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    line = window.doc.project.lines[0]
    original = line.text
    editor = _edit_text(qtbot, window, line.id, " Really")
    assert line.text == original + " Really"  # written live, keystroke by keystroke
    qtbot.keyClick(editor, Qt.Key.Key_Tab)  # leave the cell
    assert window.isWindowModified()
    assert window.doc.undo.count() == 1
    window.actions_["undo"].trigger()
    assert line.text == original and not window.isWindowModified()
    window.actions_["redo"].trigger()
    assert line.text == original + " Really" and window.isWindowModified()


def test_escape_while_typing_puts_the_text_back(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    line = window.doc.project.lines[1]
    original = line.text
    editor = _edit_text(qtbot, window, line.id, " no")
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: line.text == original)
    assert not window.isWindowModified()


def test_shortcuts_are_bound_and_unambiguous(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    a = window.actions_
    expected = {"new": "Ctrl+N", "open": "Ctrl+O", "save": "Ctrl+S", "save_as": "Ctrl+Shift+S",
                "import": "Ctrl+I", "export": "Ctrl+E", "undo": "Ctrl+Z", "redo": "Ctrl+Shift+Z",
                "play_pause": "Space", "stop": "Shift+Space", "from_start": "Home", "play_line": "Ctrl+P",
                "add_role": "Ctrl+Shift+R", "audition": "Ctrl+Shift+A", "shortcuts": "F1"}
    for name, key in expected.items():
        assert key in _keys(a[name]), name
    assert "Ctrl+Return" in _keys(window.script.insert_action)
    assert "Del" in _keys(window.script.delete_action)
    # Qt ignores a shortcut that two window-level actions share: every binding must be unique.
    seen: dict[str, QAction] = {}
    for action in window.findChildren(QAction):
        if action.shortcutContext() == Qt.ShortcutContext.WidgetShortcut:
            continue
        for key in _keys(action):
            other = seen.setdefault(key, action)
            assert other is action, f"{key}: {other.text()} and {action.text()}"


def test_edit_actions_insert_delete_undo_and_save(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    lines = window.doc.project.lines
    count = len(lines)
    window.script.select_line(lines[0].id)
    window.script.insert_action.trigger()
    assert len(lines) == count + 1 and lines[1].role == "ROLE1"
    window.script.select_line(lines[1].id)
    window.script.delete_action.trigger()
    assert len(lines) == count
    window.actions_["undo"].trigger()
    assert len(lines) == count + 1
    window.actions_["save"].trigger()
    assert not window.isWindowModified()
    assert tiny_file.read_text(encoding="utf-8").count('"id": "L') == count + 1


def test_window_layout_and_recent_files_are_remembered(qtbot, make_window, tiny_file):
    first = make_window(tiny_file)
    first.monitor_dock.toggleViewAction().trigger()  # the producer closes the monitor
    assert first.monitor_dock.isHidden()
    first.close()
    second = make_window()
    assert second.monitor_dock.isHidden()
    assert second.files.recent.paths() == [tiny_file.resolve()]
    second.recent_menu.aboutToShow.emit()
    assert any(tiny_file.name in action.text() for action in second.recent_menu.actions())


def test_screenshot_of_the_sample(qtbot, make_window):
    window = make_window(SAMPLE)
    window.resize(1440, 900)
    wait_engine(qtbot, window)
    qtbot.wait(300)  # a few engine snapshots drawn
    image = window.grab().toImage()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "studio-sample.png"
    assert image.save(str(path))
    print(f"\nscreenshot: {path}")
    assert image.width() >= 800 and image.height() >= 600
    small = image.scaled(64, 40).convertToFormat(QImage.Format.Format_RGB32)
    colours = {small.pixel(x, y) for x in range(small.width()) for y in range(small.height())}
    assert len(colours) > 20  # panels, lanes and text: not a blank or single-colour window


def test_a_broken_project_file_is_reported_not_raised(qtbot, make_window, tmp_path):
    bad = tmp_path / "bad.radioplay"
    bad.write_text('{"format_version": 1, "cast": [], "lines": [{"id": "L1", "role": "HERO", "text": "x"}]}')
    window = make_window()
    assert not window.files.load(bad)
    assert "lines[0].role: unknown role 'HERO'" in window.last_error
    assert window.doc.path is None
