"""Issue 30 item 5: when synthesis cannot keep up, Play says so first and offers to wait; the
production then starts by itself once it can play without holes."""

from __future__ import annotations

import os
from pathlib import Path

from engine.session import LineState
from tests.support.paths import REPO
from tests.support.studio import wait_engine

ARTIFACTS = Path(os.environ.get("RADIOPLAY_ARTIFACTS", REPO / "tests" / "app" / "artifacts"))


def _slow_synthesis(session) -> None:
    """What the workers measure on a machine that makes 1 s of audio in 50 s (the cost model's
    own input: the outlook then says playback would wait)."""
    session.scheduler.cost.observe("piper", 50.0, 1.0)


def test_play_asks_first_and_wait_then_play_starts_with_every_line_voiced(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    session = wait_engine(qtbot, window)
    qtbot.waitUntil(lambda: len(session.clips()) == len(window.doc.project.lines))
    _slow_synthesis(session)
    assert not session.outlook(0.0).keeps_up

    window.actions_["play_pause"].trigger()
    gate = window.presenter.gate
    qtbot.waitUntil(lambda: gate.prompt is not None and gate.prompt.isVisible())
    assert "cannot keep up" in gate.prompt.windowTitle()
    assert "real time here" in gate.prompt.informativeText()  # the measured speed, and the remedy
    qtbot.wait(300)
    assert not window.engine.state().transport.playing  # nothing plays while the producer decides
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(ARTIFACTS / "play-prompt-window.png"))
    assert gate.prompt.grab().save(str(ARTIFACTS / "play-prompt.png"))

    gate.prompt.wait_button.click()
    qtbot.waitUntil(lambda: window.engine.state().transport.playing, timeout=60_000)
    state = window.engine.state()
    first = window.doc.project.lines[0].id
    assert state.line_status[first].state is LineState.READY  # what it starts with was voiced first
    window.actions_["stop"].trigger()
    qtbot.waitUntil(lambda: not window.engine.state().transport.playing)


def test_cancel_plays_nothing_and_play_anyway_plays_at_once(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    session = wait_engine(qtbot, window)
    qtbot.waitUntil(lambda: len(session.clips()) == len(window.doc.project.lines))
    _slow_synthesis(session)
    gate = window.presenter.gate
    window.actions_["play_pause"].trigger()
    qtbot.waitUntil(lambda: gate.prompt is not None and gate.prompt.isVisible())
    gate.prompt.reject()
    qtbot.wait(300)
    assert not window.engine.state().transport.playing and gate.waiting.value == "no"
    window.actions_["play_pause"].trigger()
    qtbot.waitUntil(lambda: gate.prompt.isVisible())
    gate.prompt.anyway_button.click()
    qtbot.waitUntil(lambda: window.engine.state().transport.playing)
    window.actions_["stop"].trigger()
    qtbot.waitUntil(lambda: not window.engine.state().transport.playing)
