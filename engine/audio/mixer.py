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

from engine.audio.leveller import LineEnvelope


@dataclass(frozen=True)
class PlacedClip:
    """A clip's audio (float32, mixer rate) starting at ``start`` frames: mono,
    panned by its lane, or stereo ((frames, 2): a staged line, engine.audio.staging,
    already placed left and right), scaled by its lane's gain alone."""

    role_index: int
    start: int
    audio: np.ndarray
    # The dialogue leveller's gain curve for this clip (engine/audio/leveller.py); None: unity.
    envelope: LineEnvelope | None = None
    # One gain on the whole clip before its lane: a staged role's trim (engine/mixdown/dialogue.py),
    # the same for all its lines so their perspectives keep their offsets to each other.
    gain: float = 1.0

    def levelled(self) -> np.ndarray:
        """The clip as the mixer plays it (a new array when it is levelled)."""
        if self.envelope is None or not self.envelope.active:
            return self.audio
        return self.envelope.apply(self.audio)

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
        # How far into each lane's stem buffer the last block wrote (past it: zeros): a block
        # clears only what the one before wrote, not every lane (most lanes are silent most
        # of the time: a role speaks a few lines a scene).
        self._written = [0] * lanes
        self._master = np.zeros((max_block, 2), dtype=np.float32)
        self._scratch = np.zeros(max_block, dtype=np.float32)
        # The leveller's per-frame gain of a clip's span, and its work buffers.
        self._level = np.zeros(max_block, dtype=np.float32)
        self._level_step = np.zeros(max_block, dtype=np.float32)
        self._level_frac = np.zeros(max_block, dtype=np.float32)
        self._level_index = np.zeros(max_block, dtype=np.int64)
        self._level_stereo = np.zeros((max_block, 2), dtype=np.float32)  # a staged clip's span, levelled
        self._ramp = np.arange(max_block, dtype=np.int64)
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
        return [(c.start, c.levelled(), float(self._gains[c.role_index, 0]) * c.gain,
                 float(self._gains[c.role_index, 1]) * c.gain)
                for c in self.clips if self._audible[c.role_index]]

    def key_clips(self) -> list[tuple[int, np.ndarray, float]]:
        """(start frame, audio, power gain (left² + right²) / 2) of every audible
        clip: what the ducking side-chain hears of the dialogue bus."""
        gains, levels = self._gains, self._levels
        return [(c.start, c.audio, (float(gains[c.role_index, 0] ** 2 + gains[c.role_index, 1] ** 2) / 2
                 if c.audio.ndim == 1 else float(levels[c.role_index]) ** 2) * c.gain ** 2)
                for c in self.clips if self._audible[c.role_index]]

    def process(self, t: int, n: int, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Mix frames [t, t+n). Returns (master (n, 2), stems (lanes, n, 2)) as
        views into internal buffers, valid until the next call and read only
        (the next block clears only what this one wrote). With ``out``
        (an (n, 2) float32 array, e.g. a ring buffer's write region) the
        master is summed straight into it and ``out`` is returned."""
        if not 0 < n <= self.max_block:
            raise ValueError(f"block of {n} frames; the mixer handles 1..{self.max_block}")
        index = self._index
        buffers, written = self._stems, self._written
        for lane, end in enumerate(written):
            if end:
                buffers[lane, :end].fill(0.0)
                written[lane] = 0
        stems = buffers[:, :n, :]
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
            envelope = clip.envelope
            if envelope is not None and envelope.active:
                level = envelope.gain_at(a - clip.start, length, self._level, self._level_step,
                                         self._level_frac, self._level_index, self._ramp)
                if source.ndim == 2:  # a staged line's wall: one curve on both channels
                    source = np.multiply(source, level[:, None], out=self._level_stereo[:length])
                else:
                    source = np.multiply(source, level, out=level)
            at = a - t
            written[lane] = max(written[lane], at + length)
            stereo = source.ndim == 2
            for channel in (0, 1):
                if stereo:
                    np.multiply(source[:, channel], self._levels[lane], out=scratch[:length])
                else:
                    np.multiply(source, self._gains[lane, channel], out=scratch[:length])
                if clip.gain != 1.0:
                    np.multiply(scratch[:length], np.float32(clip.gain), out=scratch[:length])
                target = stems[lane, at:at + length, channel]
                np.add(target, scratch[:length], out=target)
        master = self._master[:n] if out is None else out
        np.sum(stems, axis=0, out=master)
        return master, stems
