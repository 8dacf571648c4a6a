"""Staging a line: automation to the sample, filters, distance against the room,
the mixer's stereo clips, and live playback mixing what export mixes (the
dialogue leveller before the staging in both)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from numpy.testing import assert_allclose, assert_array_equal
from scipy.signal import welch

from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.rooms import RoomResponses
from engine.audio.sinks import NullSink
from engine.audio.staging import Stager, automation, direct_gains, line_stages, stage_clip
from engine.export.session_render import render_session
from engine.mixdown.dialogue import DialogueChain
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.project.staging import PERSPECTIVES, ROOM_PRESETS, LineStage, Position, line_stage
from engine.session.control import Session
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

RATE = 48_000


def test_automation_is_linear_between_keyframes_to_the_sample() -> None:
    stage = LineStage(room=None, path=((0.0, -1.0, 1.0), (0.5, 0.0, 2.0), (1.0, 1.0, 4.0)))
    frames = 1001
    pan, distance = automation(stage, frames)
    assert pan[0] == -1.0 and pan[500] == 0.0 and pan[1000] == 1.0
    assert distance[0] == 1.0 and distance[500] == 2.0 and distance[1000] == 4.0
    assert_allclose(pan[250], -0.5) and assert_allclose(distance[750], 3.0)
    ones = np.ones(frames, dtype=np.float32)
    staged = stage_clip(ones, stage, RATE, None)
    assert staged.shape == (frames, 2)
    # Every frame carries the gains its own pan and distance give: nothing is smoothed or blocked.
    assert_allclose(staged, direct_gains(pan, distance, 0.0).astype(np.float32), rtol=1e-6)
    left, right = staged[:, 0], staged[:, 1]
    assert right[0] < 1e-6 and left[1000] < 1e-6  # hard left at the start, hard right at the end
    assert_allclose(np.hypot(left[500], right[500]), 0.5, rtol=1e-6)  # centre at 2 m: half the level


def test_moving_away_travels_from_the_roles_pan_towards_its_side() -> None:
    stage = line_stage(None, "moving-away", None, role_pan=-0.3)
    assert stage is not None and stage.moving
    (_, pan0, d0), (_, pan1, d1) = stage.path[0], stage.path[-1]
    assert pan0 == -0.3 and pan1 < pan0 and d1 > d0
    back = line_stage(None, "approaching", None, role_pan=0.4)
    assert back is not None and back.path[0][2] > back.path[-1][2] and back.path[-1][1] == 0.4


def test_a_producers_path_wins_over_the_perspectives() -> None:
    path = ((0.0, 0.5, 2.0), (1.0, -0.5, 2.0))
    stage = line_stage(None, "moving-away", Position(path=path), role_pan=0.0)
    assert stage is not None and stage.path == path
    placed = line_stage(None, "off", Position(pan=0.8, distance=3.0), role_pan=0.0)
    assert placed is not None and placed.path == ((0.0, 0.8, 3.0),) and placed.lowpass_hz is not None


def test_a_dry_unplaced_line_is_not_staged() -> None:
    assert line_stage(None, "", None, role_pan=0.2) is None


def _noise(seconds: float = 1.0, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, 0.1, int(seconds * RATE)).astype(np.float32)


def _band_share(audio: np.ndarray, low: float, high: float) -> float:
    freqs, power = welch(audio.mean(axis=1), fs=RATE, nperseg=4096)
    return float(power[(freqs < low) | (freqs > high)].sum() / power.sum())


def test_phone_keeps_300_to_3400_hz() -> None:
    stage = line_stage(None, "phone", None, 0.0)
    assert stage is not None
    noise = _noise()
    staged = stage_clip(noise, stage, RATE, None)
    # White noise (86% of it outside the band): what is left outside is the edges' slopes...
    assert _band_share(np.stack([noise, noise], axis=1), 300.0, 3400.0) > 0.8
    assert _band_share(staged, 300.0, 3400.0) < 0.02
    # ...and an octave past either edge nothing is.
    assert _band_share(staged, 150.0, 6800.0) < 1e-4


def test_door_muffles_and_lowers() -> None:
    dry = stage_clip(_noise(), LineStage(room=None), RATE, None)
    stage = line_stage(None, "door", None, 0.0)
    assert stage is not None
    muffled = stage_clip(_noise(), stage, RATE, None)
    assert np.mean(muffled ** 2) < np.mean(dry ** 2) / 10
    assert _band_share(muffled, 0.0, 1500.0) < 0.05 < _band_share(dry, 0.0, 1500.0)


@pytest.fixture(scope="module")
def responses(tmp_path_factory: pytest.TempPathFactory) -> RoomResponses:
    return RoomResponses(tmp_path_factory.mktemp("rooms"))


def test_distance_sets_the_direct_to_reverberant_ratio(responses: RoomResponses) -> None:
    room = ROOM_PRESETS["living room"]
    reverb = responses.response(room, RATE)
    click = np.zeros(RATE // 2, dtype=np.float32)
    click[0] = 1.0

    def drr_db(distance: float) -> float:
        staged = stage_clip(click, LineStage(room=room, path=((0.0, 0.0, distance),)), RATE, reverb)
        cut = int(0.0025 * RATE)
        return float(10 * np.log10((staged[:cut] ** 2).sum() / (staged[cut:] ** 2).sum()))

    near, far = drr_db(0.5), drr_db(4.0)
    # Direct falls 6 dB per doubling of distance, the diffuse field stays: 3 doublings from 0.5 m.
    assert near - far == pytest.approx(20 * np.log10(4.0 / 0.5), abs=1.5)


def test_the_room_response_is_cached_on_disk(tmp_path: Path) -> None:
    room = ROOM_PRESETS["car"]
    first = RoomResponses(tmp_path).response(room, RATE)
    files = list(tmp_path.glob("*.npy"))
    assert len(files) == 1
    again = RoomResponses(tmp_path).response(room, RATE)  # a new process: read, not simulated
    assert_array_equal(first, again)
    assert_array_equal(np.load(files[0]), first)


def test_a_room_simulates_to_the_same_response_every_time_and_on_any_thread() -> None:
    # The ray tracer's rays are random: unseeded, a cellar's late energy moved by 3 % from one
    # simulation to the next, so a fresh cache rendered the same project differently.
    from concurrent.futures import ThreadPoolExecutor

    from engine.audio.rooms import simulate

    room = ROOM_PRESETS["cellar"]
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: simulate(room, 16_000), range(2))
    assert_array_equal(first, second)
    assert_array_equal(simulate(room, 16_000), first)


def test_mixer_plays_a_staged_clip_as_placed_scaled_by_the_lane_gain_alone() -> None:
    stereo = np.stack([np.linspace(0, 1, 300), np.linspace(1, 0, 300)], axis=1).astype(np.float32)
    mono = np.full(300, 0.5, dtype=np.float32)
    mixer = BlockMixer([PlacedClip(0, 100, stereo), PlacedClip(1, 0, mono)], 2, 256)
    mixer.set_lane(0, -6.0, 1.0, True)  # pan is the staging's: not applied again
    mixer.set_lane(1, 0.0, 0.0, True)
    out = np.concatenate([mixer.process(t, 256)[1][0].copy() for t in (0, 256)])
    assert_allclose(out[100:400], stereo * np.float32(10 ** (-6 / 20)), rtol=1e-6)
    assert mixer.stereo


def _staged_project(voice: Path) -> Project:
    project = Project(title="Staged", sample_rate=RATE,
                      scenes=[Scene("S1", "INT. BATHROOM", room=ROOM_PRESETS["bathroom"]),
                              Scene("S2", "EXT. FIELD", room=ROOM_PRESETS["field"])])
    project.cast = [Role("ANN", voice=VoiceParams(voice=str(voice)), pan=-0.4),
                    Role("BOB", voice=VoiceParams(voice=str(voice), pitch=3.0), pan=0.4)]
    texts = [("ANN", "S1", "", "Is anyone there at all?"), ("BOB", "S1", "off", "Only me, down the hall."),
             ("ANN", "S2", "moving-away", "Then I am going out."), ("BOB", "S2", "phone", "Call me when you land.")]
    project.lines = [Line(id=f"L{i}", role=role, scene=scene, text=text, perspective=perspective)
                     for i, (role, scene, perspective, text) in enumerate(texts, 1)]
    return project


def _shouted(seconds: float) -> np.ndarray:
    """Noise with syllable-rate swings and hard peaks: a line whose peaks stand far above its loudness."""
    rng = np.random.default_rng(11)
    n = int(seconds * RATE)
    audio = rng.standard_normal(n) * 0.05 * (0.5 + 0.5 * np.sin(2 * np.pi * 4.0 * np.arange(n) / RATE) ** 2)
    for at in rng.integers(0, n - 400, 8):
        audio[at:at + 300] *= 12.0
    return np.clip(audio, -0.99, 0.99).astype(np.float32)


@pytest.fixture
def session(tiny_voices: dict[str, Path], tmp_path: Path) -> Iterator[tuple[Session, Project]]:
    project = _staged_project(tiny_voices["single"])
    # The first line a recorded take with a shout in it (the tiny voice's lines are too even for the
    # dialogue leveller to touch): the live/export check then has the leveller at work.
    take = tmp_path / "take.wav"
    sf.write(take, _shouted(1.5), RATE)
    project.lines[0].recording = str(take)
    synth = ClipSynthesizer(VoiceLibrary(base_dir=tmp_path), RATE, ClipCache(tmp_path / "cache"))
    live = Session(project, None, sink=NullSink(RATE, speed=8.0), synth=synth)
    assert live.wait_idle(30.0)
    yield live, project
    live.close()


def test_live_playback_mixes_what_the_export_writes(session: tuple[Session, Project], tmp_path: Path) -> None:
    live, project = session
    report = render_session(live, tmp_path / "out")
    assert len(line_stages(project)) == 4
    frames = int(report.duration_s * RATE)
    written = [sf.read(report.stems[role.name], dtype="float32")[0] for role in project.cast]
    assert all(np.abs(stem).max() > 0.01 for stem in written)
    chain = DialogueChain(project, report.staging_db)  # the leveller before the staging, as both mix it
    levelled = [line.id for line in project.lines
                if chain.envelope(line.id, line.role, live.book.records[line.id].clip).active]  # type: ignore[arg-type]
    assert levelled, "the leveller did nothing: the check would not cover it"

    def live_stems() -> np.ndarray:
        programme = live.programme
        programme.set_master_gain(report.gain_db)
        block = 1024  # the live mixer's block, not the export's
        got = np.zeros((len(project.cast), frames, 2), dtype=np.float32)
        for t in range(0, frames, block):
            n = min(block, frames - t)
            got[:, t:t + n] = programme.mix(t, n)[1][:len(project.cast)]
        return got

    # Live playback stages a line without its room until the room is made off its control
    # thread (the export made it meanwhile): from then on it mixes what the export wrote.
    deadline = time.monotonic() + 60.0
    while True:
        assert live.wait_idle(30.0)
        got = live_stems()
        same = all(np.allclose(got[k, :min(frames, w.shape[0])], w[:frames], atol=1e-5) for k, w in enumerate(written))
        if same or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    for lane, stem in enumerate(written):
        span = min(frames, stem.shape[0])
        assert_allclose(got[lane, :span], stem[:span], atol=1e-5)


def test_a_stager_stages_each_clip_once(responses: RoomResponses) -> None:
    stager = Stager(responses)
    stage = LineStage(room=ROOM_PRESETS["car"])
    clip = _noise(0.2)
    first = stager.clip("L1", clip, stage, RATE)
    assert stager.clip("L1", clip, stage, RATE) is first
    assert stager.clip("L1", clip.copy(), stage, RATE) is not first  # a new take is staged again
    assert stager.clip("L1", clip, None, RATE) is clip
    assert set(PERSPECTIVES) >= {"off", "phone", "door", "moving-away", "approaching", "voice-over"}


def test_the_live_fill_of_staged_clips_allocates_nothing(responses: RoomResponses) -> None:
    import tracemalloc

    from engine.audio.live import LivePlayer

    stage = line_stage(ROOM_PRESETS["car"], "moving-away", None, 0.0)
    assert stage is not None
    staged = Stager(responses).clip("L1", _noise(2.0), stage, RATE)
    mixer = BlockMixer([PlacedClip(0, 100, staged), PlacedClip(1, 3000, _noise(1.0, seed=2))], 2, 4096)
    player = LivePlayer(mixer, RATE, NullSink(RATE), block=1024)  # type: ignore[arg-type]
    player._apply("play", 0, 0)
    ring = player.ring
    for _ in range(8):  # warm up: cached views and ints
        player._fill_block()
        ring.commit_read(ring.read_available())
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        for _ in range(150):  # through the staged clip and its tail
            player._fill_block()
            ring.commit_read(ring.read_available())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - base < 4096, f"the fill allocated {peak - base} bytes"


def test_live_staging_never_waits_for_a_room(tmp_path: Path) -> None:
    responses = RoomResponses(tmp_path)
    called = threading.Event()
    stager = Stager(responses, room_ready=called.set)
    stage = LineStage(room=ROOM_PRESETS["car"])
    clip = _noise(0.2)
    first = stager.clip("L1", clip, stage, RATE)
    assert first.shape == (clip.shape[0], 2)  # no room yet: the direct sound alone, at once
    if not called.is_set():  # (a fast machine can make the car's room before the question)
        assert stager.staged("L1", clip, stage, RATE) is first  # remembered: not staged again
    assert called.wait(60.0)  # the room was made on the rooms thread
    assert stager.staged("L1", clip, stage, RATE) is None  # the room is ready: to be staged with it
    again = stager.clip("L1", clip, stage, RATE)
    assert again.shape[0] > clip.shape[0]  # now with the room's tail
    assert stager.staged("L1", clip, stage, RATE) is again
    assert_array_equal(again, stage_clip(clip, stage, RATE, responses.response(stage.room, RATE)))


def test_a_room_asked_for_by_every_line_answers_each_listener_once(tmp_path: Path) -> None:
    # Every line staged in a room not made yet asks again at each relayout; one answer per asks
    # made a flood of relayouts that kept a Stop waiting seconds behind them on the sample.
    responses = RoomResponses(tmp_path)
    answers: list[str] = []
    lock = threading.Lock()
    made = threading.Event()

    def relayout() -> None:
        with lock:
            answers.append("relayout")
        made.set()

    stager = Stager(responses, room_ready=relayout)
    stage = LineStage(room=ROOM_PRESETS["car"])
    for i in range(20):  # twenty lines in the car, each staged before its room is made
        stager.clip(f"L{i}", _noise(0.1, seed=i), stage, RATE)
    assert made.wait(60.0)
    for thread in threading.enumerate():  # every answer is given on the rooms thread, before it ends
        if thread.name == "radioplay-rooms":
            thread.join(60.0)
    assert answers == ["relayout"]


def test_the_ducking_key_hears_a_staged_clip_as_the_mean_square_of_its_channels() -> None:
    from engine.audio.ducking import DialogueKey

    rng = np.random.default_rng(9)
    stereo = (rng.standard_normal((9_000, 2)) * [0.1, 0.4]).astype(np.float32)
    key = DialogueKey(RATE)
    got = key.build([(123, stereo, 1.0)], 12_000)
    hop = key.hop
    power = np.zeros(12_000 + 2 * hop)
    power[123:123 + stereo.shape[0]] = (stereo.astype(np.float64) ** 2).mean(axis=1)
    expected = power[: got.size * hop].reshape(-1, hop).sum(axis=1) / hop
    assert_allclose(got, expected, rtol=1e-5, atol=1e-12)
