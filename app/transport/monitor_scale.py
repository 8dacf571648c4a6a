"""What the engine monitor's heatmaps colour: the range their data spans, not a fixed one.

Scheduler priorities run from 0.1 to 1e6 and more over a session, but over 30 s they mostly sit
within a decade or two (8-220 on the sample under load): on fixed levels spanning six decades
that reads as one solid colour. Finished requests are sparse (a line every few seconds), so a
50 ms x latency-bin grid of them is a few one-pixel dots. So:

* **priority**: log10 levels fitted to the lowest and highest pending priority in the window
  (at least one decade wide); the colour bar is relabelled with the fitted range;
* **latency**: requests pooled into 1 s columns, colours from 0 to the busiest cell in the
  window, and the latency axis cropped to the bins that hold requests (a bin either side).

Levels are refitted only when the data leaves them or fills less than half of them, so the
colours of a steady engine stay put from frame to frame (and the colour bar is not redrawn).
"""

from __future__ import annotations

import math

import numpy as np

#: Finished requests are pooled into columns this many 50 ms grid columns wide (1 s).
LATENCY_POOL = 20
MIN_DECADES = 1.0  # the narrowest priority range shown: a constant priority is not stretched


def _needs_refit(current: tuple[float, float] | None, lo: float, hi: float) -> bool:
    if current is None:
        return True
    a, b = current
    return lo < a or hi > b or (hi - lo) < 0.5 * (b - a)


def fit_log_levels(data: np.ndarray, floor: float, current: tuple[float, float] | None) -> tuple[float, float] | None:
    """Levels for log10 data whose cells above ``floor`` (log10) vary; ``current`` if they
    still fit it; None when nothing is above the floor (keep what is shown)."""
    pending = data[data > floor]
    if pending.size == 0:
        return None
    lo, hi = float(pending.min()), float(pending.max())
    if hi - lo < MIN_DECADES:  # widen around the middle, so the range is not noise
        mid = 0.5 * (lo + hi)
        lo, hi = mid - MIN_DECADES / 2, mid + MIN_DECADES / 2
    if not _needs_refit(current, lo, hi):
        return current
    pad = 0.05 * (hi - lo)  # the extremes are not the ends of the colour map
    return (math.floor((lo - pad) * 10) / 10, math.ceil((hi + pad) * 10) / 10)


def decade_ticks(levels: tuple[float, float]) -> list[tuple[float, str]]:
    """Colour-bar ticks in priority units across log10 ``levels``: decades, and 2x/5x steps
    when the range is narrow enough to need them."""
    lo, hi = levels
    steps = (1.0, 2.0, 5.0) if hi - lo <= 2.5 else (1.0,)
    ticks = []
    for exponent in range(math.floor(lo), math.ceil(hi) + 1):
        for step in steps:
            value = math.log10(step) + exponent
            if lo <= value <= hi:
                ticks.append((value, priority_text(step * 10.0**exponent)))
    return ticks


def priority_text(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:g}M"
    if value >= 1e3:
        return f"{value / 1e3:g}k"
    return f"{value:g}"


def pool_columns(heat: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Sum ``heat``'s 50 ms columns into ``out``'s 1 s columns (the newest column on the right
    is whole: pooling is aligned to the end)."""
    rows, columns = heat.shape
    pooled = out.shape[1]
    start = columns - pooled * LATENCY_POOL
    out.fill(0.0)
    if start < 0:  # fewer columns than a full pool: the first one takes what there is
        head = columns - (pooled - 1) * LATENCY_POOL
        out[:, 0] = heat[:, :head].sum(axis=1)
        np.add.reduceat(heat[:, head:], np.arange(0, columns - head, LATENCY_POOL), axis=1, out=out[:, 1:])
    else:
        np.add.reduceat(heat[:, start:], np.arange(0, columns - start, LATENCY_POOL), axis=1, out=out)
    return out


def pooled_width(columns: int) -> int:
    return max(1, -(-columns // LATENCY_POOL))


def fit_count_levels(counts: np.ndarray, current: tuple[float, float] | None) -> tuple[float, float]:
    """log1p levels from no request to the busiest pooled cell (at least one request)."""
    top = math.log1p(max(1.0, float(counts.max()) if counts.size else 0.0))
    if current is not None and current[1] >= top >= 0.5 * current[1]:
        return current
    return (0.0, top)


def count_ticks(levels: tuple[float, float]) -> list[tuple[float, str]]:
    top = math.expm1(levels[1])
    counts = [n for n in (0, 1, 2, 5, 10, 20, 50, 100, 200, 500) if n <= top + 1e-9]
    if counts[-1] < top - 0.5:
        counts.append(round(top))
    return [(math.log1p(n), str(n)) for n in counts]


def busy_rows(counts: np.ndarray, current: tuple[int, int] | None, least: int = 4) -> tuple[int, int] | None:
    """The latency bins to show: those with requests and one either side (at least ``least``
    rows); ``current`` while it still holds them; None when no request is in the window."""
    rows = np.flatnonzero(counts.any(axis=1))
    if rows.size == 0:
        return None
    lo, hi = int(rows[0]) - 1, int(rows[-1]) + 2
    while hi - lo < least:
        lo, hi = lo - 1, hi + 1
    lo, hi = max(0, lo), min(counts.shape[0], hi)
    if current is not None and current[0] <= lo and hi <= current[1] and (hi - lo) >= 0.5 * (current[1] - current[0]):
        return current
    return (lo, hi)
