"""Issue 51: playing stops at the programme's end, with the playhead there, instead of
playing silence on (the transport read 02:46 / 02:11 and still played); Play from there
plays the programme again from the top.

Real scheduler, tiny generated ONNX voices, the null sink on a sped-up real-time clock.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.project.model import Project
from engine.session import LineState, Session
from tests.support.projects import tiny_project
from tests.support.session import states, wait_for

RATE = 48_000


@pytest.fixture
def project(tiny_voices: dict[str, Path]) -> Project:
    return tiny_project(tiny_voices["single"], roles=2, lines_per_role=2)


def test_playing_stops_at_the_programmes_end_and_play_starts_again_from_the_top(
        session_factory: Callable[..., Session], project: Project) -> None:
    session = session_factory(project, speed=8.0)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="every line voiced")
    session.wait_idle()
    last_clip_end = max(c.end for c in session.clips())
    session.play(0.0)
    wait_for(lambda: session.transport().playing, what="playing")
    # The programme is a few seconds long; at 8x it plays in well under a second of wall time.
    wait_for(lambda: not session.transport().playing, timeout=60.0, what="playing to stop at the programme's end")
    session.wait_idle()
    # The listener hears what the ring still holds after the mixer stopped; then the playhead is at the end.
    wait_for(lambda: session.transport().position_s == pytest.approx(session.transport().duration_s, abs=1.0 / RATE),
             timeout=10.0, what="the playhead at the end")
    transport = session.transport()
    assert transport.duration_s > last_clip_end  # the tail (the last consonant, the limiter) is played
    assert not transport.playing and transport.ended
    assert transport.late_lines == 0

    session.play()  # from the playhead, which is at the end: the programme again, from the top
    wait_for(lambda: session.transport().playing, what="playing again")
    assert session.transport().position_s < transport.duration_s / 2
    wait_for(lambda: not session.transport().playing, timeout=60.0, what="the second pass to stop at the end")


def test_a_loop_plays_on_past_the_end(session_factory: Callable[..., Session], project: Project) -> None:
    session = session_factory(project, speed=8.0)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="every line voiced")
    session.wait_idle()
    duration = session.transport().duration_s
    session.set_loop((duration - 1.0, duration + 2.0))  # a region past the end: the loop decides
    session.play(duration - 1.0)
    wait_for(lambda: session.transport().position_s > duration + 0.5, timeout=60.0, what="playing past the end")
    assert session.transport().playing
    session.set_loop(None)
    session.stop()
