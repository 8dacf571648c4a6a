"""The transport's length before the engine has a clip: the document's predicted
length, marked ~, or "--:--" with nothing to play (never the bare 0.5 s tail)."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import dataclasses
import re

from app.timeline.ruler import format_time
from engine.mixdown.mixplan import TAIL_S
from engine.project.model import Project
from tests.support.studio import wait_engine


def _length(window) -> str:
    return window.transport.time_label.text().split(" / ")[1]


def test_the_length_is_predicted_until_the_engine_has_clips(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    predicted = max(c.end for c in window.presenter.estimated_clips()) + TAIL_S
    assert predicted > 1.0
    session = wait_engine(qtbot, window)
    qtbot.waitUntil(lambda: bool(session.state().clips), timeout=30_000)
    state = session.state()
    # A snapshot from before the engine planned the lines: no clips, its length only the tail.
    early = dataclasses.replace(state, clips=[], sounds=[], transport=dataclasses.replace(state.transport,
                                                                                           duration_s=TAIL_S))
    window.presenter.draw(early)
    assert _length(window) == "~" + format_time(predicted, 1)
    window.presenter.draw(state)
    assert _length(window) == format_time(state.transport.duration_s, 1)
    assert re.fullmatch(r"\d\d:\d\d\.\d", _length(window))


def test_an_empty_production_has_no_length_yet(qtbot, make_window):
    window = make_window(project=Project(title="Empty"))
    assert _length(window) == "--:--"
    session = wait_engine(qtbot, window)
    window.presenter.draw(session.state())
    assert _length(window) == "--:--"
