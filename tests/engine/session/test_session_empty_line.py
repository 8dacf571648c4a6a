"""An empty line (just inserted, nothing typed yet) is not synthesized and is "empty", not "failed"."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from engine.audio.sinks import NullSink
from engine.project.snapshot import with_line
from engine.session import LineState, LineStatus, Session
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project


def _wait(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_an_empty_line_is_empty_and_voiced_once_typed(tiny_voices: dict[str, Path], tiny_synth: ClipSynthesizer) -> None:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=2)
    empty = project.lines[1]
    empty.text = "  "
    session = Session(project, None, sink=NullSink(48_000, speed=4.0), synth=tiny_synth)
    try:
        others = [line.id for line in project.lines if line is not empty]

        def states() -> dict[str, LineState]:
            return {lid: s.state for lid, s in session.line_status().items()}

        _wait(lambda: all(states().get(lid) is LineState.READY for lid in others), "the other lines pre-rendered")
        assert session.line_status()[empty.id] == LineStatus(LineState.EMPTY, None)
        session.update(with_line(session.project, empty.id, text="Now there is something to say."))
        _wait(lambda: states().get(empty.id) is LineState.READY, "the typed line voiced")
    finally:
        session.close()
