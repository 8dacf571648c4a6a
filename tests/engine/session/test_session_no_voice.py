"""A role whose voice is not installed: its lines are "no voice" (with how to get it), not
failed synthesis, and they are no work in the play outlook."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from engine.audio.sinks import NullSink
from engine.project.model import VoiceParams
from engine.project.snapshot import with_role
from engine.session import LineState, Session
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project


def _wait(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_lines_of_a_voice_not_installed_are_no_voice_not_failed(tiny_voices: dict[str, Path],
                                                                 tiny_synth: ClipSynthesizer) -> None:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=2)
    project.cast[0].voice = VoiceParams(voice="xx_XX-nobody-medium")
    session = Session(project, None, sink=NullSink(48_000, speed=4.0), synth=tiny_synth)
    try:
        unvoiced = [line.id for line in project.lines if line.role == "ROLE0"]
        others = [line.id for line in project.lines if line.role != "ROLE0"]

        def states() -> dict[str, LineState]:
            return {lid: s.state for lid, s in session.line_status().items()}

        _wait(lambda: all(states().get(lid) is LineState.READY for lid in others), "the other lines pre-rendered")
        assert {states()[lid] for lid in unvoiced} == {LineState.NO_VOICE}
        error = session.line_status()[unvoiced[0]].error or ""
        assert error.startswith("voice xx_XX-nobody-medium is not installed: get it with Voices > Get Voices")
        # Nothing is left for the workers: the outlook does not count lines no worker can voice.
        assert session.outlook(0.0).audio_s == 0.0
        session.update(with_role(session.project, "ROLE0", voice=VoiceParams(voice=str(tiny_voices["single"]))))
        _wait(lambda: all(states().get(lid) is LineState.READY for lid in unvoiced), "the recast role voiced")
    finally:
        session.close()
