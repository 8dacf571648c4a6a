"""Sound lanes in the programme: beds loop with a crossfade, fades, ducking
from the dialogue bus (depth, look-ahead, release), DME buses, and the whole
programme independent of the block size (1, 64, 65, 8192, 8193)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from engine.audio.ducking import DialogueKey, DuckSettings, GainReader, duck_curve, hop_frames
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.programme import Programme
from engine.audio.soundbus import SoundBus, place_sound

RATE = 48_000
MUSIC_DUCK = DuckSettings(-12.0, 0.15, 0.6, 0.2)
AMBIENCE_DUCK = DuckSettings(-6.0, 0.3, 1.0, 0.2)


def tone(seconds: float, freq: float, level: float = 0.3, channels: int = 1) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    x = (level * np.sin(2 * np.pi * freq * t)).astype(np.float32)
    return x if channels == 1 else np.stack([x, x * 0.5], axis=1)


def speech(seconds: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 0.05, int(seconds * RATE)).astype(np.float32)


def dialogue(max_block: int = 16384) -> BlockMixer:
    clips = [PlacedClip(0, RATE * 2, speech(1.0, 1)), PlacedClip(1, int(RATE * 3.5), speech(0.8, 2))]
    mixer = BlockMixer(clips, 2, max_block)
    mixer.set_lane(0, 0.0, -0.3, True)
    mixer.set_lane(1, 0.0, 0.3, True)
    return mixer


def sound_bus(max_block: int = 16384) -> SoundBus:
    bus = SoundBus(["effects", "ambience", "music"], RATE, max_block)
    bus.set_ducking(1, AMBIENCE_DUCK)
    bus.set_ducking(2, MUSIC_DUCK)
    bus.set_sounds([
        place_sound(0, int(RATE * 1.2), None, tone(0.3, 900.0), RATE, gain_db=-3.0, pan=0.5),
        place_sound(1, 0, RATE * 5, tone(0.7, 220.0, channels=2), RATE, loop=True, fade_in_s=0.2, fade_out_s=0.5),
        place_sound(2, RATE // 2, RATE * 5, tone(1.3, 330.0), RATE, loop=True, fade_out_s=0.3),
    ])
    return bus


def render(programme: Programme, total: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    masters, stems = [], []
    for t in range(0, total, block):
        n = min(block, total - t)
        m, s = programme.process(t, n)
        masters.append(m.copy())
        stems.append(s.copy())
    return np.concatenate(masters), np.concatenate(stems, axis=1)


def test_a_bed_loops_through_a_crossfade_without_a_click() -> None:
    audio = tone(0.37, 441.0)  # not a whole number of periods: a plain loop would click
    sound = place_sound(0, 0, RATE * 2, audio, RATE, loop=True)
    bus = SoundBus(["ambience"], RATE, 4096)
    bus.set_sounds([sound])
    stems = np.zeros((1, RATE * 2, 2), dtype=np.float32)
    for t in range(0, RATE * 2, 4096):
        n = min(4096, RATE * 2 - t)
        bus.process(t, n, stems[:, t:t + n])
    left = stems[0, :, 0]
    assert sound.body is not None
    cut = sound.body.shape[0]
    assert_allclose(left[:cut], audio[:cut] * sound.gains[0], atol=1e-7)  # first pass: the file itself
    step = np.abs(np.diff(left)).max()
    assert step < 1.2 * np.abs(np.diff(audio)).max() * sound.gains[0]
    assert np.abs(left[-RATE // 2:]).max() > 0.1  # still playing at the end of its length


def test_a_one_shot_plays_once_and_fades() -> None:
    sound = place_sound(0, 100, None, np.ones(1000, dtype=np.float32), RATE, fade_in_s=100 / RATE,
                        fade_out_s=200 / RATE)
    bus = SoundBus(["effects"], RATE, 4096)
    bus.set_sounds([sound])
    stems = np.zeros((1, 2000, 2), dtype=np.float32)
    bus.process(0, 2000, stems)
    left = stems[0, :, 0] / sound.gains[0]
    assert left[:100].max() == 0.0 and left[1100:].max() == 0.0
    assert left[100] == 0.0 and left[150] == pytest.approx(0.5) and left[600] == pytest.approx(1.0)
    assert left[1000] == pytest.approx(0.5) and left[1099] == pytest.approx(1 / 200)


def test_duck_curve_is_down_by_the_depth_under_speech_and_ahead_of_it() -> None:
    hop = hop_frames(RATE)
    key = np.zeros(600)
    key[200:300] = 1e-3  # speech from 2.0 s to 3.0 s (10 ms hops)
    gains_db = 20 * np.log10(duck_curve(key, MUSIC_DUCK))
    assert gains_db[:150].max() == pytest.approx(0.0)
    assert_allclose(gains_db[180:300], -12.0, atol=1e-5)  # full depth 0.2 s before the voice
    assert -12.0 < gains_db[170] < 0.0  # the attack ramp before that
    assert_allclose(gains_db[300:330], -12.0, atol=1e-5)  # held over a word gap
    assert gains_db[450:].min() == pytest.approx(0.0)  # released
    reader = GainReader(hop, 4096)
    curve = duck_curve(key, MUSIC_DUCK)
    frames = reader.read(curve, 200 * hop, 3 * hop)
    assert_allclose(frames, curve[200], rtol=1e-6)


def test_the_key_hears_only_audible_dialogue() -> None:
    mixer = dialogue()
    key = DialogueKey(RATE)
    loud = key.build(mixer.key_clips(), RATE * 6)
    hop = key.hop
    assert loud[2 * RATE // hop + 10] > 1e-4 and loud[RATE // hop] == 0.0
    version = mixer.version
    mixer.set_lane(0, 0.0, -0.3, False)
    assert mixer.version == version + 1
    quiet = key.build(mixer.key_clips(), RATE * 6)
    assert quiet[2 * RATE // hop + 10] == 0.0 and quiet[int(3.6 * RATE) // hop] > 1e-4
    mixer.set_lane(1, 0.0, 0.3, True)  # unchanged: nothing to rebuild
    assert mixer.version == version + 1


def test_music_is_ducked_under_the_dialogue_in_the_programme() -> None:
    programme = Programme(dialogue(), RATE, master_effect="clean", sounds=sound_bus())
    _, stems = render(programme, RATE * 6, 4096)
    music = stems[2 + 2, :, 0]

    def level(a: float, b: float) -> float:
        x = music[int(a * RATE):int(b * RATE)]
        return float(10 * np.log10(np.mean(x * x)))

    clear, under = level(0.8, 1.5), level(2.2, 2.9)
    assert clear - under == pytest.approx(12.0, abs=0.2)


@pytest.mark.parametrize("block", [1, 64, 65, 8192, 8193])
def test_the_programme_with_sound_lanes_does_not_depend_on_the_block_size(block: int) -> None:
    total = RATE * 6
    reference = render(Programme(dialogue(), RATE, ["room", "none"], "broadcast", 3.0, sounds=sound_bus()),
                       total, 4096)
    if block == 1:
        total = RATE  # one frame at a time: one second is plenty (the bed and effect start inside it)
        reference = (reference[0][:total], reference[1][:, :total])
    master, stems = render(Programme(dialogue(), RATE, ["room", "none"], "broadcast", 3.0, sounds=sound_bus()),
                           total, block)
    assert_allclose(stems, reference[1], atol=1e-4)
    assert_allclose(master, reference[0], atol=1e-4)


def test_a_sound_lanes_gain_and_balance_apply_to_its_stem() -> None:
    plain = Programme(dialogue(), RATE, master_effect="clean", sounds=sound_bus())
    bus = sound_bus()
    bus.set_lane(2, -6.0, True, pan=0.5)  # the music lane: 6 dB down, the left side turned down
    moved = Programme(dialogue(), RATE, master_effect="clean", sounds=bus)
    a = plain.process(RATE // 2 + 100, 4096)[1][4].copy()
    b = moved.process(RATE // 2 + 100, 4096)[1][4]
    g = 10 ** (-6 / 20)
    assert_allclose(b[:, 0], a[:, 0] * g * 0.5, rtol=1e-5, atol=1e-7)
    assert_allclose(b[:, 1], a[:, 1] * g, rtol=1e-5, atol=1e-7)


def test_dme_buses_sum_to_the_stems() -> None:
    programme = Programme(dialogue(), RATE, master_effect="clean", gain_db=2.0, sounds=sound_bus())
    _, stems = programme.process(RATE * 2, 8192)
    dme = programme.buses(stems)
    assert_allclose(dme[0], stems[0] + stems[1], atol=1e-7)
    assert_allclose(dme[1], stems[2] + stems[3], atol=1e-7)
    assert_allclose(dme[2], stems[4], atol=1e-7)
    assert np.abs(dme[2]).max() > 0.0 and np.abs(dme[0]).max() > 0.0


def test_sound_lanes_make_the_programme_wet_for_the_analysis() -> None:
    programme = Programme(dialogue(), RATE, master_effect="clean", sounds=sound_bus())
    assert not programme.dry
    bare = Programme(dialogue(), RATE, master_effect="clean", sounds=SoundBus(["music"], RATE, 16384))
    assert bare.dry
