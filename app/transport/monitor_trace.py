"""A fixed-size ring of (time, value) samples for the monitor's curves.

The hub keeps time grids for priority, queue depth and latency, but device busy and pool
statistics are gauges it holds only as the latest value; the monitor samples them at each
update into one of these, so memory stays flat however long the studio runs.
"""

from __future__ import annotations

import numpy as np


class Trace:
    def __init__(self, capacity: int) -> None:
        self._t = np.zeros(capacity)
        self._v = np.zeros(capacity)
        self._next = 0
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def append(self, t: float, value: float) -> None:
        self._t[self._next] = t
        self._v[self._next] = value
        self._next = (self._next + 1) % self._t.size
        self._len = min(self._len + 1, self._t.size)

    def window(self, now: float, window_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Samples of the last ``window_s`` seconds, oldest first, as (seconds before ``now``,
        value)."""
        if self._len < self._t.size:
            t, v = self._t[: self._len], self._v[: self._len]
        else:
            t = np.concatenate((self._t[self._next:], self._t[: self._next]))
            v = np.concatenate((self._v[self._next:], self._v[: self._next]))
        keep = t >= now - window_s
        return t[keep] - now, v[keep]
