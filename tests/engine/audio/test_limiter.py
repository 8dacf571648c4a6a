"""LookaheadLimiter: the ceiling holds, latency is exact, quiet signals pass
untouched, block size does not matter, gain recovers, flush drains the delay."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from engine.audio.limiter import LookaheadLimiter

RATES = [22050, 44100, 48000]


def run(limiter: LookaheadLimiter, x: np.ndarray, block: int, flush: bool = True) -> np.ndarray:
    out = [limiter.process(x[i:i + block]) for i in range(0, x.shape[0], block)]
    for o, i in zip(out, range(0, x.shape[0], block), strict=True):
        assert o.shape == x[i:i + block].shape  # same number of frames as given
    if flush:
        out.append(limiter.flush())
    return np.concatenate(out)


def loud_material(rate: int, seconds: float, seed: int = 0) -> np.ndarray:
    """Noise with sudden transients far over full scale, and a quiet passage."""
    rng = np.random.default_rng(seed)
    n = int(rate * seconds)
    x = rng.normal(0.0, 0.3, (n, 2))
    for pos in rng.integers(0, n - 10, 25):
        x[pos:pos + 3] *= 20.0  # single-sample-ish spikes
    x[n // 3: n // 3 + rate // 10] *= 6.0  # a loud burst
    x[n // 2: n // 2 + rate // 5] *= 0.01
    return x.astype(np.float32)


@pytest.mark.parametrize("rate", RATES)
@pytest.mark.parametrize("block", [7, 64, 65, 8192, 8193])
@pytest.mark.parametrize(("ceiling_db", "release_ms"), [(-2.0, 60.0), (-1.0, 0.0), (-6.0, 200.0)])
def test_ceiling_never_exceeded(rate: int, block: int, ceiling_db: float, release_ms: float) -> None:
    limiter = LookaheadLimiter(rate, ceiling_db=ceiling_db, release_ms=release_ms)
    x = loud_material(rate, 0.6 if block == 7 else 1.5, seed=block)
    y = run(limiter, x, block)
    ceiling = 10 ** (ceiling_db / 20)
    assert np.max(np.abs(y)) <= ceiling * (1 + 1e-6)
    assert limiter.gain_reduction_db < -20.0  # the spikes did get limited


@pytest.mark.parametrize("rate", RATES)
def test_ceiling_with_single_full_scale_steps(rate: int) -> None:
    """A step from silence to far over the ceiling, the hardest case for look-ahead."""
    limiter = LookaheadLimiter(rate, ceiling_db=-2.0)
    x = np.zeros((rate // 2, 2), dtype=np.float32)
    x[1000:] = 4.0
    x[1000:, 1] = -8.0  # channels are linked: the louder one decides
    y = run(limiter, x, 65)
    ceiling = 10 ** (-2 / 20)
    assert np.max(np.abs(y)) <= ceiling * (1 + 1e-6)
    # Linked gain keeps the channel ratio.
    lat = limiter.latency
    tail = y[lat + 1000 + rate // 10: lat + x.shape[0]]
    assert_allclose(tail[:, 1], -2.0 * tail[:, 0], rtol=1e-6)
    assert_allclose(np.abs(tail[:, 1]), ceiling, rtol=1e-6)


@pytest.mark.parametrize("rate", RATES)
@pytest.mark.parametrize("lookahead_ms", [1.0, 5.0, 10.0])
def test_latency_and_transparency_below_ceiling(rate: int, lookahead_ms: float) -> None:
    limiter = LookaheadLimiter(rate, ceiling_db=-2.0, lookahead_ms=lookahead_ms)
    assert limiter.latency == max(1, int(rate * lookahead_ms / 1000))
    rng = np.random.default_rng(1)
    x = rng.uniform(-0.7, 0.7, (rate // 2, 2)).astype(np.float32)  # peaks < -2 dBFS (0.794)
    y = run(limiter, x, 65)
    lat = limiter.latency
    assert y.shape == (x.shape[0] + lat, 2)
    assert not y[:lat].any()  # the delay line starts silent
    assert_array_equal(y[lat:], x)  # exactly delayed, bit for bit
    assert limiter.gain_reduction_db == 0.0


def test_mono_channel_count() -> None:
    limiter = LookaheadLimiter(48000, channels=1)
    x = np.linspace(-3, 3, 5000, dtype=np.float32)[:, None]
    y = run(limiter, x, 64)
    assert y.shape == (5000 + limiter.latency, 1)
    assert np.max(np.abs(y)) <= 10 ** (-2 / 20) * (1 + 1e-6)


@pytest.mark.parametrize("rate", [22050, 48000])
def test_block_size_independent(rate: int) -> None:
    x = loud_material(rate, 0.5, seed=11)
    outputs = {block: run(LookaheadLimiter(rate), x, block) for block in (7, 64, 65, 8192, 8193)}
    reference = outputs[8193]
    for block, y in outputs.items():
        assert y.shape == reference.shape, block
        assert_allclose(y, reference, rtol=1e-6, atol=1e-7, err_msg=f"block {block}")


def test_irregular_blocks_and_empty_block() -> None:
    rate = 44100
    x = loud_material(rate, 0.5, seed=12)
    reference = run(LookaheadLimiter(rate), x, x.shape[0])
    limiter = LookaheadLimiter(rate)
    rng = np.random.default_rng(3)
    out, pos = [], 0
    while pos < x.shape[0]:
        n = int(rng.integers(1, 3000))
        out.append(limiter.process(x[pos:pos + n]))
        assert limiter.process(x[:0]).shape == (0, 2)  # an empty block changes nothing
        pos += n
    out.append(limiter.flush())
    assert_allclose(np.concatenate(out), reference, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("rate", RATES)
def test_gain_recovers_after_transient(rate: int) -> None:
    """lookahead 5 ms + release 60 ms: quiet material 100 ms after the spike is untouched."""
    limiter = LookaheadLimiter(rate, ceiling_db=-2.0, lookahead_ms=5.0, release_ms=60.0)
    n = rate  # one second
    t = np.arange(n) / rate
    quiet = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    x = np.stack([quiet, quiet], axis=1)
    spike_at = rate // 4
    x[spike_at] = 5.0
    y = run(limiter, x, 64)
    lat = limiter.latency
    yd = y[lat:lat + n]  # realigned with the input
    later = spike_at + int(0.1 * rate)
    assert_allclose(yd[later:], x[later:], rtol=1e-6, atol=1e-7)
    assert_allclose(yd[:spike_at - limiter.lookahead], x[:spike_at - limiter.lookahead], rtol=0, atol=0)
    # ... and the spike itself was pulled down to the ceiling, with the gain
    # ramping in before it (look-ahead) rather than clipping.
    assert abs(yd[spike_at, 0]) <= 10 ** (-2 / 20) * (1 + 1e-6)
    before = slice(spike_at - limiter.lookahead // 2, spike_at)
    audible = np.abs(x[before, 0]) > 0.01
    assert audible.sum() > 10
    assert np.all(np.abs(yd[before, 0][audible]) < 0.99 * np.abs(x[before, 0][audible]))


def test_flush_returns_last_latency_frames() -> None:
    rate = 48000
    limiter = LookaheadLimiter(rate)
    lat = limiter.latency
    x = np.random.default_rng(5).uniform(-0.5, 0.5, (3000, 2)).astype(np.float32)
    y = limiter.process(x)
    tail = limiter.flush()
    assert tail.shape == (lat, 2)
    assert_array_equal(y[lat:], x[:-lat])
    assert_array_equal(tail, x[-lat:])
    # After the flush the delay line holds only silence.
    assert not limiter.flush().any()
