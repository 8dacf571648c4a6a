"""The dialogue bus's wall where voices overlap: each role's lines peak under the
stems' ceiling (engine/mixdown/dialogue.py), but two roles at once (a line
cutting in, a reverberant room's tail under the next role's line) can sum past it
in the DX stem. Where they do, one gain curve over that stretch of time (the
leveller's brick wall, made from the sum) goes into the curve of every line
sounding there, so the role stems still sum to DX exactly and DX peaks under the
ceiling: a linked bus limiter, applied on the clips before the lanes.

Approximate in two ways, both on the safe side or within OVERLAP_MARGIN_DB: the
sum is made from the lanes' faders and pans as the mix starts (a lane muted
later only makes the wall act where it need not), and without the lanes'
effects (a telephone band-pass takes level away; its make-up can add a little).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from engine.audio.leveller import DIALOGUE, STAGED_WALL, LineEnvelope, line_envelope
from engine.audio.mixer import PlacedClip, pan_gains

# The wall is made this far under the stems' ceiling: the curve of each line is
# sampled on its own 1 ms cells, not on the sum's, and interpolating the two
# between cells can pass the sum's target by a little.
OVERLAP_MARGIN_DB = 0.3


# An overlap's wall: its gains at absolute frames and their cell, or None (no wall needed).
_Wall = tuple[np.ndarray, np.ndarray, int] | None


class OverlapWalls:
    """The walls of the overlaps met at the last call, by what makes them (the clips'
    places, audio, curves, gains and lanes): live playback lays its timeline out again
    on every arriving clip and every Stop, and must not sum each overlap again each time
    (a quarter of a second of its control thread on the sample). The entries hold their
    clips, so the identities in the keys stay theirs."""

    def __init__(self) -> None:
        self._walls: dict[tuple[object, ...], tuple[list[PlacedClip], _Wall]] = {}

    def wall(self, placed: Sequence[PlacedClip], lanes: Mapping[int, tuple[float, float]], rate: int,
             staging_db: float, extra_db: Sequence[float] | None = None) -> list[PlacedClip]:
        """``placed`` with the overlaps' wall in their curves (``wall_overlaps``). ``extra_db``:
        how much louder than ``staging_db`` each clip is delivered (its scene's file levelled
        on its own); an overlap is walled for the loudest of its clips'."""
        extra = {id(c): e for c, e in zip(placed, extra_db, strict=True)} if extra_db is not None else {}
        clips = [c for c in placed if c.role_index in lanes]
        out = {id(c): c for c in placed}
        used: dict[tuple[object, ...], tuple[list[PlacedClip], _Wall]] = {}
        for lo, hi, members in _overlaps(clips):
            level_db = staging_db + max(extra.get(id(c), 0.0) for c in members)
            key = (lo, hi, rate, level_db, *((c.role_index, c.start, id(c.audio), id(c.envelope), c.gain,
                                              lanes[c.role_index]) for c in members))
            known = self._walls.get(key)
            made = known[1] if known is not None else _overlap_wall(lo, hi, members, lanes, rate, level_db)
            used[key] = (members, made)
            if made is None:
                continue
            wall_frames, wall_gains, cell = made
            for clip in members:
                out[id(clip)] = _with_wall(out[id(clip)], wall_frames, wall_gains, cell)
        self._walls = used
        return [out[id(c)] for c in placed]


def wall_overlaps(placed: Sequence[PlacedClip], lanes: Mapping[int, tuple[float, float]], rate: int,
                  staging_db: float) -> list[PlacedClip]:
    """``placed`` with the overlaps' wall in their curves. ``lanes``: each audible lane's
    (fader dB, pan); ``staging_db``: the master gain the lines are levelled for."""
    return OverlapWalls().wall(placed, lanes, rate, staging_db)


def _overlap_wall(lo: int, hi: int, members: Sequence[PlacedClip], lanes: Mapping[int, tuple[float, float]],
                  rate: int, staging_db: float) -> _Wall:
    """The wall of frames [lo, hi) where ``members`` sound together, None where their sum
    stays under the stems' ceiling."""
    total = np.zeros((hi - lo, 2), dtype=np.float32)
    for clip in members:
        a, b = max(lo, clip.start), min(hi, clip.end)
        total[a - lo:b - lo] += _heard(clip, a, b, lanes[clip.role_index])
    peak = float(np.max(np.abs(total))) if total.size else 0.0
    level_db = staging_db + 20 * np.log10(max(peak, 1e-12))
    if level_db <= DIALOGUE.ceiling_db - OVERLAP_MARGIN_DB:
        return None
    wall = line_envelope(total, rate, staging_db + OVERLAP_MARGIN_DB, STAGED_WALL)
    return lo + np.arange(wall.gains.size, dtype=np.float64) * wall.cell, wall.gains, wall.cell


def _overlaps(clips: Sequence[PlacedClip]) -> list[tuple[int, int, list[PlacedClip]]]:
    """Stretches of time where clips of two lanes or more sound at once, each with the
    clips that sound in it (sorted by start; a stretch is the union of overlapping
    spans, so a curve is made once for a chain of overlaps)."""
    found: list[tuple[int, int, list[PlacedClip]]] = []
    ordered = sorted(clips, key=lambda c: c.start)
    group: list[PlacedClip] = []
    end = -1
    for clip in [*ordered, None]:
        if clip is not None and clip.start < end:
            group.append(clip)
            end = max(end, clip.end)
            continue
        if len({c.role_index for c in group}) > 1:
            spans = sorted((c.start, c.end, c.role_index) for c in group)
            lo = _first_shared(spans)
            found.append((lo, max(c.end for c in group), group))
        if clip is not None:
            group, end = [clip], clip.end
    return found


def _first_shared(spans: Sequence[tuple[int, int, int]]) -> int:
    """The first frame at which two lanes sound at once."""
    first = min(s for s, _, _ in spans)
    for i, (start, _, role) in enumerate(spans):
        if any(r != role and s <= start < e for s, e, r in spans[:i]):
            return start
    return first


def _heard(clip: PlacedClip, a: int, b: int, lane: tuple[float, float]) -> np.ndarray:
    """Frames [a, b) of ``clip`` as they reach its stem (its curve, trim, fader and pan), stereo."""
    source = clip.audio[a - clip.start:b - clip.start]
    if clip.envelope is not None:
        source = clip.envelope.apply(source, offset=a - clip.start)
    fader, pan = lane
    if source.ndim == 2:
        return np.asarray(source * np.float32(10 ** (fader / 20) * clip.gain), dtype=np.float32)
    left, right = pan_gains(fader, pan)
    return np.stack([source * np.float32(left * clip.gain), source * np.float32(right * clip.gain)], axis=1)


def _with_wall(clip: PlacedClip, wall_frames: np.ndarray, wall_gains: np.ndarray, wall_cell: int) -> PlacedClip:
    """``clip`` with the wall (gains at absolute frames, ``wall_cell`` apart; 1 outside them) in its curve."""
    frames = clip.audio.shape[0]
    if clip.envelope is not None:
        cell, gains = clip.envelope.cell, clip.envelope.gains.astype(np.float64)
    else:
        cell = wall_cell
        gains = np.ones(-(-frames // cell) + 1, dtype=np.float64)
    at = clip.start + np.arange(gains.size, dtype=np.float64) * cell
    wall = np.interp(at, wall_frames, wall_gains.astype(np.float64), left=1.0, right=1.0)
    # A boundary takes the lower gain of its wall neighbours: the interpolation between
    # two cells of the line must stay under both cells' wall.
    low = wall.copy()
    low[1:] = np.minimum(low[1:], wall[:-1])
    low[:-1] = np.minimum(low[:-1], wall[1:])
    return PlacedClip(clip.role_index, clip.start, clip.audio, LineEnvelope(gains * low, cell), clip.gain)

