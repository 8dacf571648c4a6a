"""Staging in the studio: the scene heading shows its room, the Room, Perspective and
Position menus edit the project (undoably), and the timeline draws a staged line's
movement on its clip. A real window offscreen, on the bundled sample."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.script.staging import perspective_menu, position_menu, room_menu
from app.shell.main_window import MainWindow
from engine.project.staging import ROOM_PRESETS
from tests.support.paths import SAMPLE


@pytest.fixture
def window(make_window: Callable[..., MainWindow], tmp_path: Path) -> MainWindow:
    """The bundled sample in a real window (tests/support/studio.py's make_window closes it)."""
    path = tmp_path / "play.radioplay"
    shutil.copy(SAMPLE, path)
    return make_window(path)


def _action(menu: Any, text: str) -> Any:
    return next(a for a in menu.actions() if a.text() == text)


def test_scene_heading_shows_its_room_and_the_room_menu_changes_it(window: MainWindow) -> None:
    model = window.script.model
    row = next(r for r in range(model.rowCount()) if model.is_scene_row(r) and model.scene_of_row(r) == "S3")
    shown = model.index(row, 0).data(Qt.ItemDataRole.DisplayRole)
    assert "cellar (RT60 1.1 s, heading says ARCHIVE)" in shown
    menu = room_menu(window.doc, "S3", window)
    assert [a.text() for a in menu.actions() if a.isChecked()] == ["cellar  (1.1 s)"]
    _action(menu, "cathedral  (4 s)").trigger()
    scene = next(s for s in window.doc.project.scenes if s.id == "S3")
    assert scene.room == ROOM_PRESETS["cathedral"] and scene.room_evidence == "set by hand"
    assert "cathedral (RT60 4 s, set by hand)" in model.index(row, 0).data(Qt.ItemDataRole.DisplayRole)
    window.doc.undo.undo()
    assert next(s for s in window.doc.project.scenes if s.id == "S3").room == ROOM_PRESETS["cellar"]


def test_perspective_and_position_menus_set_the_line(window: MainWindow, qtbot: Any) -> None:
    line = window.doc.project.lines[1]
    _action(perspective_menu(window.doc, line.id, window), "door").trigger()
    assert (line.perspective, line.perspective_evidence) == ("door", "set by hand")
    _action(position_menu(window.doc, line.id, window), "Walk left to right").trigger()
    assert line.position is not None and line.position.path == ((0.0, -0.8, 2.0), (1.0, 0.8, 2.0))
    window.doc.undo.undo()
    assert line.position is None
    window.doc.undo.undo()
    assert line.perspective == ""


def test_a_moving_lines_clip_carries_its_path(window: MainWindow, qtbot: Any) -> None:
    moving = next(line for line in window.doc.project.lines if line.perspective == "moving-away")
    items = window.timeline._scene.clips
    qtbot.waitUntil(lambda: moving.id in items and bool(items[moving.id].position), timeout=10_000)
    path = items[moving.id].position
    assert path[0][2] < path[-1][2] and path[0][1] != path[-1][1]  # away and to the side
    plain = next(line for line in window.doc.project.lines if not line.perspective and line.position is None)
    assert items[plain.id].position == ()


def test_the_perspective_menu_offers_the_devices_apart_and_a_pick_stages_the_line(window: MainWindow) -> None:
    line = window.doc.project.lines[1]
    menu = perspective_menu(window.doc, line.id, window)
    texts = [a.text() for a in menu.actions()]
    devices = texts[texts.index("Heard through a device") + 1:]
    assert devices == ["phone", "radio", "tannoy", "intercom"]
    assert "400-2900 Hz" in _action(menu, "radio").toolTip()
    _action(menu, "radio").trigger()
    assert (line.perspective, line.perspective_evidence) == ("radio", "set by hand")
    room_texts = [a.text() for a in room_menu(window.doc, "S1", window).actions()]
    outside = room_texts[room_texts.index("Outside (no reverberation)") + 1:]
    assert {"gallery  (outdoor)", "harbour  (outdoor)", "open air  (outdoor)"} <= set(outside)
    assert "lamp room  (1 s)" in room_texts[:room_texts.index("Outside (no reverberation)")]


def test_a_notes_staging_words_show_as_the_lines_perspective(window: MainWindow) -> None:
    from app.script.directions import note_display, note_tooltip

    assert note_display("on radio") == "(on radio)"  # no "?": it is not ignored
    assert "Staged (the line's perspective" in note_tooltip("on radio") and "on radio (radio)" in note_tooltip(
        "on radio")
    assert "Not performed" not in note_tooltip("on radio")
