"""The cast-lane timeline widget, driven with plain clip records and synthetic mouse input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QKeySequence, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.timeline.ruler import format_time, tick_steps
from app.timeline.view import LANE_HEIGHT, ZOOM_PRESETS, Lane, TimelineView
from tests.support.timeline_view import CLIPS, LANES, LEFT, NOMOD, Clip, drag, move, vp

# ------------------------------------------------------------------------------ lanes and clips


def test_one_lane_per_role_and_clips_at_their_times(view):
    assert [lane.name for lane in view.lanes()] == ["MAGGIE", "TOM", "NARRATOR"]
    assert sorted(i.line_id for i in view.clip_items()) == ["L1", "L2", "L3", "L4"]
    for zoom in (100.0, 37.5):
        view.set_zoom(zoom, 0.0)
        view.horizontalScrollBar().setValue(0)
        for clip in CLIPS:
            item = view.clip_item(clip.line_id)
            lane = [lane.name for lane in LANES].index(clip.role)
            assert item.scenePos().x() == pytest.approx(clip.start * zoom)
            assert item.boundingRect().width() - 2 == pytest.approx(max(2.0, (clip.end - clip.start) * zoom))
            assert lane * LANE_HEIGHT < item.scenePos().y() < (lane + 1) * LANE_HEIGHT
            # what the producer sees: the clip's left edge at the time's viewport x
            assert view.mapFromScene(item.scenePos()).x() == pytest.approx(view.x_of(clip.start), abs=1)
    # lane headers are laid out top to bottom in lane order
    tops = [view.lane_span(i)[0] for i in range(3)]
    assert tops == sorted(tops) and tops[1] - tops[0] == LANE_HEIGHT


def test_clips_of_roles_outside_the_cast_are_not_shown_and_muted_lanes_are_dimmed(view):
    view.set_clips([*CLIPS, Clip("L9", "GHOST", 1.0, 2.0)])
    assert [lane.name for lane in view.lanes()] == ["MAGGIE", "TOM", "NARRATOR"]  # the lanes are the cast
    assert view.clip_item("L9") is None
    assert view.clip_item("L3").opacity() < 1.0  # NARRATOR is muted
    assert view.clip_item("L1").opacity() == 1.0
    view.set_lanes([Lane("MAGGIE", "#e6194b", muted=True), *LANES[1:]])
    assert view.clip_item("L1").opacity() < 1.0


def test_set_clips_updates_items_in_place_and_removes_gone_lines(view):
    before = view.clip_item("L2")
    view.set_clips([Clip("L1", "MAGGIE", 0.0, 2.13), Clip("L2", "TOM", 3.5, 5.0)])
    assert view.clip_item("L2") is before
    assert before.scenePos().x() == pytest.approx(350.0)
    assert view.clip_item("L3") is None and len(view.clip_items()) == 2


# ------------------------------------------------------------------------------ estimated clips


def test_estimated_clips_are_outlines_until_their_audio_arrives(qtbot, view, peaks):
    item = view.clip_item("L4")
    assert item.estimated and item.outline_style() == Qt.PenStyle.DashLine
    view.viewport().grab()  # paint everything once
    assert "L4" not in {lid for lid, _ in peaks.calls}  # no waveform is asked for an estimate
    assert item.cached_columns() == []
    assert view.clip_item("L1").cached_columns() == [round(2.13 * 100)]

    view.set_clips([*CLIPS[:3], Clip("L4", "MAGGIE", 8.0, 9.2, estimated=False)])
    assert view.clip_item("L4") is item
    assert not item.estimated and item.outline_style() == Qt.PenStyle.SolidLine
    view.viewport().grab()
    assert ("L4", 120) in peaks.calls
    assert item.cached_columns() == [120]


def test_waveform_paths_are_cached_per_zoom_level(view, peaks):
    item = view.clip_item("L1")
    view.viewport().grab()
    calls = item.peaks_calls
    view.viewport().grab()
    assert item.peaks_calls == calls  # repaint at the same zoom: no new peaks
    view.set_zoom(200.0, 0.0)
    view.viewport().grab()
    assert item.peaks_calls == calls + 1
    view.set_zoom(100.0, 0.0)
    view.viewport().grab()
    assert item.peaks_calls == calls + 1  # back to a cached zoom level
    assert sorted(item.cached_columns()) == [213, 426]


def test_a_ready_clip_without_peaks_yet_asks_again_on_the_next_paint(view, peaks):
    peaks.missing.add("L2")
    view.invalidate_peaks(["L2"])
    peaks.calls.clear()
    view.viewport().grab()
    n = peaks.calls.count(("L2", 150))
    assert n >= 1 and view.clip_item("L2").cached_columns() == []
    peaks.missing.clear()
    view.clip_item("L2").update()
    view.viewport().grab()
    assert view.clip_item("L2").cached_columns() == [150]


# ------------------------------------------------------------------------------ dragging


def test_drag_snaps_the_clip_start_to_another_clips_edge(qtbot, view):
    # L2 (TOM, 3.0-4.5) dragged left by 84 px: free placement would be 2.16 s, 3 px from L1's
    # end (2.13) and 4 px from the 0.2 s grid line (2.2): clip edges win.
    press = vp(view, 3.2, 1)
    with qtbot.waitSignal(view.clip_moved) as moved:
        drag(view, press, press + QPoint(-84, 0))
    assert moved.args[0] == "L2"
    assert moved.args[1] == pytest.approx(2.13)
    assert view.clip_item("L2").scenePos().x() == pytest.approx(213.0)


def test_drag_snaps_the_clip_end_too(qtbot, view):
    # L2 is 1.5 s long; dragged so its end lands at 4.96 s, 4 px from L3's start (5.0).
    press = vp(view, 3.2, 1)
    with qtbot.waitSignal(view.clip_moved) as moved:
        drag(view, press, press + QPoint(46, 0))
    assert moved.args[1] == pytest.approx(3.5)


def test_drag_snaps_to_the_grid_away_from_clips(qtbot, view):
    assert tick_steps(100.0)[1] == pytest.approx(0.2)
    press = vp(view, 3.2, 1)
    with qtbot.waitSignal(view.clip_moved) as moved:
        drag(view, press, press + QPoint(317, 0))  # free: 6.17 s; grid 6.2 is 3 px away
    assert moved.args[1] == pytest.approx(6.2)


def test_shift_places_freely_and_a_drop_over_a_clip_overlaps_it(qtbot, view):
    # L4 (MAGGIE, 8.0-9.0) dropped into L1 (MAGGIE, 0-2.13) at 1.07 s: no pushing, an overlap.
    press = vp(view, 8.5, 0)
    with qtbot.waitSignal(view.clip_moved) as moved:
        drag(view, press, press + QPoint(-693, 0), Qt.KeyboardModifier.ShiftModifier)
    assert moved.args == ["L4", pytest.approx(1.07)]
    l1, l4 = view.clip_item("L1"), view.clip_item("L4")
    assert l4.start < l1.end and l1.start == 0.0  # the clip it landed on did not move


def test_a_click_on_a_clip_selects_it_without_moving(qtbot, view):
    with qtbot.waitSignal(view.clip_selected) as selected, qtbot.assertNotEmitted(view.clip_moved):
        QTest.mouseClick(view.viewport(), LEFT, NOMOD, vp(view, 3.5, 1))
    assert selected.args == ["L2"]
    assert view.selected_line() == "L2" and view.clip_item("L2").selected


def test_escape_cancels_a_drag(qtbot, view):
    w = view.viewport()
    press = vp(view, 3.2, 1)
    with qtbot.assertNotEmitted(view.clip_moved):
        QTest.mousePress(w, LEFT, NOMOD, press)
        move(w, press + QPoint(150, 0))
        assert view.clip_item("L2").start > 3.0
        QTest.keyClick(view, Qt.Key.Key_Escape)
        QTest.mouseRelease(w, LEFT, NOMOD, press + QPoint(150, 0))
    assert view.clip_item("L2").start == pytest.approx(3.0)


def test_a_click_on_an_empty_lane_seeks(qtbot, view):
    with qtbot.waitSignal(view.seek_requested) as seek, qtbot.assertNotEmitted(view.clip_selected):
        QTest.mouseClick(view.viewport(), LEFT, NOMOD, vp(view, 6.5, 0))
    assert seek.args[0] == pytest.approx(6.5, abs=0.01)


# ------------------------------------------------------------------------------ zoom


def test_zoom_actions_carry_their_key_bindings(view):
    assert [a.shortcut() for a in view.zoom_preset_actions] == [QKeySequence(f"Ctrl+{i}") for i in (1, 2, 3)]
    assert view.fit_action.shortcut() == QKeySequence("Ctrl+0")
    assert QKeySequence("Ctrl+=") in view.zoom_in_action.shortcuts()
    assert view.zoom_out_action.shortcut() == QKeySequence(QKeySequence.StandardKey.ZoomOut)
    for a in (*view.zoom_preset_actions, view.fit_action, view.zoom_in_action, view.zoom_out_action):
        assert a in view.view_actions and a in view.actions()  # active on the widget, listed for menus


@pytest.mark.parametrize("preset", [0, 1, 2])
def test_zoom_presets_change_the_scale_around_the_mouse(qtbot, view, preset):
    view.set_duration(600.0)
    view.set_zoom(20.0, 0.0)
    view.horizontalScrollBar().setValue(400)  # scrolled: the anchor must account for it
    assert view.time_at(0) == pytest.approx(20.0)
    move(view.viewport(), QPoint(300, 30), buttons=Qt.MouseButton.NoButton)
    before = view.time_at(300)
    view.zoom_preset_actions[preset].trigger()
    assert view.zoom() == ZOOM_PRESETS[preset]
    assert view.time_at(300) == pytest.approx(before, abs=1.0 / view.zoom())
    assert view.clip_item("L2").scenePos().x() == pytest.approx(3.0 * ZOOM_PRESETS[preset])


def test_zoom_in_and_out_keep_the_point_under_the_mouse(qtbot, view):
    move(view.viewport(), QPoint(420, 30), buttons=Qt.MouseButton.NoButton)
    t = view.time_at(420)
    view.zoom_in_action.trigger()
    assert view.zoom() == 200.0 and view.time_at(420) == pytest.approx(t, abs=1 / 200)
    view.zoom_out_action.trigger()
    assert view.zoom() == 100.0 and view.time_at(420) == pytest.approx(t, abs=1 / 100)


def test_ctrl_wheel_zooms_around_the_mouse_and_plain_wheel_does_not(qtbot, view):
    def wheel(x: int, mods) -> None:
        pos = QPointF(x, 40)
        event = QWheelEvent(pos, view.viewport().mapToGlobal(pos), QPoint(0, 0), QPoint(0, 120),
                            Qt.MouseButton.NoButton, mods, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(view.viewport(), event)

    t = view.time_at(250)
    wheel(250, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() == pytest.approx(125.0)
    assert view.time_at(250) == pytest.approx(t, abs=1 / 125)
    wheel(250, NOMOD)
    assert view.zoom() == pytest.approx(125.0)


def test_fit_shows_the_whole_production(view):
    view.set_duration(95.0)
    view.fit_action.trigger()
    width = view.viewport().width()
    assert view.x_of(0.0) == pytest.approx(0.0, abs=1)
    assert 0.8 * width < view.x_of(95.0) <= width


# ------------------------------------------------------------------------------ ruler


def test_ruler_click_seeks(qtbot, view):
    with qtbot.waitSignal(view.seek_requested) as seek:
        QTest.mouseClick(view.ruler, LEFT, NOMOD, QPoint(round(view.x_of(4.25)), 10))
    assert seek.args[0] == pytest.approx(4.25, abs=0.01)


def test_ruler_drag_selects_a_loop_region_and_double_click_clears_it(qtbot, view):
    a, b = round(view.x_of(1.5)), round(view.x_of(3.7))
    with qtbot.waitSignal(view.loop_changed) as loop, qtbot.assertNotEmitted(view.seek_requested):
        QTest.mousePress(view.ruler, LEFT, NOMOD, QPoint(b, 10))  # right to left works too
        move(view.ruler, QPoint((a + b) // 2, 10))
        move(view.ruler, QPoint(a, 10))
        QTest.mouseRelease(view.ruler, LEFT, NOMOD, QPoint(a, 10))
    start, end = loop.args[0]
    assert start == pytest.approx(1.5, abs=0.01) and end == pytest.approx(3.7, abs=0.01)
    assert view.loop_region() == loop.args[0]
    assert view._scene.loop_shade.isVisible()
    assert view._scene.loop_shade.rect().left() == pytest.approx(start * 100)

    with qtbot.waitSignal(view.loop_changed) as cleared:
        QTest.mouseDClick(view.ruler, LEFT, NOMOD, QPoint(a + 5, 10))
    assert cleared.args == [None]
    assert view.loop_region() is None and not view._scene.loop_shade.isVisible()


def test_loop_edges_snap_to_clip_edges(qtbot, view):
    # Dragging from 2.16 s to 4.47 s snaps to L1's end (2.13) and L2's end (4.5).
    a, b = round(view.x_of(2.16)), round(view.x_of(4.47))
    with qtbot.waitSignal(view.loop_changed) as loop:
        QTest.mousePress(view.ruler, LEFT, NOMOD, QPoint(a, 10))
        move(view.ruler, QPoint(b, 10))
        QTest.mouseRelease(view.ruler, LEFT, NOMOD, QPoint(b, 10))
    assert loop.args[0] == (pytest.approx(2.13), pytest.approx(4.5))


def test_set_loop_shows_a_region_without_emitting(qtbot, view):
    with qtbot.assertNotEmitted(view.loop_changed):
        view.set_loop((6.0, 2.0))
    assert view.loop_region() == (2.0, 6.0) and view._scene.loop_shade.isVisible()


@pytest.mark.parametrize("seconds, decimals, text", [
    (0.0, 0, "00:00"), (83.4, 1, "01:23.4"), (59.96, 1, "01:00.0"), (3723.0, 0, "1:02:03"), (0.25, 2, "00:00.25"),
])
def test_ruler_labels_read_mm_ss(seconds, decimals, text):
    assert format_time(seconds, decimals) == text


def test_ruler_ticks_adapt_to_the_zoom():
    steps = [tick_steps(z)[0] for z in (1.0, 10.0, 100.0, 1000.0)]
    assert steps == sorted(steps, reverse=True) and len(set(steps)) == 4
    for z in (0.5, 3.0, 40.0, 700.0):
        major, minor = tick_steps(z)
        assert major * z >= 72 and minor < major


# ------------------------------------------------------------------------------ playhead and selection


class _PaintSpy(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.rects: list[QRect] = []

    def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint:
            self.rects.extend(QRect(r) for r in event.region())
        return False


def test_set_playhead_repaints_only_a_strip(qtbot, view):
    view.viewport().repaint()
    spy = _PaintSpy()
    view.viewport().installEventFilter(spy)
    view.set_playhead(3.0)
    qtbot.waitUntil(lambda: bool(spy.rects))
    QApplication.processEvents()
    view.viewport().removeEventFilter(spy)
    assert view._scene.playhead.scenePos().x() == pytest.approx(300.0)
    # two thin strips (where the line was, where it is), not the lanes between them
    assert sum(r.width() for r in spy.rects) < 0.05 * view.viewport().width(), spy.rects
    assert any(r.left() <= view.x_of(3.0) <= r.right() for r in spy.rects)


def test_playhead_follows_playback_past_the_right_edge(view):
    width = view.viewport().width()
    view.set_playhead(1.0)
    t_edge = view.time_at(width - 5)
    view.set_playhead(t_edge + 0.2)
    assert 0 <= view.x_of(t_edge + 0.2) < width / 2
    view.follow_action.setChecked(False)
    view.set_playhead(t_edge + 30.0)
    assert view.x_of(t_edge + 30.0) > width


def test_select_line_scrolls_to_the_clip_without_emitting(qtbot, view):
    view.set_clips([*CLIPS, Clip("L99", "TOM", 120.0, 123.0)])
    assert view.x_of(120.0) > view.viewport().width()
    with qtbot.assertNotEmitted(view.clip_selected):
        view.select_line("L99")
    assert 0 <= view.x_of(120.0) and view.x_of(123.0) <= view.viewport().width()
    assert view.selected_line() == "L99" and view.clip_item("L99").selected
    view.select_line("L1")
    assert not view.clip_item("L99").selected


def test_double_click_on_a_clip_activates_it(qtbot, view):
    with qtbot.waitSignal(view.clip_activated) as activated:
        QTest.mouseDClick(view.viewport(), LEFT, NOMOD, vp(view, 1.0, 0))
    assert activated.args == ["L1"]


def test_five_hundred_clips_lay_out_and_paint(qtbot, peaks):
    v = TimelineView(peaks)
    qtbot.addWidget(v)
    v.resize(1000, 600)
    v.set_lanes([Lane(f"R{i}", "#808080") for i in range(8)])
    clips = [Clip(f"L{i}", f"R{i % 8}", i * 1.5, i * 1.5 + 1.2, estimated=i % 3 == 0) for i in range(500)]
    v.set_clips(clips)
    v.show()
    v.set_zoom(50.0, 0.0)
    v.viewport().grab()
    asked = {lid for lid, _ in peaks.calls}
    # only what is on screen asked for waveforms
    assert 0 < len(asked) < 40
    v.set_clips(clips)  # a tick with nothing new leaves every item alone
    assert len(v.clip_items()) == 500


def test_lane_levels_show_under_the_lane_names(view):
    now = [100.0]
    view.header.clock = lambda: now[0]
    view.set_lane_levels({"MAGGIE": -6.0, "TOM": -math.inf})
    assert view.header.level("MAGGIE") == pytest.approx(0.9)
    assert view.header.level("TOM") == 0.0 and view.header.level("NARRATOR") == 0.0
    now[0] += 0.5  # a bar falls at 20 dB/s, it does not jump down
    view.set_lane_levels({"MAGGIE": -70.0})
    assert view.header.level("MAGGIE") == pytest.approx(0.73)
    now[0] += 3.0
    view.set_lane_levels({"MAGGIE": -70.0})
    assert view.header.level("MAGGIE") == 0.0
    assert not view.header.grab().isNull()


def test_snapping_math_prefers_clip_edges_and_respects_the_threshold():
    from app.timeline.snap import snap, snap_to_grid

    targets = np.array([0.0, 2.13, 5.0])
    # start 2.16: clip edge 2.13 (3 px at 100 px/s) wins over grid 2.2 (4 px)
    assert snap((2.16, 3.66), targets, 0.2, 100.0) == (pytest.approx(-0.03), 2.13)
    # the end edge can snap too: end 4.96 -> 5.0
    assert snap((3.46, 4.96), targets, 0.2, 100.0) == (pytest.approx(0.04), 5.0)
    # nothing within 8 px at 20 px/s: half a second is 10 px
    assert snap_to_grid((3.5,), 1.0, 20.0) is None
    assert snap((3.5,), np.array([2.5]), 5.0, 20.0) is None
    assert snap_to_grid((3.5,), 1.0, 10.0) is not None  # 5 px: snaps
