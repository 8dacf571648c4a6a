"""Snapping for the timeline: where a dragged clip or a loop edge lands.

Pure functions on sorted numpy arrays of times (seconds), so they are tested without a view.
A snap happens only within ``threshold_px`` at the current zoom; clip edges (and 0 and the
playhead) win over the grid, as in REAPER and Audacity.
"""

from __future__ import annotations

import numpy as np

SNAP_PX = 8.0

#: (shift to apply in seconds, the time snapped to)
Snap = tuple[float, float]


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
