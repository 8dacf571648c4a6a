"""Latency anomaly flags against a rolling per-origin p99 baseline.

Why: a request that takes far longer than its peers from the same origin (a GUI preview, a batch
render, an API client...) usually means a stuck device, a cold model or a pathological line, and is
worth surfacing even when the average looks fine. The rule: a latency is flagged when it exceeds
``factor`` x the p99 of that origin's previous ``window`` latencies *and* is over ``floor_s``
(so tiny absolute latencies never alarm), once at least ``min_samples`` have been seen. The flagged
value still enters the window, so a lasting shift becomes the new baseline instead of alarming
forever.

Not locked: :class:`engine.metrics.hub.MetricsHub` calls it under its own lock from the
scheduler/worker threads that report finished requests.
"""

from __future__ import annotations

from engine.metrics.rings import OTHER_ROW, Ring


class AnomalyDetector:
    """Per-origin rolling windows; :meth:`check` is O(1) for latencies under the floor and
    O(window) (one numpy partition, cached until the window changes) above it."""

    def __init__(self, factor: float = 1.8, floor_s: float = 0.2, min_samples: int = 50,
                 window: int = 1024, max_origins: int = 256) -> None:
        if factor <= 0 or min_samples < 1 or window < min_samples:
            raise ValueError("need factor > 0 and 1 <= min_samples <= window")
        self.factor = factor
        self.floor_s = floor_s
        self.min_samples = min_samples
        self.window = window
        self.max_origins = max_origins
        self._rings: dict[str, Ring] = {}
        self._baseline: dict[str, float] = {}  # cached p99, dropped whenever the ring changes
        self.flagged: dict[str, int] = {}
        self.total_flagged = 0

    def _origin(self, origin: str) -> str:
        if origin in self._rings or len(self._rings) < self.max_origins - 1 or origin == OTHER_ROW:
            return origin
        return OTHER_ROW  # bounded: unknown origins beyond the cap share one window

    def baseline(self, origin: str) -> float | None:
        """The p99 of the origin's current window, or None before ``min_samples`` latencies."""
        ring = self._rings.get(origin)
        if ring is None or len(ring) < self.min_samples:
            return None
        cached = self._baseline.get(origin)
        if cached is None:
            cached = ring.percentile(99.0)
            assert cached is not None
            self._baseline[origin] = cached
        return cached

    def check(self, origin: str, latency_s: float) -> bool:
        """Record one latency; True if it is an anomaly against the window before it."""
        origin = self._origin(origin)
        flagged = False
        if latency_s > self.floor_s:
            base = self.baseline(origin)
            flagged = base is not None and latency_s > self.factor * base
        ring = self._rings.get(origin)
        if ring is None:
            ring = self._rings[origin] = Ring(self.window)
        ring.append(latency_s)
        self._baseline.pop(origin, None)
        if flagged:
            self.flagged[origin] = self.flagged.get(origin, 0) + 1
            self.total_flagged += 1
        return flagged

    def origins(self) -> list[str]:
        return list(self._rings)
