"""Sound lanes in the live Session: the same sounds and Programme as export,
placeholders matched from the library, missing files reported per clip, lane
edits applied live, and the mixer thread's cost per block with sounds."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.audio.sinks import NullSink
from engine.project.fileformat import save_project
from engine.project.model import Project
from engine.project.sound import SoundClip, SoundLane
from engine.session import LineState, Session
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project

RATE = 48_000


@pytest.fixture
def scored(tmp_path: Path, tiny_voices: dict[str, Path]) -> tuple[Project, Path]:
    """A tiny production with music and an effect, its files in sounds/."""
    sounds = tmp_path / "sounds"
    sounds.mkdir()
    t = np.arange(2 * RATE) / RATE
    sf.write(sounds / "theme.wav", 0.3 * np.sin(2 * np.pi * 330 * t), RATE)
    sf.write(sounds / "knock.wav", np.full(RATE // 4, 0.2), RATE)
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=2)
    project.sound_lanes = [SoundLane.of_kind("effects"), SoundLane.of_kind("music")]
    project.sounds = [
        SoundClip("X1", "MUSIC", cue="theme", file="sounds/theme.wav", line="L0001", loop=True, end="length",
                  length=6.0, lead=1.0),
        SoundClip("X2", "FX", cue="a knock", line="L0003"),  # a placeholder: the library's knock.wav matches
        SoundClip("X3", "FX", cue="bell", file="sounds/bell.wav", line="L0004"),  # missing
    ]
    path = tmp_path / "scored.radioplay"
    save_project(project, path)
    return project, path


@pytest.fixture
def session(scored: tuple[Project, Path], tiny_synth: ClipSynthesizer) -> Iterator[Session]:
    project, path = scored
    with Session(project, path, sink=NullSink(RATE, speed=4.0), synth=tiny_synth) as s:
        assert s.wait_idle(30.0)
        yield s


def test_the_session_lays_out_and_mixes_the_sounds(session: Session, scored: tuple[Project, Path]) -> None:
    views = {v.clip_id: v for v in session.state().sounds}
    assert set(views) == {"X1", "X2", "X3"}
    assert views["X1"].file == "sounds/theme.wav" and not views["X1"].silent
    assert views["X2"].file.endswith("knock.wav") and not views["X2"].silent
    assert views["X3"].silent and views["X3"].problem is not None
    assert "sounds/bell.wav for cue 'bell'" in views["X3"].problem
    assert views["X1"].end - views["X1"].start == pytest.approx(6.0)
    assert session.programme.sounds is not None and session.programme.sound_lanes == 2
    first_line = next(c for c in session.clips() if c.line_id == "L0001")
    assert first_line.start == pytest.approx(1.0)  # the music's lead in the clear
    peaks = session.sound_peaks("X1", 10)
    assert peaks is not None and peaks.max() == pytest.approx(0.3, abs=0.01)
    # The mix the player renders holds the music in its lead-in, on the music lane.
    _, stems = session.programme.process(int(0.2 * RATE), 4096)
    assert np.abs(stems[2 + 1]).max() > 0.05 and np.abs(stems[2]).max() == 0.0
    # Ducked under the first line by curves the control thread built (the mixer thread never does).
    deadline = time.monotonic() + 30
    while any(s.state is not LineState.READY for s in session.line_status().values()):
        assert time.monotonic() < deadline, "lines not voiced"
        time.sleep(0.05)
    assert session.wait_idle(10.0)
    first_line = next(c for c in session.clips() if c.line_id == "L0001")
    bus = session.sound_bus
    assert bus is not None and not bus.sync_in_blocks and bus.duck_gains(1).size > 0
    _, stems = session.programme.process(int((first_line.start + 0.4) * RATE), 4096)
    under = float(np.abs(stems[3]).max())
    _, stems = session.programme.process(int(0.3 * RATE), 4096)
    assert under < 0.5 * float(np.abs(stems[3]).max())


def test_lane_edits_apply_live(session: Session, scored: tuple[Project, Path]) -> None:
    project, _ = scored
    muted = replace(project, sound_lanes=[project.sound_lanes[0], replace(project.sound_lanes[1], mute=True)])
    session.update(muted)
    assert session.wait_idle(10.0)
    _, stems = session.programme.process(int(0.2 * RATE), 4096)
    assert np.abs(stems[3]).max() == 0.0
    gone = replace(muted, sound_lanes=muted.sound_lanes[:1], sounds=[muted.sounds[1]])
    session.update(gone)
    assert session.wait_idle(10.0)
    assert session.programme.sound_lanes == 1 and [v.clip_id for v in session.state().sounds] == ["X2"]


def test_the_live_blocks_with_sounds_cost_a_small_share_of_real_time(session: Session) -> None:
    """Underruns themselves depend on the machine's load (bench/sound.py counts
    them on a full playback); what the sound lanes add is per-block work on the
    mixer thread, measured here on the live Programme at the player's block."""
    programme, block = session.programme, session.player.block
    total = int(session.transport().duration_s * RATE)
    started = time.perf_counter()
    for t in range(0, total, block):
        programme.process(t, min(block, total - t))
    spent = time.perf_counter() - started
    assert spent < 0.25 * total / RATE, f"{spent:.2f} s of mixing for {total / RATE:.1f} s of programme"
