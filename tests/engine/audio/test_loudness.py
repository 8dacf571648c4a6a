"""Streaming LoudnessMeter against pyloudnorm (whole-array BS.1770-4), and the
4x-oversampled true-peak measurement."""

from __future__ import annotations

import math

import numpy as np
import pyloudnorm
import pytest
from numpy.testing import assert_allclose

from engine.audio.loudness import LoudnessMeter, true_peak_dbtp


def noise(rate: int, seconds: float, channels: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 0.1, (int(rate * seconds), channels))
    return x[:, 0] if channels == 1 else x


def sine(rate: int, seconds: float, channels: int, freq: float = 440.0, amp: float = 0.3) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    x = amp * np.sin(2 * np.pi * freq * t)
    return x if channels == 1 else np.stack([x, 0.5 * x], axis=1)


def speech_like(rate: int, seconds: float, channels: int, seed: int = 1) -> np.ndarray:
    """Noise shaped by a syllable-rate envelope with pauses, so the gates matter:
    stretches of near-silence (below the relative gate) and a quiet passage."""
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    t = np.arange(n) / rate
    envelope = np.clip(np.sin(2 * np.pi * 4.0 * t), 0.0, None) ** 2
    envelope *= (np.sin(2 * np.pi * 0.23 * t) > -0.4)  # pauses of about 1.5 s
    envelope[n // 2: n // 2 + rate * 3] *= 0.05  # a whispered passage
    carrier = rng.normal(0.0, 0.2, (n, channels))
    x = carrier * envelope[:, None]
    return x[:, 0] if channels == 1 else x


def stream(x: np.ndarray, rate: int, block: int) -> float:
    channels = 1 if x.ndim == 1 else x.shape[1]
    meter = LoudnessMeter(rate, channels=channels)
    for i in range(0, x.shape[0], block):
        meter.feed(x[i:i + block])
    return meter.integrated()


def reference(x: np.ndarray, rate: int) -> float:
    return float(pyloudnorm.Meter(rate).integrated_loudness(x.copy()))


def fade_in(rate: int, seconds: float, channels: int, seed: int = 2) -> np.ndarray:
    """Noise rising steadily from -40 dB to 0 dB: block loudness is spread evenly
    across the relative gate, so the gate's exact position moves the result."""
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    gain = 10 ** (np.linspace(-40.0, 0.0, n) / 20)
    x = rng.normal(0.0, 0.2, (n, channels)) * gain[:, None]
    return x[:, 0] if channels == 1 else x


SIGNALS = {"noise": noise, "sine": sine, "speech": speech_like, "fade_in": fade_in}


@pytest.mark.parametrize("rate", [22050, 44100, 48000])
@pytest.mark.parametrize("kind", sorted(SIGNALS))
@pytest.mark.parametrize("channels", [1, 2])
def test_matches_pyloudnorm(rate: int, kind: str, channels: int) -> None:
    seconds = {"noise": 10.0, "sine": 12.3, "speech": 20.0, "fade_in": 25.0}[kind]
    x = SIGNALS[kind](rate, seconds, channels)
    expected = reference(x, rate)
    assert math.isfinite(expected)
    got = stream(x, rate, 4097)
    assert abs(got - expected) < 0.1, (got, expected)


@pytest.mark.parametrize("block", [64, 65, 8192, 8193])
def test_awkward_blocks_match_pyloudnorm(block: int) -> None:
    rate = 48000
    x = speech_like(rate, 30.0, 2, seed=3)
    assert abs(stream(x, rate, block) - reference(x, rate)) < 0.1


def test_block_size_independent() -> None:
    rate = 44100
    x = speech_like(rate, 12.0, 2, seed=4)
    whole = stream(x, rate, x.shape[0])
    for block in (1000, 64, 65, 8192, 8193, 44100):
        assert abs(stream(x, rate, block) - whole) < 1e-9
    # Irregular block sizes too.
    rng = np.random.default_rng(0)
    meter = LoudnessMeter(rate)
    pos = 0
    while pos < x.shape[0]:
        n = int(rng.integers(1, 5000))
        meter.feed(x[pos:pos + n])
        pos += n
    assert abs(meter.integrated() - whole) < 1e-9


def test_single_samples_match_whole() -> None:
    rate = 22050
    x = noise(rate, 1.0, 2, seed=9)
    meter = LoudnessMeter(rate)
    for i in range(x.shape[0]):
        meter.feed(x[i:i + 1])
    assert abs(meter.integrated() - stream(x, rate, x.shape[0])) < 1e-9


@pytest.mark.parametrize("channels", [1, 2])
def test_silence_is_minus_infinity(channels: int) -> None:
    rate = 48000
    shape = (rate * 5,) if channels == 1 else (rate * 5, channels)
    assert stream(np.zeros(shape), rate, 8192) == -math.inf


def test_too_short_is_minus_infinity() -> None:
    meter = LoudnessMeter(48000)
    meter.feed(np.full((48000 * 3 // 10, 2), 0.5))  # 300 ms: no full 400 ms block
    assert meter.integrated() == -math.inf
    assert LoudnessMeter(48000).integrated() == -math.inf


def test_below_absolute_gate_is_minus_infinity() -> None:
    rate = 48000
    x = sine(rate, 5.0, 2, freq=997.0, amp=10 ** (-80 / 20))  # ~ -80 LUFS
    assert stream(x, rate, 8192) == -math.inf


@pytest.mark.parametrize("rate", [44100, 48000])
def test_sine_at_minus_20_dbfs(rate: int) -> None:
    """BS.1770: a 997 Hz sine at X dBFS in one channel reads about X - 3.01 LUFS;
    the same sine in both channels reads about X LUFS."""
    t = np.arange(rate * 10) / rate
    x = 10 ** (-20 / 20) * np.sin(2 * np.pi * 997.0 * t)
    mono = stream(x, rate, 8192)
    assert abs(mono - reference(x, rate)) < 0.01
    assert abs(mono - (-23.01)) < 0.05
    both = np.stack([x, x], axis=1)
    stereo = stream(both, rate, 8192)
    assert abs(stereo - reference(both, rate)) < 0.01
    assert abs(stereo - (-20.0)) < 0.05
    one_side = np.stack([x, np.zeros_like(x)], axis=1)
    assert abs(stream(one_side, rate, 65) - mono) < 0.01


def test_level_change_shifts_loudness_by_the_same_db() -> None:
    rate = 48000
    x = speech_like(rate, 15.0, 2, seed=5)
    base = stream(x, rate, 8192)
    assert abs(stream(x * 10 ** (-6 / 20), rate, 8192) - (base - 6.0)) < 1e-6


@pytest.mark.parametrize("block", [1000, 19200])
def test_first_gating_block_after_400_ms(block: int) -> None:
    """Four 100 ms hops make the first 400 ms gating block; one frame less is not enough."""
    rate = 48000
    x = sine(rate, 0.4, 2, freq=997.0)
    assert x.shape[0] == 19200
    short = LoudnessMeter(rate)
    short.feed(x[:-1])
    assert short.integrated() == -math.inf
    meter = LoudnessMeter(rate)
    for i in range(0, x.shape[0], block):
        meter.feed(x[i:i + block])
    assert math.isfinite(meter.integrated())


@pytest.mark.parametrize("rate", [22050, 44100, 48000])
def test_true_peak_exceeds_sample_peak(rate: int) -> None:
    """A sine at fs/4 sampled at 45 degrees: every sample is 0.707 of the peak."""
    amp = 0.5
    n = rate * 2
    k = np.arange(n)
    x = amp * np.sin(2 * np.pi * 0.25 * k + np.pi / 4)
    fade = int(0.02 * rate)  # avoid a click at the edges (its ringing is real)
    ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, fade))
    x[:fade] *= ramp
    x[-fade:] *= ramp[::-1]
    sample_peak_db = 20 * math.log10(np.max(np.abs(x)))
    assert_allclose(sample_peak_db, 20 * math.log10(amp * math.sqrt(0.5)), atol=1e-3)
    tp = true_peak_dbtp(x, rate)
    assert tp > sample_peak_db + 2.5
    assert abs(tp - 20 * math.log10(amp)) < 0.1
    # Stereo: the louder channel decides.
    stereo = np.stack([0.5 * x, x], axis=1).astype(np.float32)
    assert abs(true_peak_dbtp(stereo, rate) - tp) < 0.05


def test_true_peak_of_silence_and_empty() -> None:
    assert true_peak_dbtp(np.zeros((1000, 2)), 48000) == -math.inf
    assert true_peak_dbtp(np.zeros(0), 48000) == -math.inf
