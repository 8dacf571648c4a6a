"""Issue 30 item 8: at the default size every lane, cast and sound, is in sight; a clip dragged
later while the lines before it are unvoiced keeps a pause, so no hole opens once they are voiced."""

from __future__ import annotations

from tests.support.paths import SAMPLE
from tests.support.studio import voice_everything, wait_engine


def test_at_1600x1000_the_samples_sound_lanes_are_in_sight_below_its_seven_roles(qtbot, make_window):
    window = make_window(SAMPLE, show=False)
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    wait_engine(qtbot, window)
    timeline = window.timeline
    lanes = timeline.lanes()
    assert len(window.doc.project.cast) == 7 and sum(lane.kind.value == "sound" for lane in lanes) == 3
    bottom = timeline.viewport().height()
    for index, lane in enumerate(lanes):
        top, height = timeline.lane_span(index)
        assert 0 <= top and top + height <= bottom, f"lane {lane.name} at {top}+{height} below the view's {bottom} px"
    assert timeline.verticalScrollBar().maximum() == 0
    # Still legible: a lane has room for its name and meter, and the monitor keeps its room.
    assert timeline.lane_height() >= 28
    assert window.monitor.graphics_views()[0].height() >= 150
    # The producer's own lane height wins over fitting.
    timeline.taller_lanes_action.trigger()
    chosen = timeline.lane_height()
    window.resize(1600, 1001)
    qtbot.wait(20)
    assert timeline.lane_height() == chosen and not timeline.fits_lanes()


def test_a_clip_dragged_later_before_earlier_lines_are_voiced_keeps_a_pause(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    lines = window.doc.project.lines
    timeline = window.timeline
    qtbot.waitUntil(lambda: all(timeline.clip_item(line.id) is not None for line in lines))
    second, third = timeline.clip_item(lines[1].id), timeline.clip_item(lines[2].id)
    assert second.estimated and third.estimated  # nothing voiced yet: lengths are estimates
    spacing = third.start - second.end  # the project's own gap between lines
    target = third.start + 0.8
    hint = timeline.drag.describe(lines[2].id, target)
    assert hint == "pause of 0.80 s before it", hint
    window.move_clip(lines[2].id, target)
    line = window.doc.project.line(lines[2].id)
    assert line.start is None and line.pause_before == 0.8

    voice_everything(qtbot, window)

    def real_clips():
        state = window.engine.state()
        clips = {c.line_id: c for c in state.clips}
        return clips if all(not c.estimated for c in clips.values()) and len(clips) == len(lines) else None

    qtbot.waitUntil(lambda: real_clips() is not None)
    clips = real_clips()
    gap = clips[lines[2].id].start - clips[lines[1].id].end
    assert abs(gap - (spacing + 0.8)) < 0.01, f"{gap:.3f} s between the voiced lines, not {spacing:.2f} + 0.8 s"


def _loaded_hub(roles: list[str]):
    """30 s of what the sample does under load (measured, issue 30): priorities of 8-220 that
    rise as lines fall due, and a line finished every few seconds at 0.1-20 s."""
    import numpy as np

    from bench.monitor_update import FakeClock
    from engine.metrics.hub import MetricsHub

    clock = FakeClock()
    hub = MetricsHub(clock=clock)
    rng = np.random.default_rng(3)
    for step in range(600):
        clock.t += 0.05
        for i, role in enumerate(roles):
            due = (step / 600 + i / len(roles)) % 1.0
            hub.set_role_priority(role, 8.0 * (220 / 8.0) ** due if i % 3 != 2 or step > 300 else 0.0)
        if step % 60 == 0:
            hub.record_request(roles[step % len(roles)], "playback", "role-priority", 0.0, 0.1,
                               float(10 ** rng.uniform(-1, 1.3)), 3.0)
    return hub.snapshot()


def test_the_fixed_heatmaps_at_1600x1000(qtbot, make_window):
    import os
    from pathlib import Path

    from tests.support.paths import REPO

    artifacts = Path(os.environ.get("RADIOPLAY_ARTIFACTS", REPO / "tests" / "app" / "artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    window = make_window(SAMPLE, show=False)
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    wait_engine(qtbot, window)
    window.presenter.timer.stop()  # what is drawn stays put while it is looked at
    monitor = window.monitor
    monitor.update_from(_loaded_hub(window.doc.project.role_names()))
    for index, name in ((0, "priority"), (1, "latency")):
        monitor.tabs.setCurrentIndex(index)
        view = monitor.graphics_views()[index]
        qtbot.waitUntil(view.isVisible)
        for _ in range(3):  # axes size their text space as they first paint
            view.viewport().repaint()
            qtbot.wait(30)
        assert window.grab().save(str(artifacts / f"monitor-{name}-1600x1000.png"))
        assert monitor.grab().save(str(artifacts / f"monitor-{name}-dock.png"))
    first, end = monitor.latency_rows()
    assert end - first < 25  # cropped to the bins with requests
