"""Issue 54: playback plays a line the listener waits for as its live take grows.

A Play inside a line not voiced yet hears that line from its live take (its sentences as
they come: engine/sched/streaming.py); the cached clip replaces it once it comes, from the
next pass (what is heard, and where the lines after it lie, do not change mid-pass). A
live take the playhead overtakes is a late line, and the rest of it starts where the
playhead is when it comes, so no words are lost. Real scheduler, tiny generated ONNX
voices, the null sink.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from engine.project.model import Project
from engine.session import Session
from tests.support.projects import tiny_project
from tests.support.session import wait_for

SENTENCES = "The lights went out at three. Nobody moved in the dark studio. Then the radio spoke again."


@pytest.fixture
def project(tiny_voices: dict[str, Path]) -> Project:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=3)
    for line in project.lines:
        line.text = SENTENCES
    return project


def _on_control(session: Session, action: Callable[[], None]) -> None:
    """Run ``action`` on the Session's control thread (where its parts live) and wait for it."""
    session._post(action)
    assert session.wait_idle(30.0)


def test_a_line_played_cold_is_heard_from_its_live_take_until_the_pass_ends(session_factory, project):
    session = session_factory(project, speed=1.0, prerender=False)
    second = session.clips()[1]
    session.play(second.start + 0.3 * (second.end - second.start))  # inside a line never voiced
    record = session._lines[second.line_id]
    wait_for(lambda: record.clip_key is not None, what="the line's cached clip")
    session.wait_idle()
    held = session._pass.held.get(second.line_id)
    assert held is not None and held is not record.clip  # the live take finishes this pass
    assert held.shape == record.clip.shape and not record.live  # made from the same sentences
    assert not session.late_log
    session.stop()
    session.wait_idle()
    assert not session._pass.held  # the next pass plays the cached clip


def test_a_live_take_the_playhead_overtakes_is_late_and_goes_on_where_the_playhead_is(session_factory, project):
    session = session_factory(project, speed=1.0, prerender=False)
    first, second = session.clips()[0], session.clips()[1]
    line = second.line_id
    rate = 48_000
    session.play(first.start)
    wait_for(lambda: session._lines[line].clip is not None, what="the second line voiced")

    def grow(seconds: float, final: bool) -> None:  # what a slow engine's parts would do
        record = session._lines[line]
        record.clip = np.full(int(seconds * rate), 0.01, dtype=np.float32)
        record.clip_key, record.live, record.growing, record.expected_s = None, True, not final, 3.0
        session.playback.arrived(line)
        session.playback.relayout()

    _on_control(session, lambda: grow(0.2, final=False))
    start = next(c.start for c in session.clips() if c.line_id == line)
    wait_for(lambda: session.transport().position_s > start + 0.6, timeout=60.0, what="the playhead past the take")
    session.wait_idle()
    assert [lid for lid, _ in session.late_log] == [line]  # overtaken: late once
    assert session._pass.late_parts == {line: pytest.approx(0.2)}
    _on_control(session, lambda: grow(1.0, final=True))
    mixed = session.player.snapshot().mixed_s
    pinned = session._pass.pinned[line]
    # What was heard (0.2 s) lies behind the mixer; the rest starts where it is.
    assert mixed - 0.2 - 0.5 < pinned < mixed
    assert not session._pass.late_parts
    assert [lid for lid, _ in session.late_log] == [line]
