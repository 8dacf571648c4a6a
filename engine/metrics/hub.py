"""The metrics hub: one thread-safe sink for scheduler, worker and GUI threads.

Who calls what:

* scheduler thread: :meth:`MetricsHub.set_role_priority`, :meth:`MetricsHub.set_queue_depth`,
  :meth:`MetricsHub.set_predictor`, :meth:`MetricsHub.set_device_traffic`; once, where the
  scheduler is made: :meth:`MetricsHub.set_synthesis_device`;
* worker threads (one per device): :meth:`MetricsHub.record_request` when a request finishes,
  :meth:`MetricsHub.record_batch`, :meth:`MetricsHub.set_device_busy`,
  :meth:`MetricsHub.set_pool_stats`;
* the Qt GUI timer (10-30 Hz): :meth:`MetricsHub.snapshot`;
* ``radioplay serve`` scrapes: :mod:`engine.metrics.prometheus`, via :meth:`MetricsHub.histograms`
  and :meth:`MetricsHub.snapshot`.

Every write is O(1) or O(bins) under one lock; everything lives in fixed-size rings and the
number of keys (roles, policies, origins, devices, pools) is capped, with overflow folded into
``"other"``, so memory stays flat however many requests are recorded.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from engine.metrics.anomaly import AnomalyDetector
from engine.metrics.rings import OTHER_ROW, FloatArray, Ring, TimeGrid

#: Upper bounds ("le") of the latency histogram buckets, log-spaced 5 ms .. 60 s; a final +Inf
#: bucket follows, so histograms and the heat map have ``len(LATENCY_EDGES_S) + 1`` bins. Rounded
#: to 3 significant digits so bucket labels read well ("0.0752", not "0.07521868050117928").
LATENCY_EDGES_S: FloatArray = np.array([float(f"{e:.3g}") for e in np.geomspace(0.005, 60.0, 24)])
RECENT_LATENCIES = 2048  # per (role, policy) and per role: p95/p99 are exact over these
MAX_ROLES = 64
MAX_KEYS = 32  # policies, devices and pools each


@dataclass(frozen=True)
class PoolStats:
    used_bytes: int
    free_bytes: int
    largest_free_bytes: int
    fragmentation: float
    high_water_bytes: int = 0  # the most it has held at once


@dataclass(frozen=True)
class SynthesisDevice:
    """Where synthesis runs, what was asked for and why this one (engine/synth/backends/synth_device.py)."""

    name: str = ""
    asked: str = ""
    reason: str = ""


@dataclass(frozen=True)
class DeviceTraffic:
    """What has crossed from the device pool to the host (engine/memory/device_pool.py)."""

    clips: int = 0
    host_copies: int = 0
    bytes_to_host: int = 0
    misses: int = 0  # device reservations the predictor made too small
    overflows: int = 0  # clips gathered outside the pool


@dataclass(frozen=True)
class DeviceStats:
    batches: int
    items: int
    busy_s_total: float
    recent_mean_batch: float
    recent_max_batch: int


@dataclass(frozen=True)
class LatencyHistogram:
    """One (role, policy) histogram: per-bucket (not cumulative) end-to-end latency counts."""

    role: str
    policy: str
    upper_bounds_s: FloatArray  # len(counts) - 1 finite bounds; the last bucket is +Inf
    counts: npt.NDArray[np.int64]
    sum_s: float
    count: int
    queue_wait_sum_s: float
    synth_sum_s: float


@dataclass(frozen=True)
class OriginLatency:
    """End-to-end latency of one origin's requests (playback, audition, export, prerender, ...):
    the percentiles are exact over the origin's last RECENT_LATENCIES requests. Kept apart
    because a background pre-render waits seconds by design, while a playback or audition
    request is what the listener waits for."""

    requests: int  # finished since the hub started
    p50_ms: float
    p95_ms: float
    max_ms: float


@dataclass(frozen=True)
class EngineSnapshot:
    """Plain data and numpy copies; safe to keep and read from any thread."""

    t: float
    column_s: float
    roles: list[str]
    priority: FloatArray  # roles x columns, oldest -> newest
    queue_depth: FloatArray  # roles x columns
    latency_bins_ms: FloatArray  # finite bucket upper bounds in ms
    latency_heat: FloatArray  # (len(latency_bins_ms) + 1) x columns: requests finished per bin/column
    current_priority: dict[str, float]
    queue_depth_now: dict[str, int]
    p95_ms_by_role: dict[str, float]
    anomalies: int
    anomalies_by_origin: dict[str, int]
    requests: int
    device_busy: dict[str, float]
    device_batches: dict[str, DeviceStats]
    pools: dict[str, PoolStats]
    predictor: dict[str, float]
    audio_seconds_total: float
    latency_by_origin: dict[str, OriginLatency] = field(default_factory=dict)
    synthesis_device: SynthesisDevice = SynthesisDevice()
    device_traffic: DeviceTraffic = DeviceTraffic()


@dataclass
class _KeyStats:
    counts: npt.NDArray[np.int64]
    recent: Ring
    sum_s: float = 0.0
    count: int = 0
    queue_wait_sum_s: float = 0.0
    synth_sum_s: float = 0.0


@dataclass
class _Device:
    sizes: Ring = field(default_factory=lambda: Ring(256))
    batches: int = 0
    items: int = 0
    busy_s: float = 0.0


def _cap(name: str, known: Collection[str], limit: int) -> str:
    """``name``, or ``"other"`` once ``limit - 1`` other names are known (bounded key sets)."""
    return name if name in known or len(known) < limit - 1 or name == OTHER_ROW else OTHER_ROW


class MetricsHub:
    """Thread-safe metrics sink; see the module docstring for which thread calls what."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, window_s: float = 30.0,
                 column_s: float = 0.05, anomaly: AnomalyDetector | None = None) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.column_s = column_s
        self._edges = LATENCY_EDGES_S.copy()
        self._edges_list = [float(e) for e in self._edges]
        nbins = len(self._edges_list) + 1
        self._priority = TimeGrid(window_s, column_s, MAX_ROLES, hold=True)
        self._queue = TimeGrid(window_s, column_s, MAX_ROLES, hold=True)
        labels = [f"le_{e * 1000:.4g}ms" for e in self._edges_list] + ["le_inf"]
        self._heat = TimeGrid(window_s, column_s, nbins + 1, rows=labels)
        self._stats: dict[tuple[str, str], _KeyStats] = {}
        self._policies: set[str] = set()
        self._role_recent: dict[str, Ring] = {}
        self._p95_ms: dict[str, float] = {}
        self._p95_dirty: set[str] = set()
        self._origin_recent: dict[str, Ring] = {}
        self._origin_latency: dict[str, OriginLatency] = {}
        self._origin_dirty: set[str] = set()
        self._all_recent = Ring(RECENT_LATENCIES)
        self._anomaly = anomaly if anomaly is not None else AnomalyDetector()
        self._requests = 0
        self._audio_s = 0.0
        self._priority_now: dict[str, float] = {}
        self._depth_now: dict[str, int] = {}
        self._busy: dict[str, float] = {}
        self._devices: dict[str, _Device] = {}
        self._pools: dict[str, PoolStats] = {}
        self._predictor: dict[str, float] = {"p90_error": 0.0, "misses": 0.0, "observations": 0.0}
        self._device = SynthesisDevice()
        self._traffic = DeviceTraffic()

    @property
    def latency_edges_s(self) -> FloatArray:
        return self._edges.copy()

    def _role(self, role: str) -> str:
        """Canonical (possibly capped) role name; registers it in both role grids, same order."""
        name = self._priority.row_name(self._priority.row_index(role))
        self._queue.row_index(name)
        return name

    # ------------------------------------------------------------------ writers (scheduler/workers)

    def record_request(self, role: str, origin: str, policy: str, queue_wait_s: float, synth_s: float,
                       e2e_s: float, audio_s: float) -> bool:
        """Record one finished request; True if its end-to-end latency was flagged as an anomaly."""
        b = bisect_left(self._edges_list, e2e_s)  # le semantics: edges[b-1] < e2e <= edges[b]
        with self._lock:
            t = self._clock()
            role = self._role(role)
            policy = _cap(policy, self._policies, MAX_KEYS)
            self._policies.add(policy)
            st = self._stats.get((role, policy))
            if st is None:
                st = self._stats[(role, policy)] = _KeyStats(
                    np.zeros(len(self._edges_list) + 1, dtype=np.int64), Ring(RECENT_LATENCIES))
            st.counts[b] += 1
            st.sum_s += e2e_s
            st.count += 1
            st.queue_wait_sum_s += queue_wait_s
            st.synth_sum_s += synth_s
            st.recent.append(e2e_s)
            ring = self._role_recent.get(role)
            if ring is None:
                ring = self._role_recent[role] = Ring(RECENT_LATENCIES)
            ring.append(e2e_s)
            self._p95_dirty.add(role)
            self._all_recent.append(e2e_s)
            key = _cap(origin, self._origin_recent, MAX_KEYS)
            recent = self._origin_recent.get(key)
            if recent is None:
                recent = self._origin_recent[key] = Ring(RECENT_LATENCIES)
            recent.append(e2e_s)
            self._origin_dirty.add(key)
            self._heat.add_at(b, 1.0, t)
            self._requests += 1
            self._audio_s += audio_s
            return self._anomaly.check(origin, e2e_s)

    def set_role_priority(self, role: str, value: float) -> None:
        with self._lock:
            t = self._clock()
            role = self._role(role)
            self._priority_now[role] = float(value)
            self._priority.set(role, value, t)

    def set_queue_depth(self, role: str, depth: int) -> None:
        with self._lock:
            t = self._clock()
            role = self._role(role)
            self._depth_now[role] = int(depth)
            self._queue.set(role, depth, t)

    def record_batch(self, device: str, size: int, busy_s: float) -> None:
        with self._lock:
            device = _cap(device, self._devices, MAX_KEYS)
            dev = self._devices.get(device)
            if dev is None:
                dev = self._devices[device] = _Device()
            dev.sizes.append(size)
            dev.batches += 1
            dev.items += int(size)
            dev.busy_s += busy_s

    def set_device_busy(self, device: str, fraction: float) -> None:
        with self._lock:
            self._busy[_cap(device, self._busy, MAX_KEYS)] = float(fraction)

    def set_pool_stats(self, name: str, used_bytes: int, free_bytes: int, largest_free_bytes: int,
                       fragmentation: float, high_water_bytes: int = 0) -> None:
        stats = PoolStats(int(used_bytes), int(free_bytes), int(largest_free_bytes), float(fragmentation),
                          int(high_water_bytes))
        with self._lock:
            self._pools[_cap(name, self._pools, MAX_KEYS)] = stats

    def set_synthesis_device(self, name: str, asked: str, reason: str) -> None:
        with self._lock:
            self._device = SynthesisDevice(name, asked, reason)

    def set_device_traffic(self, traffic: DeviceTraffic) -> None:
        with self._lock:
            self._traffic = traffic

    def set_predictor(self, p90_error: float, misses: int, observations: int) -> None:
        with self._lock:
            self._predictor = {"p90_error": float(p90_error), "misses": float(misses),
                               "observations": float(observations)}

    # ------------------------------------------------------------------ readers (GUI / scrapes)

    def latency_percentile(self, q: float, role: str | None = None, policy: str | None = None) -> float | None:
        """Exact q-th percentile (seconds) of the recent end-to-end latencies of a role, a
        (role, policy) pair or, with neither, of all requests; None when there are none."""
        with self._lock:
            if role is None:
                if policy is not None:
                    raise ValueError("a policy percentile needs a role")
                return self._all_recent.percentile(q)
            if policy is None:
                ring = self._role_recent.get(role)
                return None if ring is None else ring.percentile(q)
            st = self._stats.get((role, policy))
            return None if st is None else st.recent.percentile(q)

    def histograms(self) -> list[LatencyHistogram]:
        """Copies of every (role, policy) latency histogram, for Prometheus scrapes."""
        with self._lock:
            return [LatencyHistogram(role, policy, self._edges.copy(), st.counts.copy(), st.sum_s, st.count,
                                     st.queue_wait_sum_s, st.synth_sum_s)
                    for (role, policy), st in self._stats.items()]

    def snapshot(self) -> EngineSnapshot:
        """Everything the GUI draws, as copies; O(roles x columns), no loop over requests."""
        with self._lock:
            now = self._clock()
            priority, roles = self._priority.matrix(now)
            depth, _ = self._queue.matrix(now)
            heat, _ = self._heat.matrix(now)
            for role in self._p95_dirty:
                p95 = self._role_recent[role].percentile(95.0)
                if p95 is not None:
                    self._p95_ms[role] = p95 * 1000.0
            self._p95_dirty.clear()
            for origin in self._origin_dirty:
                ring = self._origin_recent[origin]
                values = ring.values() * 1000.0
                p50, p95 = np.percentile(values, (50.0, 95.0))
                self._origin_latency[origin] = OriginLatency(ring.total, float(p50), float(p95), float(values.max()))
            self._origin_dirty.clear()
            devices = {}
            for name, d in self._devices.items():
                sizes = d.sizes.values()
                devices[name] = DeviceStats(d.batches, d.items, d.busy_s, float(sizes.mean()), int(sizes.max()))
            return EngineSnapshot(
                t=now, column_s=self.column_s, roles=roles, priority=priority, queue_depth=depth,
                latency_bins_ms=self._edges * 1000.0, latency_heat=heat,
                current_priority=dict(self._priority_now), queue_depth_now=dict(self._depth_now),
                p95_ms_by_role=dict(self._p95_ms), anomalies=self._anomaly.total_flagged,
                anomalies_by_origin=dict(self._anomaly.flagged), requests=self._requests,
                device_busy=dict(self._busy), device_batches=devices, pools=dict(self._pools),
                predictor=dict(self._predictor), audio_seconds_total=self._audio_s,
                latency_by_origin=dict(self._origin_latency), synthesis_device=self._device,
                device_traffic=self._traffic,
            )
