"""The block mixer: clips on role lanes -> stereo master + one stereo stem per role.

This one mixer serves export and (later) live playback, so what a producer
hears is what they export. ``process`` fills preallocated buffers and
returns views of them: after construction nothing is allocated per block,
which is what lets the live path call it from a real-time-ish thread.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PlacedClip:
    """A clip's audio (float32, mixer rate) starting at ``start`` frames: mono,
    panned by its lane, or stereo ((frames, 2): a staged line, engine.audio.staging,
    already placed left and right), scaled by its lane's gain alone."""

    role_index: int
    start: int
    audio: np.ndarray

    @property
    def end(self) -> int:
        return self.start + int(self.audio.shape[0])


def pan_gains(gain_db: float, pan: float) -> tuple[float, float]:
    """Constant-power pan (-3 dB at centre), then the lane gain."""
    g = 10 ** (gain_db / 20)
    theta = (max(-1.0, min(1.0, pan)) + 1.0) * math.pi / 4
    return g * math.cos(theta), g * math.sin(theta)


class ClipIndex:
    """Clips sorted by start, with what a block lookup needs (immutable)."""

    def __init__(self, clips: Sequence[PlacedClip]) -> None:
        self.clips = sorted(clips, key=lambda c: c.start)
        self.starts = [c.start for c in self.clips]
        self.longest = max((c.audio.shape[0] for c in self.clips), default=0)
        self.length = max((c.end for c in self.clips), default=0)
        self.stereo = any(c.audio.ndim == 2 for c in self.clips)


class BlockMixer:
    """Mixes any block [t, t+n) on demand (random access: seeking is free).

    Lane settings (gain, pan, audible) can change between blocks without
    restarting, as mute/solo during playback needs. The clips can be replaced
    while another thread mixes (live playback: clips arrive as they are
    synthesized): ``set_clips`` swaps in a new immutable index, and each
    block reads the index once, so a block never sees half an update.
    """

    def __init__(self, clips: Sequence[PlacedClip], lanes: int, max_block: int = 8192) -> None:
        self._index = ClipIndex(clips)
        self.lanes = lanes
        self.max_block = max_block
        self._gains = np.ones((lanes, 2), dtype=np.float32) * np.float32(math.sqrt(0.5))
        self._levels = np.ones(lanes, dtype=np.float32)  # the lane gain alone, for stereo clips
        self._audible = np.ones(lanes, dtype=bool)
        self._stems = np.zeros((lanes, max_block, 2), dtype=np.float32)
        self._master = np.zeros((max_block, 2), dtype=np.float32)
        self._scratch = np.zeros(max_block, dtype=np.float32)
        # Bumped by every change of clips or lane settings: what the ducking
        # side-chain (engine.audio.soundbus) was built from is then stale.
        self.version = 0

    @property
    def clips(self) -> list[PlacedClip]:
        return self._index.clips

    @property
    def length(self) -> int:
        return self._index.length

    @property
    def stereo(self) -> bool:
        """Some clip is stereo (staged): the mix is no longer a sum of panned mono clips."""
        return self._index.stereo

    def set_clips(self, clips: Sequence[PlacedClip] | ClipIndex) -> None:
        """Replace the clips (any thread; takes effect from the next block)."""
        self._index = clips if isinstance(clips, ClipIndex) else ClipIndex(clips)
        self.version += 1

    def set_lane(self, lane: int, gain_db: float, pan: float, audible: bool) -> None:
        left, right = pan_gains(gain_db, pan)
        changed = (self._gains[lane, 0] != np.float32(left) or self._gains[lane, 1] != np.float32(right)
                   or self._audible[lane] != audible)
        self._gains[lane, 0] = left
        self._gains[lane, 1] = right
        self._levels[lane] = 10 ** (gain_db / 20)
        self._audible[lane] = audible
        if changed:
            self.version += 1

    def audible_clips(self) -> list[tuple[int, np.ndarray, float, float]]:
        """(start frame, audio, left gain, right gain) of every clip the mix
        will hear, from the lane settings the mixer itself uses."""
        return [(c.start, c.audio, float(self._gains[c.role_index, 0]), float(self._gains[c.role_index, 1]))
                for c in self.clips if self._audible[c.role_index]]

    def key_clips(self) -> list[tuple[int, np.ndarray, float]]:
        """(start frame, audio, power gain (left² + right²) / 2) of every audible
        clip: what the ducking side-chain hears of the dialogue bus."""
        gains, levels = self._gains, self._levels
        return [(c.start, c.audio, float(gains[c.role_index, 0] ** 2 + gains[c.role_index, 1] ** 2) / 2
                 if c.audio.ndim == 1 else float(levels[c.role_index]) ** 2)
                for c in self.clips if self._audible[c.role_index]]

    def process(self, t: int, n: int, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Mix frames [t, t+n). Returns (master (n, 2), stems (lanes, n, 2)) as
        views into internal buffers, valid until the next call. With ``out``
        (an (n, 2) float32 array, e.g. a ring buffer's write region) the
        master is summed straight into it and ``out`` is returned."""
        if not 0 < n <= self.max_block:
            raise ValueError(f"block of {n} frames; the mixer handles 1..{self.max_block}")
        index = self._index
        stems = self._stems[:, :n, :]
        stems.fill(0.0)
        scratch = self._scratch
        first = bisect.bisect_left(index.starts, t - index.longest)
        last = bisect.bisect_left(index.starts, t + n)
        for i in range(first, last):
            clip = index.clips[i]
            lane = clip.role_index
            if clip.end <= t or not self._audible[lane]:
                continue
            a = max(t, clip.start)
            b = min(t + n, clip.end)
            length = b - a
            source = clip.audio[a - clip.start: b - clip.start]
            at = a - t
            stereo = source.ndim == 2
            for channel in (0, 1):
                if stereo:
                    np.multiply(source[:, channel], self._levels[lane], out=scratch[:length])
                else:
                    np.multiply(source, self._gains[lane, channel], out=scratch[:length])
                target = stems[lane, at:at + length, channel]
                np.add(target, scratch[:length], out=target)
        master = self._master[:n] if out is None else out
        np.sum(stems, axis=0, out=master)
        return master, stems
