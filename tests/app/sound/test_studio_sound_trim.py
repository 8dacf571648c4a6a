"""Fades and trims dragged on a selected sound clip on the timeline, and a sound lane muted
by a click on its header: each one undoable edit, with real mouse events on a real window."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import os

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QGraphicsRectItem

from app.timeline.items import ClipItem
from tests.support.studio import scored_file, wait_engine


def _clip(window, clip_id):
    return next(c for c in window.doc.project.sounds if c.id == clip_id)


def _at(timeline, item: ClipItem, x: float, y: float) -> QPoint:
    """Viewport point at (x, y) in the clip's own coordinates."""
    return timeline.mapFromScene(item.mapToScene(QPointF(x, y)))


def _drag(qtbot, timeline, start: QPoint, dx: int) -> str:
    """Press, move, release; the drag hint's text just before the release."""
    viewport = timeline.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for step in (dx // 2, dx):
        qtbot.mouseMove(viewport, start + QPoint(step, 0))
    hint = timeline.drag.hint.text() if timeline.drag.hint.isVisible() else ""
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(dx, 0))
    assert not timeline.drag.hint.isVisible()
    return hint


def _selected_rain(qtbot, window):
    wait_engine(qtbot, window)
    timeline = window.timeline
    qtbot.waitUntil(lambda: timeline.clip_item("X1") is not None and not timeline.clip_item("X1").estimated,
                    timeout=30_000)
    timeline.set_zoom(80.0)
    rain = timeline.clip_item("X1")
    h = rain.boundingRect().height()
    qtbot.mouseClick(timeline.viewport(), Qt.MouseButton.LeftButton, pos=_at(timeline, rain, 40.0, h / 2))
    assert timeline.selected_line() == "X1"
    return timeline, rain


def test_fade_handles_drag_the_fades_and_undo_restores_them(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    timeline, rain = _selected_rain(qtbot, window)
    w = rain.boundingRect().width()
    hint = _drag(qtbot, timeline, _at(timeline, rain, 4.0, 4.0), 80)  # the fade-in handle, 1 s right
    assert abs(_clip(window, "X1").fade_in - 1.0) < 0.05 and hint.startswith("fade in 1.0")
    assert abs(_clip(window, "X1").offset) < 1e-9  # the clip did not move
    _drag(qtbot, timeline, _at(timeline, rain, w - 4.0, 4.0), -40)  # the fade-out handle, 0.5 s left
    assert abs(_clip(window, "X1").fade_out - 0.5) < 0.05
    qtbot.wait(50)  # the edit has redrawn the clip and its handles
    timeline.set_zoom(160.0)  # the handles follow the zoom: the fade-in one sits 1 s in
    boxes = lambda: [c for c in timeline.clip_item("X1").childItems() if isinstance(c, QGraphicsRectItem)]  # noqa: E731
    qtbot.waitUntil(lambda: len(boxes()) == 2 and abs(boxes()[0].pos().x() - _clip(window, "X1").fade_in * 160) < 1)
    timeline.set_zoom(80.0)
    window.doc.undo.undo()
    assert _clip(window, "X1").fade_out == 0.0 and _clip(window, "X1").fade_in > 0.9
    window.doc.undo.undo()
    assert _clip(window, "X1").fade_in == 0.0
    if os.environ.get("RADIOPLAY_SHOTS"):  # a look at the handles: RADIOPLAY_SHOTS=folder
        window.doc.undo.redo()
        window.doc.undo.redo()
        window.resize(1600, 1000)
        qtbot.wait(300)
        window.grab().save(os.path.join(os.environ["RADIOPLAY_SHOTS"], "sound-clip-handles.png"))


def test_edge_drags_trim_a_sound_clip(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    timeline, rain = _selected_rain(qtbot, window)
    w, h = rain.boundingRect().width(), rain.boundingRect().height()
    _drag(qtbot, timeline, _at(timeline, rain, w - 1.0, h / 2), -80)  # the right edge, 1 s in
    assert _clip(window, "X1").end == "length" and abs(_clip(window, "X1").length - 4.0) < 0.05
    _drag(qtbot, timeline, _at(timeline, rain, 1.0, h / 2), 80)  # the left edge, 1 s in: the end stays
    trimmed = _clip(window, "X1")
    assert abs(trimmed.offset - 1.0) < 0.05 and abs(trimmed.length - 3.0) < 0.05
    window.doc.undo.undo()
    assert _clip(window, "X1").offset == 0.0 and abs(_clip(window, "X1").length - 4.0) < 0.05


def test_a_click_on_a_sound_lanes_header_mutes_it(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    wait_engine(qtbot, window)
    timeline = window.timeline
    top, height = timeline.lane_span(3)  # AMBIENCE
    at = QPoint(20, int(top + height / 2))
    qtbot.mouseClick(timeline.header, Qt.MouseButton.LeftButton, pos=at)
    assert window.doc.project.sound_lane("AMBIENCE").mute
    assert timeline.lanes()[3].muted
    qtbot.mouseClick(timeline.header, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, pos=at)
    assert window.doc.project.sound_lane("AMBIENCE").solo
    window.doc.undo.undo()
    window.doc.undo.undo()
    assert not window.doc.project.sound_lane("AMBIENCE").mute
    top, height = timeline.lane_span(0)  # a role's lane: not a sound lane, nothing happens
    qtbot.mouseClick(timeline.header, Qt.MouseButton.LeftButton, pos=QPoint(20, int(top + height / 2)))
    assert not window.doc.undo.canUndo()
