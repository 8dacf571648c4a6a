"""Level meters for the studio: per-lane peak and the master's loudness.

Fed with the blocks the :class:`~engine.audio.programme.Programme` produces
(on its thread), read by the GUI's QTimer from another thread as an
immutable :class:`MeterSnapshot`: each update builds a new snapshot and
swaps one reference, so neither side ever waits for the other.

Peaks are sample peaks per block in dBFS, with the ballistics of a digital
peak meter: the bar jumps up at once and falls at ``decay_db_per_s``; a
hold mark stays at the highest peak for ``hold_s``, then drops to the bar.
Loudness is BS.1770 (the K-weighting of :mod:`engine.audio.loudness`),
ungated, over 100 ms hops: momentary over the last 400 ms, short-term over
the last 3 s (EBU R128), updated every 100 ms, for the master and for each
lane (what leaves the lane: its stem).

Overs are counted, not inferred from a bar: a block in which a lane's stem
(or the master) has a sample at or past full scale adds one to its count, so
a clip light means the signal that leaves the lane really went over, and a
reader polling at 20 Hz misses none. The master limiter's gain reduction is
metered too (the deepest reduction of each block, released at the peak
bars' rate), as a console's limiter shows it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.audio.loudness import HopPower, KWeighting

_HOP_S = 0.1
_SHORT_TERM_HOPS = 30  # 3 s
_MOMENTARY_HOPS = 4  # 400 ms
_FLOOR_DB = -120.0  # a bar that has fallen this far reads silence (-inf)


@dataclass(frozen=True)
class MeterSnapshot:
    """What the meters show now. Silence reads ``-inf``."""

    frames: int  # programme frames metered since the meters started (or were reset)
    lane_peak_db: tuple[float, ...]  # falling bar per lane
    lane_hold_db: tuple[float, ...]  # peak-hold mark per lane
    master_peak_db: float
    master_hold_db: float
    momentary_lufs: float  # last 400 ms
    short_term_lufs: float  # last 3 s
    lane_short_term_lufs: tuple[float, ...] = ()  # per lane, last 3 s
    lane_overs: tuple[int, ...] = ()  # blocks in which the lane's stem reached full scale
    master_overs: int = 0
    limiter_reduction_db: float = 0.0  # the master limiter's gain reduction now (>= 0)
    limiter_max_db: float = 0.0  # its deepest since the meters started


def _db(amplitude: float) -> float:
    return 20 * math.log10(amplitude) if amplitude > 0 else -math.inf


def _block_peak(block: np.ndarray) -> float:
    # max and -min: no |x| temporary the size of the block.
    return max(float(block.max()), -float(block.min())) if block.size else 0.0


class _PeakBallistics:
    """Falling bars and hold marks for several channels of metering."""

    def __init__(self, count: int, rate: int, decay_db_per_s: float, hold_s: float) -> None:
        self.rate = rate
        self.decay = decay_db_per_s
        self.hold_frames = int(hold_s * rate)
        self.bar = [-math.inf] * count
        self.hold = [-math.inf] * count
        self.hold_age = [0] * count

    def update(self, index: int, peak_db: float, frames: int) -> None:
        fallen = self.bar[index] - self.decay * frames / self.rate
        bar = max(peak_db, fallen)
        self.bar[index] = bar if bar > _FLOOR_DB else -math.inf
        if peak_db >= self.hold[index]:
            self.hold[index] = peak_db
            self.hold_age[index] = 0
        else:
            self.hold_age[index] += frames
            if self.hold_age[index] > self.hold_frames:
                self.hold[index] = self.bar[index]
                self.hold_age[index] = 0


class LevelMeters:
    """Per-lane peak meters and the master's peak and loudness.

    Thread: :meth:`update` and :meth:`reset` run on the thread that runs the
    programme; :attr:`snapshot` is read from any thread.
    """

    def __init__(self, rate: int, lanes: int, decay_db_per_s: float = 20.0, hold_s: float = 1.5,
                 channels: int = 2) -> None:
        self.rate = rate
        self.lanes = lanes
        self.channels = channels
        self._decay = decay_db_per_s
        self._hold_s = hold_s
        self.reset()

    def reset(self) -> None:
        """Start over: bars at silence, no loudness history."""
        self._lanes = _PeakBallistics(self.lanes, self.rate, self._decay, self._hold_s)
        self._master = _PeakBallistics(1, self.rate, self._decay, self._hold_s)
        self._power = HopPower(self.rate, self.channels, _HOP_S)
        self._hops = _HopRing()
        self._lane_energy = _LaneEnergy(self.rate, self.lanes)
        self._lane_hops = [_HopRing() for _ in range(self.lanes)]
        self._lane_overs = [0] * self.lanes
        self._lane_lufs: tuple[float, ...] = (-math.inf,) * self.lanes
        self._master_overs = 0
        self._reduction_db = 0.0
        self._reduction_max_db = 0.0
        self._frames = 0
        self.snapshot = MeterSnapshot(0, (-math.inf,) * self.lanes, (-math.inf,) * self.lanes,
                                      -math.inf, -math.inf, -math.inf, -math.inf,
                                      (-math.inf,) * self.lanes, (0,) * self.lanes)

    def update(self, master: np.ndarray, stems: np.ndarray, limiter_gain: np.ndarray | None = None) -> None:
        """Meter one block: master (n, channels), stems (lanes, n, channels) and
        the gain the master limiter applied to it (n,), if known."""
        n = master.shape[0]
        if n == 0:
            return
        for lane in range(self.lanes):
            peak = _block_peak(stems[lane])
            self._lanes.update(lane, _db(peak), n)
            if peak >= 1.0:
                self._lane_overs[lane] += 1
        hop = self._lane_energy.feed(stems[:self.lanes]) if self.lanes else None
        if hop is not None:  # read again only when a hop is complete
            for ring, power in zip(self._lane_hops, hop, strict=True):
                ring.add(float(power))
            self._lane_lufs = tuple(ring.loudness(_SHORT_TERM_HOPS) for ring in self._lane_hops)
        peak = _block_peak(master)
        self._master.update(0, _db(peak), n)
        if peak >= 1.0:
            self._master_overs += 1
        self._power.feed(master, self._hops.add)
        if limiter_gain is not None and limiter_gain.size:
            reduction = max(0.0, -_db(max(float(limiter_gain.min()), 1e-6))) + 0.0  # + 0.0: never -0.0
            released = self._reduction_db - self._decay * n / self.rate
            self._reduction_db = max(reduction, released, 0.0) + 0.0
            self._reduction_max_db = max(self._reduction_max_db, reduction)
        self._frames += n
        self.snapshot = MeterSnapshot(
            self._frames, tuple(self._lanes.bar), tuple(self._lanes.hold),
            self._master.bar[0], self._master.hold[0],
            self._hops.loudness(_MOMENTARY_HOPS), self._hops.loudness(_SHORT_TERM_HOPS),
            self._lane_lufs, tuple(self._lane_overs),
            self._master_overs, self._reduction_db, self._reduction_max_db)


class _LaneEnergy:
    """Every lane's K-weighted power, from one FFT of the block per lane
    (Parseval: the block's spectrum weighted by the K filter's response),
    in hops of whole blocks of at least 100 ms. A filter call per block cost
    the live mixer thread 3-9 ms a block on a loaded machine (measured: the
    call, not the samples), doubling its work; the FFT costs a few per cent
    of that. A meter's reading, not a measurement: the block edges leak a
    little; the master's loudness stays the exact filter (:class:`HopPower`)."""

    def __init__(self, rate: int, lanes: int) -> None:
        self.rate, self.lanes = rate, lanes
        self.hop = int(round(rate * _HOP_S))
        self._weights: dict[int, np.ndarray] = {}  # by block length
        self._energy = np.zeros(lanes)
        self._frames = 0

    def _weights_for(self, n: int) -> np.ndarray:
        weights = self._weights.get(n)
        if weights is None:
            from scipy.signal import sosfreqz

            sos = KWeighting(self.rate, 1)._sos
            _, response = sosfreqz(sos, worN=np.fft.rfftfreq(n, 1 / self.rate), fs=self.rate)
            weights = np.abs(response) ** 2 * 2.0 / n  # both halves of the spectrum, Parseval's 1/n
            weights[0] /= 2.0
            if n % 2 == 0:
                weights[-1] /= 2.0
            self._weights[n] = weights
        return weights

    def feed(self, stems: np.ndarray) -> np.ndarray | None:
        """A block of stems (lanes, n, channels): the lanes' mean-square powers
        (channels summed) when a hop is complete, else None."""
        n = stems.shape[1]
        spectrum = np.fft.rfft(stems, axis=1)
        power = spectrum.real ** 2 + spectrum.imag ** 2
        self._energy += np.einsum("lfc,f->l", power, self._weights_for(n))
        self._frames += n
        if self._frames < self.hop:
            return None
        mean = self._energy / self._frames
        self._energy = np.zeros(self.lanes)
        self._frames = 0
        return mean


class _HopRing:
    """The last 3 s of 100 ms hop powers, and their ungated loudness."""

    def __init__(self) -> None:
        self._hops = np.zeros(_SHORT_TERM_HOPS)  # channel-summed mean square per hop
        self._done = 0

    def add(self, power: float) -> None:
        self._hops[self._done % _SHORT_TERM_HOPS] = power
        self._done += 1

    def loudness(self, hops: int) -> float:
        """Ungated loudness over the last ``hops`` complete hops (fewer at the start)."""
        count = min(hops, self._done)
        if count == 0:
            return -math.inf
        newest = self._done - 1
        total = 0.0
        for k in range(count):
            total += float(self._hops[(newest - k) % _SHORT_TERM_HOPS])
        mean = total / count
        return -0.691 + 10 * math.log10(mean) if mean > 0 else -math.inf
