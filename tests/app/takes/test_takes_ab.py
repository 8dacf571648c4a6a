"""Issue 51: A/B in the Takes panel compares two different takes, each heard as playback
plays the line, and says which is playing.

After "New take" (which chooses the new take) A/B used to play the chosen take against
itself, and louder than playback by several dB (the raw clip, not the line through the
leveller, its room, its lane and the master). Here the studio plays into the private
PulseAudio server's null sink, and what reaches it is recorded: the line as playback
plays it, then A and B.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from engine.project.fileformat import save_project
from engine.project.model import Line, Project, Role, Scene
from engine.session import LineState
from tests.support.audio_server import PulseServer, level_db, locate
from tests.support.paths import ARTIFACTS
from tests.support.studio import wait_all_ready, wait_engine

TEXT = "The lamp was still burning when the tide came in over the harbour wall."


def _active(recording: np.ndarray, rate: int) -> np.ndarray:
    """The recording from its first to its last 20 ms window within 40 dB of its loudest."""
    mono = recording.mean(axis=1)
    hop = rate // 50
    windows = mono[: mono.size // hop * hop].reshape(-1, hop)
    power = np.sqrt(np.mean(np.square(windows, dtype=np.float64), axis=1))
    loud = np.flatnonzero(power > power.max() * 10 ** (-40 / 20))
    assert loud.size, "nothing was heard"
    return recording[loud[0] * hop:(loud[-1] + 1) * hop]


def _record(server: PulseServer, qtbot, start: Callable[[], None], done: Callable[[], bool]) -> np.ndarray:
    with server.recorder() as recorder:
        start()
        qtbot.waitUntil(done, timeout=120_000)
        recorder.wait_for_frames(recorder.frames_recorded + server.rate // 2)  # the device's latency
    assert recorder.audio is not None
    return _active(recorder.audio, server.rate)


@pytest.mark.integration
def test_ab_plays_two_takes_levelled_as_playback_and_says_which(qtbot, make_window, tmp_path, pulse_server):
    project = Project(title="A/B", cast=[Role(name="NARRATOR")], scenes=[Scene("S1")],
                      lines=[Line("L1", "NARRATOR", TEXT, "S1")])
    path = tmp_path / "ab.radioplay"
    save_project(project, path)
    window = make_window(path, prerender=True, output=pulse_server.device_name)
    session = wait_engine(qtbot, window)
    assert session.audio_error is None, session.audio_error
    wait_all_ready(qtbot, window)
    qtbot.waitUntil(lambda: session.master_gain_db is not None, timeout=60_000)  # export's gain, live
    state = lambda: window.engine.state()  # noqa: E731

    # The line as playback plays it (Play from Start; playing stops at the programme's end).
    playback = _record(pulse_server, qtbot, window.actions_["from_start"].trigger,
                       lambda: not state().transport.playing
                       and state().transport.position_s >= state().transport.duration_s)

    window.script.select_line("L1")
    panel = window.takes
    panel.new_button.click()  # a second take, chosen
    line = window.doc.project.line("L1")
    assert line.takes[-1] == line.take and len(line.takes) == 2
    qtbot.waitUntil(lambda: state().line_status["L1"].state is LineState.READY, timeout=120_000)
    assert panel.ab_pair() == (line.takes[0], line.take)  # the take chosen before, and the new one
    assert panel.ab_label.text() == "A/B: take 1 and take 2"

    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def hear(letter: str, number: int) -> np.ndarray:
        seen: list[str] = []

        def finished() -> bool:
            text = panel.ab_label.text()
            if text.startswith("\u25b6") and text not in seen:
                seen.append(text)
                assert panel.grab().save(str(ARTIFACTS / f"takes-ab-playing-{letter}.png"))
            return state().transport.audition is None and text.startswith("A/B:")
        heard = _record(pulse_server, qtbot, panel.ab_button.click, finished)
        assert seen == [f"\u25b6 Playing {letter}: take {number}"]  # the panel said which was playing
        return heard

    a = hear("A", 1)
    b = hear("B", 2)

    print(f"RMS over what was heard: playback {level_db(playback):.2f} dBFS, A {level_db(a):.2f}, "
          f"B {level_db(b):.2f}")
    # Levelled as playback levels the line: within a decibel of it, both takes.
    for name, heard in (("A", a), ("B", b)):
        assert abs(level_db(heard) - level_db(playback)) < 1.0, (
            f"{name} at {level_db(heard):.1f} dBFS RMS, playback at {level_db(playback):.1f}")
    # Take 1 is what playback played; take 2 is another performance.
    core = a[a.shape[0] // 4: 3 * a.shape[0] // 4].mean(axis=1)
    assert locate(playback.mean(axis=1), core)[1] > 0.95
    assert a.shape[0] != b.shape[0] or locate(b.mean(axis=1), core)[1] < 0.95
