"""Ducking: music and ambience step back while someone speaks.

A side-chain from the dialogue bus: the key is the dialogue's level on a
10 ms hop grid (every audible dialogue clip through its lane gains, before
lane effects), and each sound lane gets a gain curve on the same grid that
reaches its full depth ``lookahead`` before a voice starts (the attack ramp
runs before that), holds through the short gaps between words and releases
after the voice stops. The curve is computed for the whole programme at
once, vectorised, whenever the dialogue changes (a clip arrives, a lane is
muted), rather than by a recursive follower in the block loop: the gain at a
frame is then a pure function of the dialogue around it, so it does not
depend on the block size, a seek needs no reset, and looking ahead costs no
latency.

Ramps are linear in dB on the hop grid, interpolated linearly per frame, as
Audacity's Auto Duck draws them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

HOP_S = 0.01
# Dialogue quieter than this (mean square per hop, dBFS) is a gap, not speech:
# lines are levelled to about -23 LUFS, so words sit 20-30 dB above it.
KEY_THRESHOLD_DB = -50.0
# Gaps between words shorter than this keep the duck down (no pumping).
HOLD_S = 0.3


@dataclass(frozen=True)
class DuckSettings:
    """One lane's ducking; ``depth_db`` 0 (or above) is off."""

    depth_db: float
    attack_s: float
    release_s: float
    lookahead_s: float

    @property
    def on(self) -> bool:
        return self.depth_db < 0.0


def hop_frames(rate: int) -> int:
    return max(1, int(round(rate * HOP_S)))


class DialogueKey:
    """The dialogue's mean square per hop, from its clips (cached per clip).

    A clip's own hop energies depend only on its audio and where it starts
    within a hop, so they are kept between rebuilds (live playback rebuilds
    whenever a clip arrives) and only new or moved clips are analysed.
    """

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.hop = hop_frames(rate)
        self._energy: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def _clip_energy(self, audio: np.ndarray, phase: int) -> np.ndarray:
        key = (id(audio), phase)
        held = self._energy.get(key)
        if held is not None and held[0] is audio:
            return held[1]
        hop = self.hop
        n = phase + audio.shape[0]
        padded = np.zeros(n + (-n) % hop, dtype=np.float32)
        if audio.ndim == 2:  # a staged (stereo) line: the mean square of its two channels
            # Channel by channel, the same float32 values: numpy's mean over the 2-wide axis is ~10x slower.
            target = padded[phase:n]
            np.square(audio[:, 0], out=target, dtype=np.float32)
            target += np.square(audio[:, 1], dtype=np.float32)
            target *= np.float32(0.5)
        else:
            padded[phase:n] = np.square(audio, dtype=np.float32)
        energy: np.ndarray = padded.reshape(-1, hop).sum(axis=1, dtype=np.float64)
        self._energy[key] = (audio, energy)
        return energy

    def build(self, clips: Iterable[tuple[int, np.ndarray, float]], frames: int) -> np.ndarray:
        """Mean square per hop over [0, frames) of (start frame, mono audio,
        power gain (left² + right²) / 2) per audible clip."""
        hop = self.hop
        hops = -(-frames // hop) + 1
        total = np.zeros(hops, dtype=np.float64)
        used: set[tuple[int, int]] = set()
        for start, audio, power_gain in clips:
            if power_gain <= 0.0 or audio.shape[0] == 0:
                continue
            phase = start % hop
            used.add((id(audio), phase))
            energy = self._clip_energy(audio, phase)
            first = start // hop
            last = min(hops, first + energy.size)
            if last > first:
                total[first:last] += energy[: last - first] * power_gain
        for stale in set(self._energy) - used:
            del self._energy[stale]
        return total / hop


def duck_curve(key: np.ndarray, settings: DuckSettings, hop_s: float = HOP_S) -> np.ndarray:
    """Linear gain per hop for one lane, from the key's mean square per hop.

    The duck amount a in [0, 1] is the largest of: 1 on speech (held over
    short gaps), a release ramp after it and an attack ramp before it that
    ends ``lookahead`` before the speech starts. Both ramps are maxima of
    shifted lines, which ``maximum.accumulate`` computes in one pass each.
    """
    if not settings.on or key.size == 0:
        return np.ones(key.size, dtype=np.float32)
    threshold = 10 ** (KEY_THRESHOLD_DB / 10)
    active = key > threshold
    idx = np.arange(key.size, dtype=np.float64)
    release = max(settings.release_s / hop_s, 1.0)
    attack = max(settings.attack_s / hop_s, 1.0)
    hold = HOLD_S / hop_s
    lead = settings.lookahead_s / hop_s
    # After speech: full for ``hold`` hops, then down a ramp of ``release`` hops.
    last_active = np.maximum.accumulate(np.where(active, idx, -np.inf))
    after = 1.0 - np.maximum(idx - last_active - hold, 0.0) / release
    # Before speech: full from ``lead`` hops ahead of it, a ramp of ``attack`` before that.
    next_active = np.minimum.accumulate(np.where(active, idx, np.inf)[::-1])[::-1]
    before = 1.0 - np.maximum(next_active - lead - idx, 0.0) / attack
    amount = np.clip(np.maximum(np.nan_to_num(after, neginf=0.0), np.nan_to_num(before, neginf=0.0)), 0.0, 1.0)
    return np.asarray(10 ** (settings.depth_db * amount / 20), dtype=np.float32)


class GainReader:
    """Per-frame gains of a hop curve for any block [t, t+n), interpolated
    linearly between hop starts. Buffers are preallocated for ``max_block``."""

    def __init__(self, hop: int, max_block: int) -> None:
        self.hop = hop
        self._frames = np.arange(max_block, dtype=np.float64)
        self._pos = np.zeros(max_block, dtype=np.float64)
        self._index = np.zeros(max_block, dtype=np.int64)
        self._out = np.zeros(max_block, dtype=np.float32)

    def read(self, curve: np.ndarray, t: int, n: int) -> np.ndarray | float:
        """The gains of frames [t, t+n): a float where they are all equal (most
        blocks: in the clear, or ducked all through a speech), else a view of
        ``n`` gains, valid until the next call. Past the curve: its last value."""
        hop = self.hop
        if curve.size < 2:
            return 1.0 if curve.size == 0 else float(curve[0])
        h0 = min(t // hop, curve.size - 1)
        h1 = min((t + n - 1) // hop + 1, curve.size - 1)
        span = curve[h0:h1 + 1]
        low = float(span.min())
        if low == float(span.max()):
            return low
        out = self._out[:n]
        pos = self._pos[:n]
        np.add(self._frames[:n], t, out=pos)
        pos /= hop
        index = self._index[:n]
        np.floor(pos, out=pos)
        index[...] = pos
        # pos back to the fraction within the hop: (t + k) / hop - floor(...)
        np.add(self._frames[:n], t, out=pos)
        pos -= index * hop
        pos /= hop
        np.minimum(index, curve.size - 2, out=index)
        below = curve[index]
        out[...] = below + (curve[index + 1] - below) * pos
        if (t + n - 1) // hop >= curve.size - 1:
            out[self._frames[:n] + t >= (curve.size - 1) * hop] = curve[-1]
        return out
