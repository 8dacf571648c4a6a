"""Sound design in the studio: sound lanes under the cast lanes with their
clips (waveforms, a red clip for a missing file), the Sounds panel's lane
settings and library, dragging a sound clip (undoable, snapping to a line),
and a sound dropped on a placeholder or a lane."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt, QUrl

from app.shell.context_menus import lane_menu_at, timeline_menu
from app.sound.lanes import PROBLEM_COLOUR, lane_key
from app.timeline.scene import LaneKind
from tests.support.studio import scored_file, wait_engine

RATE = 48_000




def test_sound_lanes_sit_under_the_cast_with_their_clips(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    wait_engine(qtbot, window)
    timeline = window.timeline
    assert [lane.name for lane in timeline.lanes()] == ["ROLE0", "ROLE1", lane_key("FX"), lane_key("AMBIENCE")]
    assert timeline.lanes()[3].detail == "duck -6"
    qtbot.waitUntil(lambda: timeline.clip_item("X3") is not None and not timeline.clip_item("X1").estimated,
                    timeout=30_000)
    rain, gong, door = (timeline.clip_item(c) for c in ("X1", "X2", "X3"))
    assert rain.role == lane_key("AMBIENCE") and rain.duration == 5.0
    assert gong.estimated and "a gong (no sound yet)" in gong.label
    assert door._colour.name() == PROBLEM_COLOUR and "door-missing.wav" in door.toolTip()
    peaks = window.engine.peaks("X1", 50)
    assert peaks is not None and float(peaks.max()) > 0.15  # the looped rain's waveform
    panel = window.sound_panel
    assert panel.lanes.rowCount() == 2
    qtbot.waitUntil(lambda: panel.library is not None, timeout=30_000)
    names = [panel.list.item(i).text().split()[0] for i in range(panel.list.count())]
    assert "rain" in names and "bell" in names and "thunder" in names  # sounds/ and the starter sounds
    panel.search.setText("bel")
    assert panel.list.count() == 1


def test_moving_a_sound_clip_is_one_undoable_edit_and_snaps_to_lines(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    wait_engine(qtbot, window)
    qtbot.waitUntil(lambda: any(v.clip_id == "X1" for v in window.presenter.sounds()), timeout=30_000)
    start = next(v.start for v in window.presenter.sounds() if v.clip_id == "X1")
    window.move_clip("X1", start + 1.5)
    moved = next(c for c in window.doc.project.sounds if c.id == "X1")
    assert moved.anchor == "cue" and moved.offset == 1.5
    line = next(c for c in window.presenter.clips() if c.line_id == "L0002")
    window.move_clip("X1", line.end)
    snapped = next(c for c in window.doc.project.sounds if c.id == "X1")
    assert (snapped.anchor, snapped.line, snapped.offset) == ("line_end", "L0002", 0.0)
    window.doc.undo.undo()
    window.doc.undo.undo()
    assert next(c for c in window.doc.project.sounds if c.id == "X1").offset == 0.0
    # A lane's settings are undoable too, and reach the lanes' headers.
    panel = window.sound_panel
    panel._edit_ducking("AMBIENCE", -9.0)
    assert window.doc.project.sound_lane("AMBIENCE").ducking.depth_db == -9.0
    assert window.timeline.lanes()[3].detail == "duck -9"
    window.doc.undo.undo()
    assert window.timeline.lanes()[3].detail == "duck -6"


def test_dropping_a_sound_assigns_a_placeholder_or_adds_a_clip(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    wait_engine(qtbot, window)
    timeline, panel = window.timeline, window.sound_panel
    qtbot.waitUntil(lambda: timeline.clip_item("X2") is not None, timeout=30_000)
    bell = tmp_path / "sounds" / "bell.wav"
    gong = timeline.clip_item("X2")
    at = timeline.mapFromScene(gong.scenePos() + QPointF(2.0, 4.0))
    assert panel.drop(bell, at.x(), at.y())
    assert next(c for c in window.doc.project.sounds if c.id == "X2").file == str(bell)
    top, height = timeline.lane_span(2)  # the FX lane, somewhere empty
    assert panel.drop(bell, timeline.x_of(0.2), top + height / 2)
    added = window.doc.project.sounds[-1]
    assert added.lane == "FX" and added.anchor == "time" and abs(added.offset - 0.2) < 0.05
    assert not panel.drop(bell, timeline.x_of(0.2), timeline.lane_span(0)[0] + 2)  # a cast lane: refused
    assert QUrl.fromLocalFile(str(bell)).isLocalFile()


def test_the_selected_clip_form_edits_and_removes_a_clip(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    form = window.sound_panel.form
    window.timeline.clip_selected.emit("X1")
    assert form.clip_id == "X1" and form.loop.isChecked() and form.length.value() == 5.0
    form.fade_in.setValue(2.0)
    form.length.setValue(0.0)  # the bed ends at the next clip or its scene again
    rain = next(c for c in window.doc.project.sounds if c.id == "X1")
    assert (rain.fade_in, rain.length, rain.end) == (2.0, None, "next")
    window.doc.undo.undo()
    assert form.length.value() == 5.0  # the form follows undo
    form.remove_clip()
    assert [c.id for c in window.doc.project.sounds] == ["X2", "X3"]
    window.doc.undo.undo()
    assert len(window.doc.project.sounds) == 3
    window.timeline.clip_selected.emit("L0001")  # a line: the form empties
    assert form.clip_id is None and not form.gain.isEnabled()


def test_a_sound_dragged_in_from_the_library_moves_with_a_hint_of_its_own(qtbot, make_window, tmp_path, tiny_voices):
    """Issue 30, item 3: dragging such a clip raised KeyError "unknown line" in the drop hint
    (it was asked as if the clip were a line) and spoke of a "pause before it"."""
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    wait_engine(qtbot, window)
    timeline, panel = window.timeline, window.sound_panel
    timeline.set_zoom(80.0)
    top, height = timeline.lane_span(2)  # the FX lane
    assert panel.drop(tmp_path / "sounds" / "bell.wav", timeline.x_of(0.5), top + height / 2)
    added = window.doc.project.sounds[-1]
    assert window.doc.sound_clip(added.id) is added
    qtbot.waitUntil(lambda: timeline.clip_item(added.id) is not None, timeout=30_000)
    assert timeline.clip_kind(added.id) is LaneKind.SOUND and timeline.clip_kind("L0001") is LaneKind.CAST
    item = timeline.clip_item(added.id)
    viewport = timeline.viewport()
    start = timeline.mapFromScene(item.mapToScene(QPointF(item.boundingRect().width() / 2, height / 2)))
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for dx in (40, 80):  # one second right, in two steps
        qtbot.mouseMove(viewport, start + QPoint(dx, 0))
    hint = timeline.drag.hint.text()
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(80, 0))
    assert "pause" not in hint and hint.startswith("bell starts at")
    moved = window.doc.sound_clip(added.id)
    assert moved is not None and moved.anchor == "time" and abs(moved.offset - 1.5) < 0.1
    assert window.doc.undo.undoText() == "Move sound"
    window.doc.undo.undo()
    assert abs(window.doc.sound_clip(added.id).offset - 0.5) < 0.05


def test_right_click_menus_follow_the_lane_kind(qtbot, make_window, tmp_path, tiny_voices):
    """A sound clip's and a sound lane's menus are the sound feature's (they were a line's and a
    role's, and raised KeyError)."""
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    timeline = window.timeline
    qtbot.waitUntil(lambda: timeline.clip_item("X2") is not None, timeout=30_000)
    gong = timeline.clip_item("X2")
    menu = timeline_menu(window, timeline.mapFromScene(gong.scenePos() + QPointF(2.0, 4.0)))
    assert menu is not None and menu.objectName() == "soundClipMenu"
    next(a for a in menu.actions() if a.text() == "Remove sound a gong").trigger()
    assert window.doc.sound_clip("X2") is None and [c.id for c in window.doc.project.sounds] == ["X1", "X3"]
    top, height = timeline.lane_span(3)  # AMBIENCE, somewhere empty
    menu = lane_menu_at(window, QPoint(2, int(top + height / 2)))
    assert menu is not None and menu.objectName() == "soundLaneMenu"
    next(a for a in menu.actions() if a.text() == "Mute AMBIENCE").trigger()
    assert window.doc.project.sound_lane("AMBIENCE").mute and timeline.lanes()[3].muted
    menu = lane_menu_at(window, QPoint(2, int(timeline.lane_span(0)[0] + 2)))
    assert menu is not None and menu.objectName() == "laneMenu"  # a role's lane keeps the role's menu
