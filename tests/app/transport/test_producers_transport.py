"""Issue 51, "A producer's first hour": the transport and its counters tell the truth.

* Home (Play from Start) plays from the top when stopped, not only while playing.
* A line that cannot be voiced is shown as failed, never as late, and never blocks
  "Wait, Then Play" (it used to wait 50 s and more on "starts in ~6 s", forever).
* The monitor's count of voiced lines is the status bar's (it counted every clip made).
* Playing stops at the programme's end.

The real studio window, engine and (tiny, generated) voices, on the null output.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.project.fileformat import save_project
from engine.project.model import Line
from engine.session import LineState
from tests.support.paths import ARTIFACTS
from tests.support.projects import tiny_project
from tests.support.studio import wait_all_ready, wait_engine

NOTHING_SPEAKABLE = "\u2014 \u2026 " * 16  # a line of dashes and dots: the frontend finds nothing to say


@pytest.fixture
def failing_file(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    """The tiny production with its second line unvoiceable."""
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=2)
    project.lines.insert(1, Line(id="BAD", role="ROLE1", scene="S1", text=NOTHING_SPEAKABLE))
    path = tmp_path / "failing.radioplay"
    save_project(project, path)
    return path


def _stopped(window) -> bool:
    return not window.engine.state().transport.playing


def test_home_plays_from_the_start_while_stopped(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    window.seek(2.5)
    qtbot.waitUntil(lambda: window.engine.state().transport.position_s == pytest.approx(2.5, abs=0.05))
    assert _stopped(window)
    assert window.actions_["from_start"] is window.transport.home_action  # Home and the bar's button
    window.actions_["from_start"].trigger()
    qtbot.waitUntil(lambda: window.engine.state().transport.playing, timeout=30_000)
    assert window.engine.state().transport.position_s < 2.0  # from the top, not from where it was
    qtbot.waitUntil(window.transport.play_action.isChecked)  # the bar shows it playing
    window.actions_["stop"].trigger()
    qtbot.waitUntil(lambda: _stopped(window))


def test_a_failed_line_is_shown_failed_never_late_and_wait_then_play_starts(qtbot, make_window, failing_file):
    window = make_window(failing_file)
    session = wait_engine(qtbot, window)
    qtbot.waitUntil(lambda: window.engine.state().line_status.get("BAD") is not None
                    and window.engine.state().line_status["BAD"].state is LineState.FAILED)
    bar = window.transport
    qtbot.waitUntil(bar.silent_visible)
    assert bar.silent_label.text() == "Failed 1"
    assert "Line 2 (ROLE1): failed: nothing speakable" in bar.silent_label.toolTip()
    assert "1 failed" in window.lines_label.text()

    # Synthesis measured as slow as can be: Play asks, and Wait, Then Play voices the lines ahead.
    session.scheduler.cost.observe("piper", 50.0, 1.0)
    window.actions_["play_pause"].trigger()
    gate = window.presenter.gate
    qtbot.waitUntil(lambda: gate.prompt is not None and gate.prompt.isVisible())
    assert "1 line cannot be voiced and will be silent" in gate.prompt.informativeText()
    gate.prompt.wait_button.click()
    # The failed line is never voiced: waiting for it never ended. Every other line is, then play starts.
    qtbot.waitUntil(lambda: window.engine.state().transport.playing, timeout=120_000)
    state = window.engine.state()
    assert all(s.state is LineState.READY for lid, s in state.line_status.items() if lid != "BAD")

    bad = next(c for c in state.clips if c.line_id == "BAD")
    qtbot.waitUntil(lambda: window.engine.state().transport.position_s > bad.end + 0.3, timeout=60_000)
    assert window.engine.state().transport.late_lines == 0  # silent where it is, not late
    assert bar.late_label.text() == "Late 0"
    assert "before it was voiced" not in window.statusBar().currentMessage()
    assert window.statusBar().currentMessage().startswith("\u26a0 Line 2 (ROLE1) cannot be voiced (failed: nothing")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert bar.grab().save(str(ARTIFACTS / "transport-failed-line.png"))
    assert window.grab().save(str(ARTIFACTS / "transport-failed-line-window.png"))
    window.actions_["stop"].trigger()
    qtbot.waitUntil(lambda: _stopped(window))


def test_the_monitor_counts_the_voiced_lines_the_status_bar_counts(qtbot, make_window, tmp_path, tiny_voices):
    project = tiny_project(tiny_voices["single"], roles=1, lines_per_role=1)
    path = tmp_path / "one.radioplay"
    save_project(project, path)
    window = make_window(path, prerender=True)
    session = wait_engine(qtbot, window)
    wait_all_ready(qtbot, window)
    line_id = project.lines[0].id
    window.script.select_line(line_id)
    window.takes.new_button.click()  # a second clip of the one line: replaces the first
    qtbot.waitUntil(lambda: session.metrics.snapshot().requests >= 2, timeout=60_000)
    wait_all_ready(qtbot, window)
    window.monitor_dock.raise_()
    qtbot.waitUntil(lambda: window.lines_label.text() == "1 of 1 lines voiced")
    drawn = window.monitor.updates
    qtbot.waitUntil(lambda: window.monitor.updates > drawn + 1)  # a snapshot taken after both clips were made
    summary = window.monitor.summary.text()
    assert "1 of 1 lines voiced" in summary  # the status bar's count, not the clips made
    assert "2 clips made" in summary  # what the engine made, named for what it is
    assert window.engine.state().voiced_lines == 1


def test_playing_stops_at_the_programmes_end(qtbot, make_window, tmp_path, tiny_voices):
    project = tiny_project(tiny_voices["single"], roles=1, lines_per_role=1)
    path = tmp_path / "short.radioplay"
    save_project(project, path)
    window = make_window(path, prerender=True)
    wait_engine(qtbot, window)
    wait_all_ready(qtbot, window)
    window.actions_["play_pause"].trigger()
    qtbot.waitUntil(lambda: window.engine.state().transport.playing, timeout=30_000)
    qtbot.waitUntil(lambda: _stopped(window), timeout=60_000)  # a few seconds of programme
    # The listener hears the ring's last frames after the mixer stopped: then the playhead is at the end.
    at_end = lambda: window.engine.state().transport.position_s == pytest.approx(  # noqa: E731
        window.engine.state().transport.duration_s, abs=0.001)
    qtbot.waitUntil(at_end, timeout=5_000)
    qtbot.wait(300)
    assert at_end() and _stopped(window)  # and it stays there
    qtbot.waitUntil(lambda: not window.transport.play_action.isChecked())
    now, length = window.transport.time_label.text().split(" / ")
    assert now == length  # "00:03.4 / 00:03.4", not the clock running on past the end
