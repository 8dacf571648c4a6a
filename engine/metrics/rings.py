"""Fixed-size numpy ring structures for metrics.

Why: metrics are written for every request of a render that may run for hours, so nothing here
may grow with the number of observations. A :class:`Ring` keeps the last ``capacity`` floats; a
:class:`TimeGrid` keeps a (rows x columns) matrix of 50 ms columns over the last N seconds that
scrolls as time moves on.

Time is always passed in explicitly (``t`` in seconds on any monotonic scale) so tests can drive a
fake clock. Neither class locks: the owner (:class:`engine.metrics.hub.MetricsHub`) serialises
access from scheduler, worker and GUI threads with its own lock.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

OTHER_ROW = "other"


class Ring:
    """The last ``capacity`` float values, oldest dropped first. O(1) append, O(capacity) read."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"Ring capacity must be at least 1, got {capacity}")
        self._buf: FloatArray = np.zeros(capacity, dtype=np.float64)
        self._next = 0  # index the next value goes to
        self._len = 0
        self.total = 0  # values ever appended, including those since dropped

    @property
    def capacity(self) -> int:
        return int(self._buf.shape[0])

    def __len__(self) -> int:
        return self._len

    def append(self, value: float) -> None:
        self._buf[self._next] = value
        self._next = (self._next + 1) % self.capacity
        self._len = min(self._len + 1, self.capacity)
        self.total += 1

    def values(self) -> FloatArray:
        """A copy of the held values, oldest first."""
        if self._len < self.capacity:
            return self._buf[: self._len].copy()
        return np.concatenate((self._buf[self._next:], self._buf[: self._next]))

    def last(self) -> float | None:
        """The most recently appended value, or None when empty."""
        if not self._len:
            return None
        return float(self._buf[self._next - 1])

    def percentile(self, q: float) -> float | None:
        """The q-th percentile (0-100, linear interpolation) of the held values; None when empty."""
        if not self._len:
            return None
        return float(np.percentile(self._buf[: self._len], q))

    def clear(self) -> None:
        self._next = 0
        self._len = 0


class TimeGrid:
    """A (rows x columns) float matrix over the last ``window_s`` seconds, one column per ``column_s``.

    Column ``k`` covers times ``[k * column_s, (k + 1) * column_s)``. Writing at a time later than
    any before scrolls the grid: the columns passed over are reset (to 0, or with ``hold=True`` to
    each row's last set value, so a gauge such as a priority draws a continuous line). Writes a
    little in the past (threads racing for the owner's lock) land in their own column if it is
    still inside the window and are dropped otherwise.

    Rows are keyed by name and created on first use, up to ``max_rows`` in all; once only one slot
    is left, every further new name shares a final ``"other"`` row. Storage is preallocated for
    ``max_rows`` rows, so adding rows never reallocates.
    """

    def __init__(self, window_s: float = 30.0, column_s: float = 0.05, max_rows: int = 64,
                 rows: tuple[str, ...] | list[str] = (), hold: bool = False) -> None:
        if column_s <= 0 or window_s < column_s:
            raise ValueError(f"need 0 < column_s <= window_s, got column_s={column_s}, window_s={window_s}")
        if max_rows < 1 or len(rows) > max_rows:
            raise ValueError(f"max_rows={max_rows} cannot hold the {len(rows)} initial rows")
        self.column_s = float(column_s)
        self.columns = int(round(window_s / column_s))
        self.max_rows = max_rows
        self.hold = hold
        self._data: FloatArray = np.zeros((max_rows, self.columns), dtype=np.float64)
        self._last: FloatArray = np.zeros(max_rows, dtype=np.float64)
        self._index: dict[str, int] = {}
        self._names: list[str] = []
        self._head: int | None = None  # newest absolute column written or scrolled to
        for name in rows:
            self.row_index(name)

    @property
    def row_names(self) -> list[str]:
        return list(self._names)

    def row_index(self, name: str) -> int:
        """The row for ``name``, creating it (or falling back to ``"other"``) if new."""
        idx = self._index.get(name)
        if idx is not None:
            return idx
        # The last slot is reserved for "other", so named rows stop one short of max_rows.
        limit = self.max_rows if name == OTHER_ROW else self.max_rows - 1
        if len(self._names) >= limit:
            return self.row_index(OTHER_ROW)
        idx = len(self._names)
        self._names.append(name)
        self._index[name] = idx
        return idx

    def row_name(self, idx: int) -> str:
        """The name of row ``idx`` (what a capped name was folded into)."""
        return self._names[idx]

    def column_of(self, t: float) -> int:
        """Absolute column number of time ``t``."""
        return math.floor(t / self.column_s)

    def _slot(self, t: float) -> int | None:
        """Scroll to ``t`` if it is new; return its storage column, or None if it has left the window."""
        k = self.column_of(t)
        head = self._head
        if head is None or k > head:
            start = k - self.columns + 1 if head is None else max(head + 1, k - self.columns + 1)
            cols = np.arange(start, k + 1) % self.columns
            if self.hold:
                self._data[:, cols] = self._last[:, None]
            else:
                self._data[:, cols] = 0.0
            self._head = k
        elif k <= head - self.columns:
            return None
        return k % self.columns

    def set(self, row: str, value: float, t: float) -> None:
        """Write ``value`` as the row's latest value in the column for ``t`` (a gauge sample)."""
        r = self.row_index(row)
        slot = self._slot(t)
        if slot is None:
            return
        self._data[r, slot] = value
        if self.column_of(t) == self._head:  # a late write into an older column is not "latest"
            self._last[r] = value

    def add(self, row: str, value: float, t: float) -> None:
        """Add ``value`` to the row's cell in the column for ``t`` (a counter per column)."""
        self.add_at(self.row_index(row), value, t)

    def add_at(self, row: int, value: float, t: float) -> None:
        """:meth:`add` by row index, for callers that resolved the row once (histogram bins)."""
        slot = self._slot(t)
        if slot is not None:
            self._data[row, slot] += value

    def matrix(self, now: float) -> tuple[FloatArray, list[str]]:
        """A copy of the grid, columns oldest -> newest, the last one being the column of ``now``.

        Reading does not scroll the grid: columns after the newest write read as 0 (or, with
        ``hold``, as each row's last value); columns older than the stored window read as 0.
        """
        n = len(self._names)
        k_now = self.column_of(now)
        absolute = np.arange(k_now - self.columns + 1, k_now + 1)
        out = self._data[:n, absolute % self.columns]  # fancy indexing: already a copy
        if self._head is None:
            out[:] = self._last[:n, None] if self.hold else 0.0
            return out, list(self._names)
        future = absolute > self._head
        if future.any():
            out[:, future] = self._last[:n, None] if self.hold else 0.0
        stale = absolute <= self._head - self.columns
        if stale.any():
            out[:, stale] = 0.0
        return out, list(self._names)
