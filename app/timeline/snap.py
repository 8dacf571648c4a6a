"""Snapping for the timeline: where a dragged clip or a loop edge lands.

Pure functions on sorted numpy arrays of times (seconds), so they are tested without a view,
and :class:`Snapper`, which applies them to what the timeline shows (clip edges, the playhead,
the ruler's minor ticks as the grid) at its zoom. A snap happens only within ``threshold_px``;
clip edges (and 0 and the playhead) win over the grid, as in REAPER and Audacity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

import numpy as np

from app.timeline.ruler import tick_steps

if TYPE_CHECKING:
    from app.timeline.items import ClipItem

SNAP_PX = 8.0

#: (shift to apply in seconds, the time snapped to)
Snap = tuple[float, float]


def edge_targets(spans: Iterable[tuple[float, float]], playhead_s: float) -> np.ndarray:
    """Sorted, unique snap targets: 0, the playhead and both edges of every (start, end) span."""
    edges = [0.0, playhead_s]
    for start, end in spans:
        edges += (start, end)
    return np.unique(np.asarray(edges, dtype=np.float64))


def nearest(targets: np.ndarray, t: float) -> float | None:
    """The value of sorted ``targets`` closest to ``t`` (None if there are none)."""
    if targets.size == 0:
        return None
    i = int(np.searchsorted(targets, t))
    best: float | None = None
    for j in (i - 1, i):
        if 0 <= j < targets.size and (best is None or abs(targets[j] - t) < abs(best - t)):
            best = float(targets[j])
    return best


def snap_to_targets(times: tuple[float, ...], targets: np.ndarray, px_per_s: float,
                    threshold_px: float = SNAP_PX) -> Snap | None:
    """The smallest shift that puts one of ``times`` (a clip's start and end) on a target."""
    best: Snap | None = None
    for t in times:
        target = nearest(targets, t)
        if target is not None and (best is None or abs(target - t) < abs(best[0])):
            best = (target - t, target)
    return best if best is not None and abs(best[0]) * px_per_s <= threshold_px else None


def snap_to_grid(times: tuple[float, ...], step_s: float, px_per_s: float,
                 threshold_px: float = SNAP_PX) -> Snap | None:
    """The smallest shift that puts one of ``times`` on a multiple of ``step_s``."""
    best: Snap | None = None
    for t in times:
        target = round(t / step_s) * step_s
        if best is None or abs(target - t) < abs(best[0]):
            best = (target - t, target)
    return best if best is not None and abs(best[0]) * px_per_s <= threshold_px else None


def snap(times: tuple[float, ...], targets: np.ndarray, step_s: float, px_per_s: float,
         threshold_px: float = SNAP_PX) -> Snap | None:
    """Clip edges first, then the grid."""
    return (snap_to_targets(times, targets, px_per_s, threshold_px)
            or snap_to_grid(times, step_s, px_per_s, threshold_px))


class _Scene(Protocol):
    """What snapping reads of the timeline scene (app/timeline/scene.py)."""

    pps: float

    def snap_targets(self, playhead_s: float, exclude: ClipItem | None = None) -> np.ndarray: ...


class Snapper:
    """Snapping on a timeline scene: ``playhead()`` is a snap target, ``enabled()`` is the View
    menu's "Snap to Clips and Grid"; Shift (``snap=False``) places freely."""

    def __init__(self, scene: _Scene, playhead: Callable[[], float], enabled: Callable[[], bool]) -> None:
        self._scene = scene
        self._playhead = playhead
        self._enabled = enabled

    def targets(self, exclude: ClipItem | None = None) -> np.ndarray:
        return self._scene.snap_targets(self._playhead(), exclude)

    def clip_start(self, item: ClipItem, start: float, snap_on: bool = True,
                   targets: np.ndarray | None = None) -> tuple[float, float | None]:
        """Where a clip dragged to ``start`` lands: its start or end on another clip's edge
        (or the playhead, or 0), else on the grid. Returns (start, the time it snapped to or
        None); ``targets`` are the drag's cached targets (without the clip's own edges)."""
        start = max(0.0, start)
        if not snap_on or not self._enabled():
            return start, None
        if targets is None:
            targets = self.targets(exclude=item)
        pps = self._scene.pps
        hit = snap((start, start + item.duration), targets, tick_steps(pps)[1], pps)
        return (start, None) if hit is None else (max(0.0, start + hit[0]), hit[1])

    def time(self, t: float, snap_on: bool = True) -> float:
        """A time (a loop edge) snapped to clip edges, the playhead or the grid."""
        if not snap_on or not self._enabled():
            return t
        pps = self._scene.pps
        hit = snap((t,), self.targets(), tick_steps(pps)[1], pps)
        return t if hit is None else t + hit[0]
