"""The dialogue leveller: each line's peaks brought under the stems' ceiling
before it reaches the master, so the master limiter only catches what the
sum of voices and sounds adds.

Why per line, not a compressor on the lane: a line's audio is known before
it plays (the clip is synthesized or recorded whole), so the leveller can
look as far ahead as it likes without delaying the lane, and the gain it
computes is a fixed curve per clip (:class:`LineEnvelope`). The mixer
applies the curve as it mixes the clip (allocation-free, per block), so the
programme stays linear in its clips: the stems still sum exactly to what
enters the master chain, and the fast loudness analysis assembled from the
clips' own analyses (engine/audio/normalize.py) still models the mix
exactly. Live playback and export mix the same curves.

The curve, per 1 ms cell of the clip, in the level the line will have at the
output (its clip peak, plus the lane's fader and pan, plus the master gain
the render expects: ``offset_db``):

- below ``ceiling - knee`` nothing happens;
- above it, a 2.5:1 compressor (peaks of speech: the loud syllables of a
  line come down, the quiet ones stay);
- nothing passes the ceiling (a brick wall for the rest).

The target gain per cell is then held for ``hold_ms`` after a peak and
eased in ``attack_ms`` before it (the look-ahead), and smoothed by two box
filters. Each smoothed value is an average of minima that all cover the
cell, so it never exceeds the cell's target: the ceiling holds exactly on
the sample peaks (the interpolation between cells uses the larger peak of
two neighbouring cells for the same reason).

Tuned on the sample's speech (Piper and Kokoro voices levelled to -23 LUFS,
peak-to-loudness ratios of 17-22 dB): a ceiling 2 dB under full scale at a
-16 LUFS target takes 3-6 dB off the loudest syllables, 20 ms of attack and
60 ms of hold keep consonants intact and do not pump between words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.audio.limiter import sliding_min
from engine.audio.loudness import CLIP_LUFS
from engine.project.defaults import DEFAULT_TARGET_LUFS
from engine.project.model import Project

# Stems (role stems, DME stems, the DAW hand-off's lines) peak under this,
# at the level the render expects to mix them (see docs/user/mixing.md):
# 0.5 dB under the master limiter's ceiling, so a voice alone never reaches
# the limiter, and 2.5 dB under full scale, room for where voices overlap,
# a lane effect's make-up and the master gain landing up to 0.5 dB above
# the gain the levelling assumed (engine/mixdown/mixplan.py RESTAGE_DB).
STEM_CEILING_DB = -2.5


@dataclass(frozen=True)
class LevellerSettings:
    """The leveller's curve and timing (output-domain levels, dBFS sample peak)."""

    ceiling_db: float = STEM_CEILING_DB
    knee_db: float = 4.0  # compression starts this far under the ceiling
    ratio: float = 2.5
    attack_ms: int = 20  # look-ahead: the gain is down this long before a peak
    hold_ms: int = 60  # and stays down this long after it
    smooth_ms: int = 8  # each of the two box filters (half of the attack at most)

    def __post_init__(self) -> None:
        if self.ratio < 1.0:
            raise ValueError(f"leveller ratio {self.ratio} is under 1")
        if 2 * self.smooth_ms > min(self.attack_ms, self.hold_ms):
            raise ValueError("the leveller's smoothing must fit in its attack and hold")


DIALOGUE = LevellerSettings()
# The staged wall (engine/mixdown/dialogue.py): a brick wall only, no compression (ratio 1:1
# under the ceiling), on a staged line's loudest syllables, after its room.
STAGED_WALL = LevellerSettings(ratio=1.0)


def lane_offset_db(gain_db: float, pan: float) -> float:
    """How much louder a line's louder channel reaches its stem than the clip
    itself: the lane's fader and constant-power pan (engine/audio/mixer.py)."""
    theta = (max(-1.0, min(1.0, pan)) + 1.0) * math.pi / 4
    return gain_db + 20 * math.log10(max(math.cos(theta), math.sin(theta)))


def cell_frames(rate: int) -> int:
    """Frames per 1 ms cell of a curve."""
    return max(1, rate // 1000)


def target_gain_db(level_db: np.ndarray, settings: LevellerSettings) -> np.ndarray:
    """The static curve: gain (dB, <= 0) for each cell's output-domain peak level."""
    knee = settings.ceiling_db - settings.knee_db
    over = np.maximum(level_db - knee, 0.0)
    compressed = -over * (1.0 - 1.0 / settings.ratio)
    wall = settings.ceiling_db - level_db
    return np.minimum(np.minimum(compressed, wall), 0.0)


def _box(x: np.ndarray, half: int) -> np.ndarray:
    """Centred moving average over 2*half+1 cells (edges held)."""
    if half <= 0:
        return x
    padded = np.concatenate([np.full(half, x[0]), x, np.full(half, x[-1])])
    csum = np.concatenate([[0.0], np.cumsum(padded)])
    width = 2 * half + 1
    return np.asarray((csum[width:] - csum[:-width]) / width)


class LineEnvelope:
    """A clip's gain curve: one linear gain per cell boundary (``cells + 1``
    values), interpolated linearly between them. Immutable once built."""

    def __init__(self, gains: np.ndarray, cell: int) -> None:
        self.gains = np.ascontiguousarray(gains, dtype=np.float32)
        self.gains.flags.writeable = False
        self.cell = cell
        self.max_reduction_db = -20 * math.log10(max(float(self.gains.min()), 1e-9)) if self.gains.size else 0.0

    @property
    def active(self) -> bool:
        return self.max_reduction_db > 1e-6

    def gain_at(self, offset: int, length: int, gain: np.ndarray, step: np.ndarray, frac: np.ndarray,
                index: np.ndarray, ramp: np.ndarray) -> np.ndarray:
        """The gain for the clip's frames [offset, offset + length) into ``gain``
        (float32). ``step`` and ``frac`` (float32), ``index`` (int64) and
        ``ramp`` (0, 1, 2, ... int64) are work buffers at least ``length``
        long: nothing is allocated (the mixer calls this per block)."""
        g, nxt, f, idx = gain[:length], step[:length], frac[:length], index[:length]
        np.add(ramp[:length], offset, out=idx)
        np.remainder(idx, self.cell, out=f, casting="unsafe")
        f *= np.float32(1.0 / self.cell)
        np.floor_divide(idx, self.cell, out=idx)
        np.take(self.gains, idx, out=g, mode="clip")
        idx += 1
        np.take(self.gains, idx, out=nxt, mode="clip")
        nxt -= g
        nxt *= f
        g += nxt
        return g

    def apply(self, audio: np.ndarray, offset: int = 0) -> np.ndarray:
        """The levelled clip as a new array (analysis and hand-off files); ``audio``
        may be the clip's frames from ``offset`` on (a span of it)."""
        n = audio.shape[0]
        if n == 0 or not self.active:
            return np.asarray(audio, dtype=np.float32)
        pos = np.arange(offset, offset + n, dtype=np.float64) / self.cell
        gain = np.interp(pos, np.arange(self.gains.size, dtype=np.float64), self.gains.astype(np.float64))
        gain32 = gain.astype(np.float32)
        # A staged line (stereo) has one curve for both channels, as a linked stereo limiter.
        return np.asarray(audio * (gain32[:, None] if audio.ndim == 2 else gain32), dtype=np.float32)


def line_envelope(audio: np.ndarray, rate: int, offset_db: float,
                  settings: LevellerSettings = DIALOGUE) -> LineEnvelope:
    """The leveller's curve for a clip that will reach the output ``offset_db``
    louder than it is (fader, pan, expected master gain): mono, or stereo (a
    staged line: one curve from the louder channel, both channels follow it)."""
    cell = cell_frames(rate)
    n = audio.shape[0]
    cells = -(-n // cell)
    if cells == 0:
        return LineEnvelope(np.ones(1, dtype=np.float32), cell)
    padded = np.zeros(cells * cell, dtype=np.float32)
    padded[:n] = np.abs(audio) if audio.ndim == 1 else np.max(np.abs(audio), axis=1)
    peak = padded.reshape(cells, cell).max(axis=1).astype(np.float64)
    # A cell's samples are interpolated between its own gain and the next
    # boundary's: both must respect the cell's peak.
    peak[1:] = np.maximum(peak[1:], peak[:-1])
    with np.errstate(divide="ignore"):
        level = 20 * np.log10(np.maximum(peak, 1e-12)) + offset_db
    target = 10 ** (target_gain_db(level, settings) / 20)
    if float(target.min()) >= 1.0:
        return LineEnvelope(np.ones(cells + 1, dtype=np.float32), cell)
    ahead, hold, smooth = settings.attack_ms, settings.hold_ms, settings.smooth_ms
    # held[k] = min(target[k - hold .. k + ahead]): down before a peak, held after it.
    ext = np.concatenate([np.ones(hold), target, np.ones(ahead)])
    held = sliding_min(ext, hold + ahead + 1)
    gains = _box(_box(held, smooth), smooth)
    gains = np.minimum(np.minimum(gains, target), 1.0)  # rounding of the sums never adds gain
    boundaries = np.concatenate([gains, gains[-1:]])
    return LineEnvelope(boundaries.astype(np.float32), cell)


def expected_gain_db(project: Project, target_lufs: float = DEFAULT_TARGET_LUFS) -> float:
    """The master gain a mix of these roles' lines needs to reach ``target_lufs``,
    known before anything is voiced: every line arrives at CLIP_LUFS, so the
    dialogue sits at CLIP_LUFS plus its faders' power mean (weighted by the
    length of each role's text; a centred constant-power pan keeps a mono
    line's loudness). The dialogue leveller levels for this gain; the render
    measures the real one and levels again where it is higher."""
    audible = project.audible_roles()
    fader = {r.name: r.gain_db for r in project.cast if r.name in audible}
    weights = [(max(1, len(line.text)), fader[line.role]) for line in project.lines if line.role in fader]
    if not weights:
        return target_lufs - CLIP_LUFS
    power = sum(w * 10 ** (g / 10) for w, g in weights) / sum(w for w, _ in weights)
    return target_lufs - (CLIP_LUFS + 10 * math.log10(power))


def sound_trim(peak: float, gain: float, staging_db: float, settings: LevellerSettings = DIALOGUE) -> float:
    """The clip gain that keeps a sound clip (its file's sample ``peak`` times
    ``gain``: clip and lane gain and pan) under the stems' ceiling at a master
    gain of ``staging_db``: 1 where it fits, less for a clip that would clip
    its stem (an editor's clip gain on a hot effect; the leveller's curve is
    for speech)."""
    reach = peak * gain * 10 ** (staging_db / 20)
    ceiling = 10 ** (settings.ceiling_db / 20)
    return 1.0 if reach <= ceiling else ceiling / reach
