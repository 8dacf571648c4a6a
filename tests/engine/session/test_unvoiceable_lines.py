"""Issue 51: a line that cannot be voiced is silent, never late, and never waited for.

A line whose text has nothing speakable fails when it is planned (a real failure of the
real frontend). Playback used to count it late every time the playhead reached it, and
the play outlook counted it as work still to do, so "Wait, Then Play" waited for a clip
that never comes. Real scheduler, tiny generated ONNX voices, the null sink.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.project.model import Line, Project
from engine.session import LineState, Session
from tests.support.projects import tiny_project
from tests.support.session import states, wait_for

NOTHING_SPEAKABLE = "\u2014 \u2026 " * 16  # a line of dashes and dots: the frontend finds nothing to say


@pytest.fixture
def project(tiny_voices: dict[str, Path]) -> Project:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=2)
    project.lines.insert(1, Line(id="BAD", role="ROLE1", scene="S1", text=NOTHING_SPEAKABLE))
    return project


def test_a_failed_line_is_silent_never_late_and_never_waited_for(session_factory: Callable[..., Session],
                                                                  project: Project) -> None:
    session = session_factory(project, speed=4.0, prerender=False)
    status = session.line_status()["BAD"]
    assert status.state is LineState.FAILED and "nothing speakable" in (status.error or "")
    assert status.state.unvoiceable and not status.state.coming
    bad = next(c for c in session.clips() if c.line_id == "BAD")
    assert bad.end > bad.start  # laid out where it is, with a length, as a line to be voiced would be

    # Synthesis as slow as the outlook's worst case: every line still to voice is a wait...
    session.scheduler.cost.observe("piper", 50.0, 1.0)
    before = session.outlook(0.0)
    assert not before.keeps_up and before.silent == 1
    # ...until every line that can be voiced is: the failed one is not waited for.
    session.prefetch([line.id for line in project.lines])
    wait_for(lambda: {s for lid, s in states(session).items() if lid != "BAD"} == {LineState.READY},
             what="every other line voiced")
    session.wait_idle()
    outlook = session.outlook(0.0)
    assert outlook.keeps_up and outlook.audio_s == 0.0 and outlook.silent == 1
    bad = next(c for c in session.clips() if c.line_id == "BAD")  # where the voiced lines put it
    assert session.outlook(bad.end + 0.01).silent == 0  # only the lines ahead are named

    session.play(0.0)
    wait_for(lambda: session.transport().position_s > bad.end + 0.2, timeout=60.0,
             what="the playhead past the failed line")
    session.pause()
    assert session.transport().late_lines == 0 and not session.late_log  # silent, not late
    assert states(session)["BAD"] is LineState.FAILED
