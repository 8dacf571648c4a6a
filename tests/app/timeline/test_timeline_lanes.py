"""The timeline's lanes, ruler and drag feedback as a producer meets them (issue 16)."""
# ruff: noqa: F811 - the fixtures come from tests/app/timeline/test_timeline_view.py and are named as arguments

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QImage, QPainter, QRegion, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from app.timeline.view import LANE_HEIGHT, Lane
from tests.support.timeline_view import CLIPS, LEFT, NOMOD, Clip, move, vp


def _render_region(widget: QWidget, image: QImage, region: QRect) -> None:
    """Repaint only ``region`` of ``widget`` onto ``image``, as the backing store does after
    ``update(region)``: the paint event's rect is the region, the rest keeps its pixels."""
    painter = QPainter(image)
    widget.render(painter, QPoint(region.topLeft()), QRegion(region), QWidget.RenderFlag(0))
    painter.end()


def test_ruler_labels_repaint_whole_when_the_playhead_crosses_them(view):
    ruler = view.ruler
    assert view.zoom() == 100.0 and view.x_of(1.0) == 100.0  # a label "00:01" drawn right of x=100
    screen = ruler.grab().toImage()
    for seconds in (1.15, 1.3, 4.0):  # over the label's text, then away
        old = ruler._playhead_x
        view.set_playhead(seconds)
        for x in (old, ruler._playhead_x):
            _render_region(ruler, screen, QRect(x - 6, 0, 13, ruler.height()))
    fresh = ruler.grab().toImage()
    assert screen == fresh, "a label was clipped where the playhead repainted the ruler"


def test_lanes_are_exactly_the_cast_even_with_clips_of_a_previous_cast(view):
    assert [lane.name for lane in view.lanes()] == ["MAGGIE", "TOM", "NARRATOR"]
    view.set_lanes([Lane("ANNA", "#aa0000"), Lane("BEN", "#00aa00")])  # an import: a new cast
    assert [lane.name for lane in view.lanes()] == ["ANNA", "BEN"]
    assert view.clip_items() == []  # the old cast's clips went with their lanes
    view.set_clips([*CLIPS, Clip("N1", "ANNA", 0.0, 1.0)])  # a late snapshot of the old project
    assert [lane.name for lane in view.lanes()] == ["ANNA", "BEN"]
    assert [item.line_id for item in view.clip_items()] == ["N1"]
    assert view.scene().sceneRect().height() == 2 * view.lane_height()


def test_reset_scrolls_back_to_the_start(view):
    view.set_clips([*CLIPS, Clip("L99", "TOM", 120.0, 123.0)])
    view.horizontalScrollBar().setValue(5000)
    view.set_playhead(60.0)
    view.reset([Lane("ANNA", "#aa0000")])
    assert view.horizontalScrollBar().value() == 0 and view.verticalScrollBar().value() == 0
    assert view.playhead() == 0.0 and view.clip_items() == [] and view.loop_region() is None
    assert [lane.name for lane in view.lanes()] == ["ANNA"]


def test_lane_height_is_adjustable_from_the_view_menu_and_ctrl_shift_wheel(qtbot, view):
    assert view.lane_height() == LANE_HEIGHT
    view.taller_lanes_action.trigger()
    taller = view.lane_height()
    assert taller > LANE_HEIGHT
    item = view.clip_item("L2")  # TOM, the second lane
    assert taller < item.scenePos().y() < 2 * taller
    assert view.lane_span(1)[1] == taller
    view.shorter_lanes_action.trigger()
    view.shorter_lanes_action.trigger()
    assert view.lane_height() < LANE_HEIGHT
    zoom = view.zoom()
    before = view.lane_height()
    pos = QPointF(vp(view, 1.0, 0))
    event = QWheelEvent(pos, view.viewport().mapToGlobal(pos), QPoint(), QPoint(0, 120), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), event)
    assert view.lane_height() > before and view.zoom() == zoom  # lanes, not time
    assert view.taller_lanes_action in view.view_actions and view.shorter_lanes_action in view.view_actions


def test_dragging_a_clip_says_what_the_drop_will_do_before_release(qtbot, view):
    asked: list[tuple[str, float]] = []

    def describe(line_id: str, start: float) -> str:
        asked.append((line_id, start))
        return f"pause {start - 4.5:.1f} s"

    view.drag.describe = describe
    hint = view.drag.hint
    assert not hint.isVisible()
    w = view.viewport()
    QTest.mousePress(w, LEFT, NOMOD, vp(view, 5.5, 2))  # NARRATOR's clip L3 (5.0 .. 7.0)
    move(w, vp(view, 5.8, 2), Qt.KeyboardModifier.ShiftModifier)
    move(w, vp(view, 6.5, 2), Qt.KeyboardModifier.ShiftModifier)
    assert asked and asked[-1][0] == "L3" and asked[-1][1] == view.clip_item("L3").start
    assert hint.isVisible() and hint.text() == "pause 1.5 s"
    # the hint sits by the clip, inside the visible lanes
    clip = view.clip_item("L3").sceneBoundingRect()
    assert abs(hint.sceneBoundingRect().left() - clip.left()) < 2
    assert view.mapToScene(view.viewport().rect()).boundingRect().contains(hint.sceneBoundingRect())
    with qtbot.waitSignal(view.clip_moved):
        QTest.mouseRelease(w, LEFT, NOMOD, vp(view, 6.5, 2))
    assert not hint.isVisible()


def test_escape_hides_the_drop_hint(qtbot, view):
    view.drag.describe = lambda line_id, start: "pinned"
    w = view.viewport()
    QTest.mousePress(w, LEFT, NOMOD, vp(view, 3.5, 1))
    move(w, vp(view, 4.4, 1))
    assert view.drag.hint.isVisible()
    QTest.keyClick(view, Qt.Key.Key_Escape)
    assert not view.drag.hint.isVisible()
    assert view.clip_item("L2").start == 3.0


def test_lane_meters_read_dbfs_on_a_scale_and_light_only_on_clipping(view):
    header = view.header
    view.set_lane_levels({"MAGGIE": -3.0, "TOM": -20.0}, {"MAGGIE": -1.0, "TOM": -12.0})
    assert header.scale_marks()  # dBFS marks are drawn under the bars
    assert all(label.lstrip("-").isdigit() for _, label in header.scale_marks())
    assert not header.clipped("MAGGIE")  # loud is not clipping
    view.set_lane_levels({"MAGGIE": 0.0, "TOM": -20.0}, {"MAGGIE": 0.0, "TOM": -12.0})
    assert header.clipped("MAGGIE") and not header.clipped("TOM")
    view.set_lane_levels({"MAGGIE": -30.0}, {"MAGGIE": -30.0})
    assert header.clipped("MAGGIE")  # latched until clicked
    QTest.mouseClick(header, LEFT, NOMOD, header.clip_rect(0).center().toPoint())
    assert not header.clipped("MAGGIE")
    assert not header.grab().isNull()

