"""The studio at 1600x1000 as a producer first sees it: panels whole and legible, lanes that
follow the project, drags that say what they will do, meters that rest when nothing plays."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QRectF

from app.cast.model import Col as CastCol
from engine.metrics.hub import MetricsHub
from engine.project.model import Line, Project, Role, Scene
from tests.support.paths import REPO, SAMPLE
from tests.support.studio import voice_everything, wait_engine
from tests.support.text_boxes import outside, overlaps, window_text_boxes

ARTIFACTS = Path(os.environ.get("RADIOPLAY_ARTIFACTS", REPO / "tests" / "app" / "artifacts"))
ORIGINS = {"playback": (0.05, 0.4), "audition": (0.2, 0.9), "export": (1.0, 3.0), "prerender": (5.0, 30.0)}


def _open_at_1600x1000(qtbot, make_window, path: Path):
    window = make_window(path, show=False)
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    return window


def _busy_snapshot(roles: list[str]):
    """A monitor's worth of activity for every role and origin (the engine's own hub type)."""
    hub = MetricsHub()
    for i, role in enumerate(roles):
        hub.set_role_priority(role, 10.0 ** (i % 5))
        hub.set_queue_depth(role, i % 3)
        for origin, (fast, slow) in ORIGINS.items():
            hub.record_request(role, origin, "role-priority", 0.01, fast, fast + (slow - fast) * i / len(roles), 1.0)
    hub.set_device_busy("infer-0", 0.8)
    hub.set_pool_stats("host", 30 * 2**20, 226 * 2**20, 200 * 2**20, 0.05)
    return hub.snapshot()


def test_the_default_layout_at_1600x1000_is_whole_and_legible(qtbot, make_window):
    window = _open_at_1600x1000(qtbot, make_window, SAMPLE)
    wait_engine(qtbot, window)
    window.presenter.timer.stop()  # what is drawn below stays put while it is measured
    roles = window.doc.project.role_names()
    monitor = window.monitor
    monitor.update_from(_busy_snapshot(roles))
    qtbot.wait(50)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(ARTIFACTS / "studio-1600x1000.png"))

    # Every cast column there, none cut ("ariation"); who each role is and its voice in view (the
    # script keeps most of the width: the cast's other columns scroll sideways, issue 51).
    table = window.cast.view
    header = table.horizontalHeader()
    for col in range(header.count()):
        assert not header.isSectionHidden(col)
        assert header.sectionSize(col) >= header.sectionSizeHint(col), header.model().headerData(col, 1)
    for col in (CastCol.COLOUR, CastCol.NAME, CastCol.CHARACTER, CastCol.VOICE):
        left = header.sectionViewportPosition(col)
        assert 0 <= left and left + header.sectionSize(col) <= table.viewport().width(), header.model().headerData(col, 1)
    assert table.verticalScrollBar().maximum() == 0  # the sample's seven roles, all in view
    # At least six whole lanes.
    assert window.timeline.viewport().height() >= 6 * window.timeline.lane_height()

    # The monitor: each view on its own tab, big enough, texts apart and inside their canvas.
    assert monitor.isVisible() and monitor.tabs.count() == 4
    for index, view in enumerate(monitor.graphics_views()):
        monitor.tabs.setCurrentIndex(index)
        qtbot.waitUntil(view.isVisible)
        for _ in range(2):  # axes size their text space as they first paint
            view.viewport().repaint()
            qtbot.wait(20)
        assert view.height() >= 150, f"tab {monitor.tabs.tabText(index)} squashed to {view.height()} px"
        boxes = window_text_boxes(view, window)
        canvas = QRectF(view.viewport().mapTo(window, view.viewport().rect().topLeft()).toPointF(),
                        view.viewport().size().toSizeF())
        assert not overlaps(boxes), f"tab {monitor.tabs.tabText(index)}: {overlaps(boxes)}"
        assert not outside(boxes, canvas), f"tab {monitor.tabs.tabText(index)}: cut off {outside(boxes, canvas)}"
        texts = {text for text, _ in boxes}
        assert {"time (s)"} <= texts
        if view is monitor.priority_view:
            assert set(roles) <= texts  # a name on every row
            # The busy snapshot's priorities are 1-10k: the colour bar spans them (log, fitted).
            assert {"role", "priority (log, fitted to 30 s)", "1", "10k"} <= texts and "100k" not in texts
        if view is monitor.latency_view:
            assert {"requests per s (log)", "latency (all origins)"} <= texts
    # Latency per origin, the listener's waits first, every row in view.
    origins = monitor.origins
    assert origins.row_texts("playback")[0] == "Playback" and origins.row_texts("prerender")[0] == "Pre-render"
    assert origins.row_texts("playback")[1] == str(len(roles))
    assert origins.viewport().height() >= sum(origins.rowHeight(r) for r in range(origins.rowCount()))
    summary = monitor.summary.text()
    assert summary.startswith("playback wait p95 ") and "background pre-render p95" in summary
    assert summary.index("playback") < summary.index("pre-render")


def _two_role_project() -> Project:
    return Project(title="Other", cast=[Role(name="ANNA"), Role(name="BEN")], scenes=[Scene("S1", "Hall")],
                   lines=[Line(id="N1", role="ANNA", scene="S1", text="Hello."),
                          Line(id="N2", role="BEN", scene="S1", text="Hi.")])


def test_after_an_import_the_lanes_are_the_new_cast_scrolled_to_the_start(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    timeline = window.timeline
    timeline.set_zoom(400.0, 0.0)
    timeline.horizontalScrollBar().setValue(timeline.horizontalScrollBar().maximum())
    assert timeline.horizontalScrollBar().value() > 0
    window.doc.replace(_two_role_project(), None, modified=True)  # what File > Import does
    assert [lane.name for lane in timeline.lanes()] == ["ANNA", "BEN"]
    assert timeline.horizontalScrollBar().value() == 0 and timeline.verticalScrollBar().value() == 0
    assert sorted(item.line_id for item in timeline.clip_items()) == ["N1", "N2"]
    wait_engine(qtbot, window)
    qtbot.wait(200)  # snapshots of the new engine: still the new cast only
    assert [lane.name for lane in timeline.lanes()] == ["ANNA", "BEN"]


def test_a_drag_says_what_the_drop_will_do_and_the_drop_does_it(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    voice_everything(qtbot, window)

    def drawn() -> bool:  # the timeline shows the engine's latest clips (it draws at 20 Hz)
        clips = window.engine.state().clips
        items = [window.timeline.clip_item(c.line_id) for c in clips]
        return all(i is not None and not i.estimated and (i.start, i.end) == (c.start, c.end)
                   for i, c in zip(items, clips, strict=True))

    qtbot.waitUntil(drawn)
    describe = window.timeline.drag.describe
    lines = window.doc.project.lines
    before = [replace(line) for line in lines]
    third = window.timeline.clip_item(lines[2].id)
    second = window.timeline.clip_item(lines[1].id)
    cases = {
        "pause of": third.start + 0.8,  # later than its place
        "overlaps the previous line by": second.end - 0.3,  # over the line before it
        "pinned at": second.start - 0.2,  # before the line before it
    }
    for words, start in cases.items():
        hint = describe(lines[2].id, start)
        assert hint.startswith(words), hint
        assert [replace(line) for line in window.doc.project.lines] == before  # asking changed nothing
    window.move_clip(lines[2].id, cases["overlaps the previous line by"])
    assert window.doc.project.lines[2].overlap == 0.3
    window.doc.undo.undo()
    window.move_clip(lines[2].id, cases["pause of"])
    assert window.doc.project.lines[2].pause_before == 0.8


def test_meters_fall_to_silence_when_playback_pauses(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    window.actions_["play_pause"].trigger()
    header = window.timeline.header
    lanes = window.doc.project.role_names()
    qtbot.waitUntil(lambda: window.transport.meter.level_db > -60
                    and any(header.level(name) > 0 for name in lanes), timeout=30_000)
    window.actions_["play_pause"].trigger()
    qtbot.waitUntil(lambda: not window.engine.state().transport.playing, timeout=10_000)
    qtbot.waitUntil(lambda: window.transport.meter.level_db == -math.inf
                    and all(header.level(name) == 0 for name in lanes), timeout=6_000)
