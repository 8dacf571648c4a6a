"""Level meters against known signals: sine peaks, peak ballistics (decay and
hold), short-term and momentary loudness against BS.1770 (pyloudnorm), and
snapshots that never change once taken."""

from __future__ import annotations

import dataclasses
import math
import threading

import numpy as np
import pyloudnorm
import pytest

from engine.audio.meters import LevelMeters, MeterSnapshot

RATE = 48_000


def sine(level_db: float, seconds: float, freq: float = 1000.0, channels: int = 2) -> np.ndarray:
    """A sine whose samples hit its peak (1 kHz at 48 kHz: every 12th sample)."""
    t = np.arange(int(seconds * RATE)) / RATE
    x = (10 ** (level_db / 20) * np.sin(2 * np.pi * freq * t)).astype(np.float32)
    return np.repeat(x[:, None], channels, axis=1)


def feed(meters: LevelMeters, master: np.ndarray, lanes: list[np.ndarray] | None = None,
         block: int = 1024) -> None:
    lanes = lanes if lanes is not None else [master] * meters.lanes
    stems = np.stack(lanes)
    for i in range(0, master.shape[0], block):
        meters.update(master[i:i + block], stems[:, i:i + block])


def test_silence_reads_minus_infinity() -> None:
    meters = LevelMeters(RATE, 2)
    first = meters.snapshot
    assert first.frames == 0 and first.lane_peak_db == (-math.inf, -math.inf)
    feed(meters, np.zeros((RATE, 2), dtype=np.float32))
    snap = meters.snapshot
    assert snap.frames == RATE
    assert snap.lane_peak_db == (-math.inf,) * 2 and snap.master_peak_db == -math.inf
    assert snap.short_term_lufs == -math.inf and snap.momentary_lufs == -math.inf


@pytest.mark.parametrize("block", [1, 64, 65, 8192])
def test_a_minus_20_dbfs_sine_reads_minus_20(block: int) -> None:
    meters = LevelMeters(RATE, 3)
    x = sine(-20.0, 0.25)
    quiet = sine(-32.0, 0.25)
    feed(meters, x, [x, quiet, np.zeros_like(x)], block)
    snap = meters.snapshot
    assert snap.lane_peak_db[0] == pytest.approx(-20.0, abs=0.01)
    assert snap.lane_hold_db[0] == pytest.approx(-20.0, abs=0.01)
    assert snap.lane_peak_db[1] == pytest.approx(-32.0, abs=0.01)
    assert snap.lane_peak_db[2] == -math.inf
    assert snap.master_peak_db == pytest.approx(-20.0, abs=0.01)


def test_the_bar_falls_at_the_decay_rate_and_the_hold_waits() -> None:
    meters = LevelMeters(RATE, 1, decay_db_per_s=20.0, hold_s=1.5)
    feed(meters, sine(-20.0, 0.1), block=480)
    silence = np.zeros((int(0.5 * RATE), 2), dtype=np.float32)
    feed(meters, silence, block=480)
    snap = meters.snapshot
    assert snap.lane_peak_db[0] == pytest.approx(-30.0, abs=0.01)  # 0.5 s at 20 dB/s
    assert snap.lane_hold_db[0] == pytest.approx(-20.0, abs=0.01)  # still held
    feed(meters, np.zeros((RATE + 480, 2), dtype=np.float32), block=480)  # past the 1.5 s hold
    snap = meters.snapshot
    assert snap.lane_peak_db[0] == pytest.approx(-50.2, abs=0.01)  # 1.51 s at 20 dB/s
    assert snap.lane_hold_db[0] < -45.0  # the mark dropped to the bar
    # A new peak lifts the bar at once.
    feed(meters, sine(-6.0, 0.01), block=480)
    assert meters.snapshot.lane_peak_db[0] == pytest.approx(-6.0, abs=0.01)
    assert meters.snapshot.lane_hold_db[0] == pytest.approx(-6.0, abs=0.01)


@pytest.mark.parametrize("level_db", [-10.0, -23.0, -40.0])
def test_short_term_loudness_of_a_steady_sine(level_db: float) -> None:
    """Both channels at A: BS.1770 reads ~A dBFS + 0.0 LU at 1 kHz (the K filter's
    +0.69 dB cancels the -0.691 offset) -- checked against pyloudnorm too."""
    meters = LevelMeters(RATE, 1)
    x = sine(level_db, 4.0)
    feed(meters, x, block=1000)
    reference = pyloudnorm.Meter(RATE).integrated_loudness(x[-3 * RATE:].astype(np.float64))
    snap = meters.snapshot
    assert snap.short_term_lufs == pytest.approx(reference, abs=0.5)
    assert snap.short_term_lufs == pytest.approx(level_db, abs=0.5)
    assert snap.momentary_lufs == pytest.approx(level_db, abs=0.5)


def test_short_term_covers_three_seconds_momentary_400_ms() -> None:
    meters = LevelMeters(RATE, 1)
    feed(meters, sine(-20.0, 3.0), block=4800)
    feed(meters, sine(-40.0, 1.5), block=4800)
    snap = meters.snapshot
    assert snap.momentary_lufs == pytest.approx(-40.0, abs=0.5)  # only the quiet part
    # The last 3 s: 1.5 s at -20 and 1.5 s at -40 -> power mean ~ -23 LUFS.
    expected = 10 * math.log10((10 ** (-20 / 10) + 10 ** (-40 / 10)) / 2)
    assert snap.short_term_lufs == pytest.approx(expected, abs=0.5)


def test_snapshots_are_immutable_and_replaced_whole() -> None:
    meters = LevelMeters(RATE, 2)
    feed(meters, sine(-20.0, 0.1))
    before = meters.snapshot
    assert isinstance(before, MeterSnapshot)
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.master_peak_db = 0.0  # type: ignore[misc]
    feed(meters, sine(-3.0, 0.1))
    after = meters.snapshot
    assert after is not before
    assert before.master_peak_db == pytest.approx(-20.0, abs=0.01)  # untouched by later blocks
    assert after.master_peak_db == pytest.approx(-3.0, abs=0.01)


def test_a_reader_thread_sees_whole_snapshots() -> None:
    """The GUI polls from its own thread while the programme's thread updates:
    every snapshot read is complete and frames only go forward."""
    meters = LevelMeters(RATE, 4)
    stop = threading.Event()
    seen: list[MeterSnapshot] = []

    def reader() -> None:
        while not stop.is_set():
            seen.append(meters.snapshot)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        feed(meters, sine(-12.0, 2.0), block=256)
    finally:
        stop.set()
        thread.join()
    assert seen
    assert all(len(s.lane_peak_db) == len(s.lane_hold_db) == 4 for s in seen)
    frames = [s.frames for s in seen]
    assert frames == sorted(frames)


def test_reset_starts_over() -> None:
    meters = LevelMeters(RATE, 1)
    feed(meters, sine(-10.0, 1.0))
    meters.reset()
    snap = meters.snapshot
    assert snap.frames == 0 and snap.lane_peak_db == (-math.inf,) and snap.short_term_lufs == -math.inf
