"""Waiting on a live Session: a condition with a time limit, the lines' states."""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable

from engine.session import LineState, Session


def wait_for(condition: Callable[[], bool], timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            stacks = "\n".join(f"--- {t.name}\n" + "".join(traceback.format_stack(sys._current_frames()[t.ident]))
                               for t in threading.enumerate() if t.ident in sys._current_frames())
            raise AssertionError(f"timed out waiting for {what}; threads:\n{stacks}")
        time.sleep(0.01)


def states(session: Session) -> dict[str, LineState]:
    session.wait_idle(5.0)
    return {lid: st.state for lid, st in session.line_status().items()}
