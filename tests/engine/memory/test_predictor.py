"""engine.memory.predictor: online output-length prediction and its margin."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from engine.memory.predictor import LengthPredictor


def feed(p: LengthPredictor, voice: str, a: float, b: float, noise: float, n: int, seed: int = 0) -> int:
    """Observe ``n`` synthetic clips: samples = scale * (a * phonemes + b) * (1 + noise * N(0, 1))."""
    rng = np.random.default_rng(seed)
    misses = 0
    for _ in range(n):
        phonemes = int(rng.integers(20, 200))
        scale = float(rng.uniform(0.8, 1.3))
        actual = round(scale * (a * phonemes + b) * (1.0 + noise * rng.standard_normal()))
        misses += p.observe(voice, phonemes, scale, actual)
    return misses


def test_prior_before_any_observation() -> None:
    assert LengthPredictor().predict("v", 10) == 11_000  # 1100 samples per phoneme at 22050 Hz
    assert LengthPredictor(sample_rate=44_100).predict("v", 10) == 22_000
    p = LengthPredictor()
    p.set_sample_rate("w", 48_000)
    assert p.predict("w", 10) == round(1100 * 48_000 / 22_050 * 10)
    assert p.predict("v", 10, length_scale=2.0) == 22_000
    assert p.margin("v") == 0.5  # nothing observed: the cap
    assert p.reserve_size("v", 10) == 16_500


def test_noiseless_data_is_fitted_exactly_with_an_intercept() -> None:
    p = LengthPredictor()
    for phonemes in (10, 50, 90, 130):
        p.observe("v", phonemes, 1.0, 900 * phonemes + 5000)
    assert p.predict("v", 70) == 900 * 70 + 5000
    assert p.predict("v", 70, 1.25) == round(1.25 * (900 * 70 + 5000))


def test_one_input_length_only_fits_through_the_origin() -> None:
    p = LengthPredictor()
    p.observe("v", 40, 1.0, 60_000)
    p.observe("v", 40, 1.0, 60_000)
    p.observe("v", 40, 1.0, 60_000)  # no spread in phonemes: the slope cannot be separated
    assert p.predict("v", 40) == 60_000 and p.predict("v", 20) == 30_000


def test_converges_on_noisy_data_to_a_few_percent() -> None:
    p = LengthPredictor()
    feed(p, "v", a=1000.0, b=3000.0, noise=0.02, n=800)
    report = p.report()
    assert report.observations == 800
    assert report.p90_error < 0.045  # ~1.645 sigma of 2% noise, plus the first few guesses
    assert report.p50_error < 0.025
    assert p.predict("v", 100) == pytest.approx(103_000, rel=0.01)


def test_margin_adapts_to_each_voices_error() -> None:
    p = LengthPredictor()
    feed(p, "quiet", 1000.0, 3000.0, noise=0.01, n=400, seed=1)
    feed(p, "noisy", 1000.0, 3000.0, noise=0.10, n=400, seed=2)
    assert p.margin("quiet") == 0.05  # the floor
    assert 0.09 < p.margin("noisy") < 0.2  # ~1.28 sigma of 10% noise
    assert p.margin("new") == 0.5
    assert p.reserve_size("quiet", 100) == pytest.approx(1.05 * p.predict("quiet", 100), abs=1)
    wild = LengthPredictor()
    feed(wild, "v", 1000.0, 0.0, noise=0.6, n=200)
    assert wild.margin("v") == 0.5  # the cap


def test_misses_are_counted_and_the_rate_matches_the_quantile() -> None:
    p = LengthPredictor()
    misses = feed(p, "v", 1000.0, 3000.0, noise=0.10, n=2000, seed=3)
    report = p.report()
    assert report.misses == misses
    assert report.miss_rate == pytest.approx(misses / 2000)
    assert 0.05 < report.miss_rate < 0.16  # a 90th-percentile margin misses about one in ten


def test_report_numbers_on_a_constructed_sequence() -> None:
    p = LengthPredictor()
    assert p.report().observations == 0 and p.report().miss_rate == 0.0
    assert p.observe("v", 10, 1.0, 11_000) is False  # exactly the prior; reserve was 16 500
    assert p.observe("v", 10, 1.0, 22_000) is True  # predicted 11 000, reserve 16 500
    report = p.report()
    assert (report.observations, report.misses, report.miss_rate, report.voices) == (2, 1, 0.5, 1)
    assert report.p50_error == pytest.approx(0.25)  # errors 0 and 0.5
    assert report.p90_error == pytest.approx(0.45)
    with pytest.raises(ValueError):
        p.observe("v", 10, 0.0, 100)


def test_voices_are_independent() -> None:
    p = LengthPredictor()
    feed(p, "slow", 1500.0, 0.0, noise=0.0, n=50, seed=4)
    before = p.predict("fast", 100)
    feed(p, "fast", 700.0, 2000.0, noise=0.0, n=50, seed=5)
    assert before == 110_000  # "fast" was still on the prior while "slow" was fitted
    assert p.predict("slow", 100) == 150_000
    assert p.predict("fast", 100) == 72_000
    assert p.report().voices == 2


def test_memory_is_bounded() -> None:
    p = LengthPredictor(window=100, voice_window=32)
    feed(p, "v", 1000.0, 0.0, noise=0.5, n=300)  # bad errors ...
    for phonemes in range(20, 120):  # ... then 100 perfect predictions
        p.observe("v", phonemes, 1.0, 1000 * phonemes)
    fit = p._fits["v"]
    assert len(p._errors) == 100 and len(fit.shortfalls) == 32
    assert p.report().p90_error < 0.05  # only the last window is reported
    assert p.report().observations == 400  # lifetime counts keep counting


def test_concurrent_observations_are_all_counted() -> None:
    p = LengthPredictor()
    threads = [threading.Thread(target=feed, args=(p, f"v{i % 2}", 1000.0, 0.0, 0.02, 300, i))
               for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report = p.report()
    assert report.observations == 1800 and report.voices == 2
    assert report.p90_error < 0.05
