"""Effect presets: names, block-size independence, what each preset does to
known signals, state across blocks and reset, and the master chain."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from engine.audio import effects
from engine.audio.effects import (
    LIMITER_CEILING_DB,
    EffectChain,
    MasterChain,
    lane_chain,
    master_stage,
)
from engine.audio.limiter import LookaheadLimiter
from engine.audio.loudness import CLIP_LUFS, LoudnessMeter
from engine.project.presets import DEFAULT_LANE_EFFECT, DEFAULT_MASTER_EFFECT, LANE_EFFECTS, MASTER_EFFECTS

RATE = 48_000
WET_LANE_EFFECTS = [name for name in LANE_EFFECTS if name != "none"]


def tone(freq: float, seconds: float, amp: float = 0.1, rate: int = RATE) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    x = (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)
    return np.stack([x, x], axis=1)


def speechlike(seconds: float, seed: int = 0, level: float = 0.05) -> np.ndarray:
    """Low-passed noise (a speech-like spectrum tilt) under a syllable envelope,
    with a gap of silence in the middle."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    white = rng.normal(0.0, 1.0, n)
    pink = np.convolve(white, np.exp(-np.arange(64) / 12.0), mode="same")  # ~ -6 dB/oct above 600 Hz
    t = np.arange(n) / RATE
    envelope = 0.3 + 0.7 * np.abs(np.sin(2 * np.pi * 3.0 * t))
    x = pink / pink.std() * level * envelope
    x[n // 2: n // 2 + RATE // 2] = 0.0
    return np.stack([x, 0.8 * x], axis=1).astype(np.float32)


def run(chain: EffectChain, x: np.ndarray, block: int) -> np.ndarray:
    return np.concatenate([chain.process(x[i:i + block]) for i in range(0, x.shape[0], block)])


def band_level_db(chain: EffectChain, freq: float, amp: float = 0.1) -> float:
    """Steady-state gain of a chain for a sine (after 0.2 s of settling)."""
    x = tone(freq, 0.6, amp)
    y = chain.process(x)
    settle = int(0.2 * RATE)
    return 20 * math.log10(np.sqrt(np.mean(y[settle:] ** 2)) / np.sqrt(np.mean(x[settle:] ** 2)))


def lufs(x: np.ndarray) -> float:
    meter = LoudnessMeter(RATE)
    meter.feed(x)
    return meter.integrated()


# --- names -----------------------------------------------------------------------------


def test_preset_names_and_defaults() -> None:
    assert {"none", "telephone", "radio", "room", "hall", "distance"} <= set(LANE_EFFECTS)
    assert set(MASTER_EFFECTS) == {"clean", "broadcast"}
    assert DEFAULT_LANE_EFFECT == "none" and DEFAULT_MASTER_EFFECT in MASTER_EFFECTS
    assert all(LANE_EFFECTS[name] and MASTER_EFFECTS.get(name, "x") for name in LANE_EFFECTS)


@pytest.mark.parametrize("factory, name, kind", [(lane_chain, "echo", "lane effect"),
                                                 (master_stage, "loud", "master effect"),
                                                 (lane_chain, "clean", "lane effect"),
                                                 (master_stage, "room", "master effect")])
def test_unknown_preset_names_the_choices(factory, name, kind) -> None:
    with pytest.raises(ValueError, match=f"unknown {kind} '{name}' \\(choose "):
        factory(name, RATE)


def test_dry_presets_are_the_identity_without_pedalboard() -> None:
    x = speechlike(0.2)
    for chain in (lane_chain("none", RATE), master_stage("clean", RATE)):
        assert chain.dry
        assert chain.process(x) is x  # not even a copy
    assert not any(lane_chain(name, RATE).dry for name in WET_LANE_EFFECTS)
    assert not master_stage("broadcast", RATE).dry


# --- block size and state -------------------------------------------------------------


def make_chain(name: str) -> EffectChain:
    return master_stage(name, RATE) if name in MASTER_EFFECTS else lane_chain(name, RATE)


@pytest.mark.parametrize("name", WET_LANE_EFFECTS + ["broadcast"])
@pytest.mark.parametrize("block", [3, 64, 65, 8192, 8193])
def test_presets_do_not_depend_on_the_block_size(name: str, block: int) -> None:
    """Also across the half second of silence in the middle, where blocks are
    skipped once a chain is idle: skipping changes the output by less than the
    idle level (-100 dBFS), and a compressor's envelope has fallen by then."""
    x = speechlike(1.5, seed=1, level=0.2)
    whole = make_chain(name).process(x)
    assert_allclose(run(make_chain(name), x, block), whole, atol=2e-5)


@pytest.mark.parametrize("name", WET_LANE_EFFECTS + ["broadcast"])
def test_growing_and_shrinking_blocks_change_nothing(name: str) -> None:
    """pedalboard resets a plug-in given a larger block than before; the
    chains are primed so that never happens (live blocks vary in size)."""
    x = speechlike(1.0, seed=10)
    whole = make_chain(name).process(x)
    used = make_chain(name)
    used.process(x[:5000])
    used.reset()  # a reset chain must behave like a fresh one, too
    for chain in (make_chain(name), used):
        pieces, t = [], 0
        for n in [3, 3, 5, 700, 8193, 64, 3, 9000] * 10:
            if t < x.shape[0]:
                pieces.append(chain.process(x[t:t + n]))
                t += n
        assert_allclose(np.concatenate(pieces), whole, atol=2e-5)


@pytest.mark.parametrize("name", WET_LANE_EFFECTS)
def test_reset_forgets_the_tail_and_restarts_like_a_new_chain(name: str) -> None:
    x = speechlike(0.5, seed=2)
    chain = lane_chain(name, RATE)
    chain.process(x)
    chain.reset()
    assert_allclose(chain.process(x), lane_chain(name, RATE).process(x), atol=1e-7)
    chain.process(x)
    silence = np.zeros((4096, 2), dtype=np.float32)
    assert not chain.process(silence, reset=True).any()


@pytest.mark.parametrize("name", ["room", "hall", "distance"])
def test_reverbs_ring_after_the_input_stops_then_go_idle(name: str) -> None:
    chain = lane_chain(name, RATE)
    x = speechlike(0.5, seed=3)
    chain.process(x)
    silence = np.zeros((int(0.1 * RATE), 2), dtype=np.float32)
    tail = chain.process(silence)
    assert np.sqrt(np.mean(tail ** 2)) > 1e-3 * np.sqrt(np.mean(x ** 2))  # a tail, within -60 dB
    # Well past the preset's stated tail the chain is idle: silence passes through untouched.
    for _ in range(int(4 * chain.tail_s / 0.1) + 5):
        out = chain.process(silence)
    assert out is silence


def test_hall_rings_longer_than_room() -> None:
    def tail_energy(name: str) -> float:
        chain = lane_chain(name, RATE)
        chain.process(speechlike(0.5, seed=4))
        chain.process(np.zeros((int(0.3 * RATE), 2), dtype=np.float32))
        return float(np.mean(chain.process(np.zeros((int(0.3 * RATE), 2), dtype=np.float32)) ** 2))

    assert tail_energy("hall") > 100 * tail_energy("room")  # 20 dB more left 0.3-0.6 s after


# --- what the presets do -------------------------------------------------------------


def test_telephone_is_a_300_to_3400_hz_band() -> None:
    levels = {f: band_level_db(lane_chain("telephone", RATE), f) for f in (100, 1000, 9000)}
    assert levels[100] < levels[1000] - 12
    assert levels[9000] < levels[1000] - 12
    assert abs(levels[1000]) < 6


def test_radio_is_narrower_than_telephone() -> None:
    def response(name: str, freq: float) -> float:  # quiet: under radio's compressor
        return band_level_db(lane_chain(name, RATE), freq, 0.01) - band_level_db(lane_chain(name, RATE), 1000, 0.01)

    for freq in (250.0, 5000.0):
        assert response("radio", freq) < response("telephone", freq) - 3


def test_telephone_and_radio_drive_round_off_peaks() -> None:
    """A loud tone comes out with harmonics (the drive), a quiet one nearly clean."""
    for name in ("telephone", "radio"):
        def third_harmonic_db(amp: float, name: str = name) -> float:
            y = lane_chain(name, RATE).process(tone(1000.0, 0.5, amp))[int(0.1 * RATE):, 0]
            spectrum = np.abs(np.fft.rfft(y * np.hanning(y.size)))
            bin_hz = RATE / y.size
            return float(20 * np.log10(spectrum[int(3000 / bin_hz)] / spectrum[int(1000 / bin_hz)]))

        assert third_harmonic_db(0.5) > third_harmonic_db(0.01) + 10


def test_distance_is_quieter_and_duller() -> None:
    x = speechlike(2.0, seed=5)
    assert -10.0 < lufs(lane_chain("distance", RATE).process(x)) - lufs(x) < -4.0
    assert band_level_db(lane_chain("distance", RATE), 8000) < band_level_db(lane_chain("distance", RATE), 300) - 6


@pytest.mark.parametrize("name", ["telephone", "radio", "room", "hall"])
def test_presets_keep_a_lines_loudness(name: str) -> None:
    """Make-up gains are calibrated on the real voice; on speech-shaped noise
    they land within a few LU (a missing make-up stage would be 4-9 LU off)."""
    x = speechlike(3.0, seed=6)
    x *= np.float32(10 ** ((CLIP_LUFS - lufs(x)) / 20))  # where lines arrive
    assert lufs(lane_chain(name, RATE).process(x)) == pytest.approx(lufs(x), abs=2.5)


def test_effects_add_no_latency() -> None:
    """Stems must stay aligned with the mix: every preset answers an onset at once."""
    x = np.zeros((4800, 2), dtype=np.float32)
    x[1000:, :] = tone(1000.0, (4800 - 1000) / RATE, 0.2)
    for name in WET_LANE_EFFECTS:
        y = lane_chain(name, RATE).process(x)
        assert not y[:1000].any()
        assert np.abs(y[1000:1010]).max() > 1e-3, name


# --- master ---------------------------------------------------------------------------


def test_broadcast_threshold_follows_the_master_gain() -> None:
    """Compressing x*G at gain G is G times compressing x at unity: the render
    analyses at unity and solves the gain afterwards."""
    x = speechlike(2.0, seed=7, level=0.2)
    reference = master_stage("broadcast", RATE, 0.0).process(x)
    for gain_db in (-6.0, 9.5):
        g = np.float32(10 ** (gain_db / 20))
        scaled = master_stage("broadcast", RATE, gain_db).process(x * g)
        assert_allclose(scaled, reference * g, rtol=1e-4, atol=1e-6)
    stage = master_stage("broadcast", RATE, 0.0)
    stage.set_gain_db(9.5)
    g = np.float32(10 ** (9.5 / 20))
    assert_allclose(stage.process(x * g), reference * g, rtol=1e-4, atol=1e-6)


def test_broadcast_compresses_loud_passages_and_leaves_quiet_ones() -> None:
    line = 10 ** ((CLIP_LUFS + effects.BROADCAST_THRESHOLD_OVER_LINE_DB) / 20)  # threshold (peak)
    quiet = tone(1000.0, 1.0, 0.25 * line)
    loud = tone(1000.0, 1.0, 8.0 * line)  # 18 dB over the threshold
    out = master_stage("broadcast", RATE).process(np.concatenate([quiet, loud]))
    settle = int(0.5 * RATE)
    assert_allclose(out[settle:RATE], quiet[settle:], rtol=1e-4)
    reduction = 20 * math.log10(np.abs(loud[settle:]).max() / np.abs(out[RATE + settle:]).max())
    ratio = effects.BROADCAST_RATIO
    assert reduction == pytest.approx(18.0 * (1 - 1 / ratio), abs=1.5)  # 3:1 above the threshold


def test_clean_master_is_exactly_the_limiter() -> None:
    x = speechlike(1.0, seed=8, level=0.6)
    chain = MasterChain("clean", RATE)
    limiter = LookaheadLimiter(RATE, LIMITER_CEILING_DB)
    assert chain.latency == limiter.latency
    for i in range(0, x.shape[0], 1000):
        np.testing.assert_array_equal(chain.process(x[i:i + 1000]), limiter.process(x[i:i + 1000]))
    np.testing.assert_array_equal(chain.flush(), limiter.flush())


@pytest.mark.parametrize("name", list(MASTER_EFFECTS))
def test_the_limiter_ends_every_master_chain(name: str) -> None:
    x = speechlike(1.0, seed=9, level=0.8) * 4  # far over full scale
    chain = MasterChain(name, RATE, gain_db=12.0)
    y = np.concatenate([chain.process(x[i:i + 4096]) for i in range(0, x.shape[0], 4096)] + [chain.flush()])
    assert np.abs(y).max() <= 10 ** (LIMITER_CEILING_DB / 20) + 1e-6


def test_swapping_the_master_preset_keeps_the_limiter_playing() -> None:
    chain = MasterChain("broadcast", RATE)
    marker = np.zeros((512, 2), dtype=np.float32)
    marker[-3:] = 0.25  # still in the limiter's delay line when the block returns
    head = chain.process(marker)
    assert not head[-3:].any()
    chain.set_preset("clean")
    assert chain.name == "clean"
    out = chain.process(np.zeros((512, 2), dtype=np.float32))
    assert_allclose(out[chain.latency - 3:chain.latency], 0.25)
