"""A playhead put somewhere before anything has played (a project just
opened, a click on the timeline, then Space) is where playback starts.

The live player's mixer thread starts with the first play, so a seek queued
for it before then was read back as position 0: Play from a playhead in a
freshly opened studio played from the top (found by bench/studio_play.py).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engine.audio.sinks import NullSink
from engine.session import Session
from tests.support.projects import tiny_project


def test_a_seek_before_the_first_play_is_where_it_plays_from(tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"])
    with Session(project, None, sink=NullSink(project.sample_rate, speed=4.0), prerender=False) as session:
        assert session.wait_idle(30.0)
        clip = session.clips()[3]
        position = (clip.start + clip.end) / 2
        session.seek(position)
        assert session.wait_idle(10.0)
        assert session.transport().position_s == pytest.approx(position, abs=1e-3)
        session.play()
        deadline = time.monotonic() + 30.0
        while session.player.first_audio_at is None:
            assert time.monotonic() < deadline, "no audio after play"
            time.sleep(0.01)
        # The line under the playhead starts from its beginning once ready; nothing before it plays.
        assert session.transport().position_s >= clip.start - 0.05
