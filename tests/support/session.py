"""A live Session in tests: the session_factory fixture, waiting on a condition with a time limit, the lines' states."""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator

import pytest

from engine.audio.sinks import NullSink
from engine.project.model import Project
from engine.session import LineState, Session
from engine.synth.synthesizer import ClipSynthesizer


def wait_for(condition: Callable[[], bool], timeout: float = 120.0, what: str = "condition") -> None:
    """Poll ``condition`` until it holds; the limit is generous (a busy machine is slow, not
    wrong) and the failure names the machine's load beside the threads' stacks."""
    started = os.getloadavg()
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            stacks = "\n".join(f"--- {t.name}\n" + "".join(traceback.format_stack(sys._current_frames()[t.ident]))
                               for t in threading.enumerate() if t.ident in sys._current_frames())
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what} (load {started} at the start, "
                                 f"{os.getloadavg()} now); threads:\n{stacks}")
        time.sleep(0.01)


def states(session: Session) -> dict[str, LineState]:
    session.wait_idle(30.0)
    return {lid: st.state for lid, st in session.line_status().items()}


@pytest.fixture
def session_factory(tiny_synth: ClipSynthesizer) -> Iterator[Callable[..., Session]]:
    """Sessions on the tiny synthesizer and a 4x null sink, each idle when handed over, all
    closed at the end of the test (a plugin fixture of tests/conftest.py)."""
    made: list[Session] = []

    def make(project: Project, speed: float = 4.0, **kwargs: object) -> Session:
        session = Session(project, None, sink=NullSink(48_000, speed=speed), synth=tiny_synth, **kwargs)  # type: ignore[arg-type]
        made.append(session)
        assert session.wait_idle(120.0), f"the session was not idle within 120 s (load {os.getloadavg()})"
        return session

    yield make
    for session in made:
        session.close()
