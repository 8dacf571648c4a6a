"""Choose the master gain that lands the *limited* mix on the loudness target.

The limiter takes a little loudness off every peak it catches, so the gain
that brings the pre-limiter mix to -16 LUFS leaves the limited master short
(measured 1.1 LU short on the sample). Running the limiter and the K-filter
over the whole programme once per guess would cost a pass each; instead one
pass records, per millisecond, the peak (channels linked) and the K-weighted
power of the pre-limiter mix, and the limiter is simulated on that grid
(1 ms cells: the limiter's look-ahead is 5 ms and its release 60 ms) for any
candidate gain in about a millisecond. The record is ~16 bytes per ms of
programme (58 MB for a 1-hour production); nothing else is kept. Beside the
K-weighted energy it keeps the plain (unweighted) energy: a delivered file
levelled by its RMS (ACX) is predicted from it (:meth:`ProgrammeAnalysis.span_level`).
Accuracy against a real limited pass (tests/engine/audio/test_normalize.py): within
0.02 LU on the sample, 0.15 LU while the limiter catches peaks, 0.3 LU when
it works on nearly everything (the grid's coarser peak-hold over-limits a
little, so the mix then lands slightly above the target, never below).
"""

from __future__ import annotations

import math

import numpy as np

from engine.audio.limiter import linked_peak, sliding_min
from engine.audio.loudness import KWeighting, gated_loudness


def _limiter_gain(target: np.ndarray, lookahead: int, hold: int) -> np.ndarray:
    """The LookaheadLimiter's gain on a coarse grid, aligned to its *input*.

    held[m] = min(target[m-hold .. m]); the gain meeting input cell k is the
    mean of held[k+1 .. k+lookahead] (the limiter delays its input by the
    look-ahead and averages the held minima over that length).
    """
    size = hold + 1
    if size % 2 == 0:
        size += 1  # kept from the centred filter this replaced: one extra cell is harmless
    held = sliding_min(np.concatenate([np.full(size - 1, target[0]), target]), size)
    padded = np.concatenate([held, np.full(lookahead, held[-1])])
    csum = np.concatenate([[0.0], np.cumsum(padded)])
    return np.asarray((csum[1 + lookahead: 1 + lookahead + target.size] - csum[1: 1 + target.size]) / lookahead)


# K-weighting rings for a while after a clip ends (its high-pass sits at
# 38 Hz); 50 ms of tail keeps the clip's analysis complete.
_TAIL_S = 0.05


def analyse_clip(audio: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-millisecond (peak, K-weighted energy, plain energy) of a mono clip, tail included."""
    cell = max(1, rate // 1000)
    n = audio.shape[0] + int(_TAIL_S * rate)
    n += (-n) % cell
    padded = np.zeros((n, 1), dtype=np.float32)
    padded[: audio.shape[0], 0] = audio
    weighted = KWeighting(rate, 1).apply(padded)[0]
    peak = np.abs(padded[:, 0]).reshape(-1, cell).max(axis=1)
    energy = (weighted * weighted).reshape(-1, cell).sum(axis=1)
    plain = (padded[:, 0].astype(np.float64) ** 2).reshape(-1, cell).sum(axis=1)
    return peak, energy, plain


class ProgrammeAnalysis:
    """The programme's per-millisecond peaks and K-weighted energy.

    Built either by feeding the pre-limiter master block by block, or, much
    cheaper, from each clip's own analysis placed on the timeline
    (:meth:`from_clips`): K-weighting is linear, a panned mono clip's stereo
    energy is (gL² + gR²) times its own, and where lines overlap the
    energies add (uncorrelated voices) and the peaks add (a bound, so the
    limiter simulation errs towards more limiting).
    """

    def __init__(self, rate: int, channels: int = 2) -> None:
        self.rate = rate
        self.cell = max(1, rate // 1000)
        self._k = KWeighting(rate, channels)
        self._carry_peak = np.zeros(0, dtype=np.float32)
        self._carry_power = np.zeros(0, dtype=np.float64)
        self._carry_plain = np.zeros(0, dtype=np.float64)
        self._peaks: list[np.ndarray] = []
        self._powers: list[np.ndarray] = []
        self._plains: list[np.ndarray] = []  # unweighted energy per cell, channels summed

    def feed(self, block: np.ndarray) -> None:
        peak = linked_peak(block)
        weighted = self._k.apply(block)
        weighted *= weighted
        power = weighted.sum(axis=0)
        plain = np.einsum("ij,ij->i", block, block, dtype=np.float64)
        if self._carry_peak.size:
            peak = np.concatenate([self._carry_peak, peak])
            power = np.concatenate([self._carry_power, power])
            plain = np.concatenate([self._carry_plain, plain])
        whole = (peak.size // self.cell) * self.cell
        self._peaks.append(peak[:whole].reshape(-1, self.cell).max(axis=1).astype(np.float32))
        self._powers.append(power[:whole].reshape(-1, self.cell).sum(axis=1))
        self._plains.append(plain[:whole].reshape(-1, self.cell).sum(axis=1))
        self._carry_peak, self._carry_power, self._carry_plain = peak[whole:], power[whole:], plain[whole:]

    @classmethod
    def from_clips(cls, rate: int, frames: int, clips: list[tuple[int, np.ndarray, float, float]]) -> ProgrammeAnalysis:
        """``clips``: (start frame, mono audio, left gain, right gain) of every audible clip."""
        analysis = cls(rate)
        cell = analysis.cell
        cells = -(-frames // cell)
        peaks = np.zeros(cells, dtype=np.float64)
        energy = np.zeros(cells, dtype=np.float64)
        plain = np.zeros(cells, dtype=np.float64)
        for start, audio, left, right in clips:
            if audio.shape[0] == 0 or (left == 0.0 and right == 0.0):
                continue
            clip_peak, clip_energy, clip_plain = analyse_clip(audio, rate)
            first = start // cell
            last = min(cells, first + clip_peak.size)
            if last <= first:
                continue
            peaks[first:last] += clip_peak[: last - first] * max(abs(left), abs(right))
            energy[first:last] += clip_energy[: last - first] * (left * left + right * right)
            plain[first:last] += clip_plain[: last - first] * (left * left + right * right)
        analysis._peaks = [peaks.astype(np.float32)]
        analysis._powers = [energy]
        analysis._plains = [plain]
        return analysis

    def _cells(self) -> tuple[np.ndarray, np.ndarray]:
        if not self._powers:
            return np.zeros(0), np.zeros(0)
        if len(self._powers) > 1:  # consolidate once; later calls reuse it
            self._peaks = [np.concatenate(self._peaks)]
            self._powers = [np.concatenate(self._powers)]
            self._plains = [np.concatenate(self._plains)]
        return self._peaks[0].astype(np.float64), self._powers[0]

    def _limited(self, peaks: np.ndarray, gain_db: float, ceiling_db: float | None, lookahead_ms: int,
                 release_ms: int) -> np.ndarray:
        """The squared gain per cell at ``gain_db``, through the limiter when ``ceiling_db`` is given."""
        gain = 10 ** (gain_db / 20)
        g2 = np.full(peaks.size, gain * gain)
        if ceiling_db is not None:
            ceiling = 10 ** (ceiling_db / 20)
            target = np.minimum(1.0, ceiling / np.maximum(peaks * gain, 1e-12))
            g = _limiter_gain(target, lookahead_ms, lookahead_ms + release_ms)
            g2 *= g * g
        return g2

    def span_level(self, start: int, stop: int, gain_db: float, ceiling_db: float | None, rms: bool,
                   silent_frames: int = 0, channels: int = 2) -> float:
        """The level of frames [start, stop) at ``gain_db`` through the limiter (``ceiling_db``):
        RMS in dBFS with ``silent_frames`` more of silence counted (a delivered file's room
        tone at head and tail, levelled before it is laid), or integrated LUFS."""
        peaks, powers = self._cells()
        a, b = max(0, start // self.cell), min(powers.size, -(-stop // self.cell))
        if b <= a:
            return -math.inf
        g2 = self._limited(peaks[a:b], gain_db, ceiling_db, 5, 60)
        if rms:
            energy = float(np.dot(self._plains[0][a:b], g2))
            count = (stop - start + silent_frames) * channels
            return 10 * math.log10(energy / count) if energy > 0 and count > 0 else -math.inf
        hop = 100
        span = powers[a:b] * g2
        usable = (span.size // hop) * hop
        if usable == 0:
            return -math.inf
        return gated_loudness(span[:usable].reshape(-1, hop).sum(axis=1) / (hop * self.cell))

    def loudness(self, gain_db: float = 0.0, ceiling_db: float | None = None,
                 lookahead_ms: int = 5, release_ms: int = 60) -> float:
        """Integrated LUFS of the mix at ``gain_db``, through the limiter when
        ``ceiling_db`` is given (simulated on the 1 ms grid)."""
        peaks, powers = self._cells()
        if powers.size == 0:
            return -math.inf
        g2 = self._limited(peaks, gain_db, ceiling_db, lookahead_ms, release_ms)
        hop = 100  # cells per 100 ms hop
        usable = (powers.size // hop) * hop
        hop_power = (powers[:usable] * g2[:usable]).reshape(-1, hop).sum(axis=1) / (hop * self.cell)
        return gated_loudness(hop_power)

    def solve_gain(self, target_lufs: float, ceiling_db: float) -> tuple[float, float]:
        """(gain dB, predicted LUFS): the gain whose limited loudness hits the target."""
        premix = self.loudness()
        if not math.isfinite(premix):
            return 0.0, premix
        gain = target_lufs - premix
        predicted = self.loudness(gain, ceiling_db)
        for _ in range(8):  # loudness is monotonic in gain; a few fixed-point steps converge
            if abs(target_lufs - predicted) < 0.02:
                break
            gain += target_lufs - predicted
            predicted = self.loudness(gain, ceiling_db)
        return gain, predicted
