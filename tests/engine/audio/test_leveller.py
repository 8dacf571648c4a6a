"""The dialogue leveller's curve: the ceiling holds on every sample, quiet
lines pass untouched, the mixer plays exactly the curve the analysis and the
hand-off files use, and the meters count overs and the limiter's work."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.audio.leveller import DIALOGUE, LevellerSettings, lane_offset_db, line_envelope, target_gain_db
from engine.audio.meters import LevelMeters
from engine.audio.mixer import BlockMixer, PlacedClip, pan_gains

RATE = 48_000


def speechlike(seconds: float, seed: int) -> np.ndarray:
    """Noise bursts with syllable-rate amplitude swings and a few hard peaks."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4.0 * t) ** 2
    audio = rng.standard_normal(n) * 0.08 * envelope
    for at in rng.integers(0, n - 200, 6):
        audio[at:at + 120] *= 6.0  # plosives, a shout
    return audio.astype(np.float32)


@pytest.mark.parametrize("offset_db", [0.0, 6.0, 14.0])
def test_no_sample_passes_the_ceiling_at_any_offset(offset_db: float) -> None:
    audio = speechlike(3.0, seed=int(offset_db))
    envelope = line_envelope(audio, RATE, offset_db)
    out = envelope.apply(audio)
    ceiling = 10 ** ((DIALOGUE.ceiling_db - offset_db) / 20)
    assert float(np.max(np.abs(out))) <= ceiling * (1 + 1e-5)
    assert envelope.active and envelope.max_reduction_db > 1.0


def test_a_line_under_the_knee_is_left_alone() -> None:
    audio = speechlike(2.0, seed=3) * np.float32(0.05)  # peaks near -22 dBFS
    envelope = line_envelope(audio, RATE, 0.0)
    assert not envelope.active
    np.testing.assert_array_equal(envelope.apply(audio), audio)


def test_the_static_curve_compresses_above_the_knee_and_walls_at_the_ceiling() -> None:
    settings = LevellerSettings()
    knee, ceiling = settings.ceiling_db - settings.knee_db, settings.ceiling_db
    levels = np.array([knee - 10, knee, knee + 2, ceiling + 10])
    gains = target_gain_db(levels, settings)
    assert gains[0] == 0.0 and gains[1] == 0.0
    assert gains[2] == pytest.approx(-2 * (1 - 1 / settings.ratio))
    assert levels[3] + gains[3] == pytest.approx(ceiling)


def test_the_gain_eases_in_before_a_peak_and_holds_after_it() -> None:
    audio = np.full(RATE, 0.05, dtype=np.float32)
    audio[RATE // 2: RATE // 2 + 48] = 0.9  # one loud millisecond in the middle
    gains = line_envelope(audio, RATE, 0.0).gains
    cell = RATE // 1000
    peak_cell = RATE // 2 // cell
    ramp = 2 * DIALOGUE.smooth_ms  # the two box filters' reach
    assert gains[peak_cell - DIALOGUE.attack_ms - ramp - 1] == pytest.approx(1.0)
    assert gains[peak_cell - DIALOGUE.attack_ms // 2] < 1.0  # down ahead of it: the look-ahead
    assert gains[peak_cell + DIALOGUE.hold_ms - ramp] == pytest.approx(gains[peak_cell])
    assert gains[peak_cell + DIALOGUE.hold_ms + ramp + 2] == pytest.approx(1.0)


def test_the_mixer_plays_the_curve_the_analysis_reads_in_any_blocks() -> None:
    audio = speechlike(1.5, seed=7)
    gain_db, pan = 3.0, -0.3
    envelope = line_envelope(audio, RATE, lane_offset_db(gain_db, pan) + 6.0)
    clip = PlacedClip(0, 1000, audio, envelope)
    mixer = BlockMixer([clip], 1, max_block=1024)
    mixer.set_lane(0, gain_db, pan, True)
    left, right = pan_gains(gain_db, pan)
    expected = clip.levelled()
    total = clip.end + 500
    out = np.zeros((total, 2), dtype=np.float32)
    t, sizes = 0, (1, 7, 1024, 333, 1024, 1000)
    while t < total:
        n = min(sizes[t % len(sizes)], total - t)
        master, _ = mixer.process(t, n)
        out[t:t + n] = master
        t += n
    np.testing.assert_allclose(out[1000:clip.end, 0], expected * np.float32(left), atol=1e-6)
    np.testing.assert_allclose(out[1000:clip.end, 1], expected * np.float32(right), atol=1e-6)
    # The louder channel peaks at the ceiling the curve was made for, less the 6 dB it assumed.
    assert 20 * math.log10(float(np.max(np.abs(out)))) <= DIALOGUE.ceiling_db - 6.0 + 1e-4


def test_meters_count_real_overs_and_the_limiter_reduction() -> None:
    meters = LevelMeters(RATE, 2)
    block = np.zeros((1024, 2), dtype=np.float32)
    stems = np.zeros((2, 1024, 2), dtype=np.float32)
    stems[0, 10] = 0.99  # loud, not over
    stems[1, 10] = 1.2  # over
    gain = np.ones(1024, dtype=np.float32)
    gain[100] = 10 ** (-2.5 / 20)
    meters.update(block, stems, gain)
    snap = meters.snapshot
    assert snap.lane_overs == (0, 1) and snap.master_overs == 0
    assert snap.limiter_reduction_db == pytest.approx(2.5, abs=1e-3)
    assert snap.limiter_max_db == pytest.approx(2.5, abs=1e-3)
    for _ in range(100):  # two seconds of nothing limited: the reading falls back to 0
        meters.update(block, np.zeros_like(stems), np.ones(1024, dtype=np.float32))
    assert meters.snapshot.limiter_reduction_db == 0.0 and meters.snapshot.limiter_max_db == pytest.approx(2.5, 1e-3)
