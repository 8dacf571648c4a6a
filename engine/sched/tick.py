"""The scheduler's tick (thread ``radioplay-sched``): every ``tick_s`` it re-evaluates
priorities, publishes each role's priority and queue depth, each worker's busy share,
the clip pools (the host's and the synthesis device's) and the length predictor to the
metrics hub, and runs the text frontend
for the most urgent jobs still lacking phonemes, so inference never waits for it.

A part of :class:`engine.sched.scheduler.Scheduler`: it owns each worker's busy
time (added by the workers, read here) and gets the scheduler's ranking, pending
table and lock handed to it.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict

import numpy as np

from engine.memory.arena import ArenaStats
from engine.metrics.hub import DeviceTraffic, MetricsHub
from engine.sched.job import Job
from engine.sched.policy import Policy
from engine.sched.table import PendingTable
from engine.synth.synthesizer import ClipSynthesizer

# (slot indices, scores, when they were scored) of every pending job; lock held.
Ranking = Callable[[], tuple[np.ndarray, np.ndarray, float]]


class SchedulerTick:
    def __init__(self, synth: ClipSynthesizer, policy: Policy, metrics: MetricsHub | None, *,
                 lock: threading.Condition, table: PendingTable, rank: Ranking,
                 worker_names: Callable[[], Iterable[str]], closed: Callable[[], bool],
                 clock: Callable[[], float], tick_s: float, frontend_ahead: int) -> None:
        """``table``, ``rank`` and ``closed`` are read under ``lock`` (the scheduler's)."""
        self.synth, self.policy, self.metrics = synth, policy, metrics
        self._lock, self._table, self._rank = lock, table, rank
        self._worker_names, self._closed = worker_names, closed
        self.clock, self.tick_s, self.frontend_ahead = clock, tick_s, frontend_ahead
        self._busy_lock = threading.Lock()
        self._busy: defaultdict[str, float] = defaultdict(float)  # inference seconds per worker
        self._busy_seen: tuple[float, dict[str, float]] = (clock(), {})
        device = synth.device
        if metrics is not None and device is not None:
            metrics.set_synthesis_device(device.name, device.asked, device.reason)

    def add_busy(self, worker: str, seconds: float) -> None:
        """``worker`` spent ``seconds`` on inference (any thread)."""
        with self._busy_lock:
            self._busy[worker] += seconds

    def publish_metrics(self) -> list[Job]:
        """Re-prioritize, publish each role's priority and queue depth, and
        return the most urgent jobs still lacking phonemes (the tick's work)."""
        with self._lock:
            idx, scores, scored_at = self._rank()
            todo: list[Job] = []
            if idx.size:
                self._publish(idx, self.policy.displayed(scores, scored_at))
                for i in np.argsort(-scores)[: self.frontend_ahead]:
                    job = self._table.jobs[int(idx[i])]
                    if job is not None and job.units is None:
                        todo.append(job)
            elif self.metrics is not None:
                for role in self._table.role_ids:
                    self.metrics.set_role_priority(role, 0.0)
                    self.metrics.set_queue_depth(role, 0)
        if self.metrics is not None:
            self._publish_busy()
            self._publish_pool("host", self.synth.cache.store.stats().arena)
            device_pool = self.synth.device_pool
            if device_pool is not None:
                self._publish_pool(f"device:{device_pool.device}", device_pool.stats())
                self.metrics.set_device_traffic(DeviceTraffic(**asdict(device_pool.traffic())))
            report = self.synth.predictor.report()
            self.metrics.set_predictor(report.p90_error, report.misses, report.observations)
        return todo

    def _publish_pool(self, name: str, pool: ArenaStats) -> None:
        assert self.metrics is not None
        self.metrics.set_pool_stats(name, pool.used_bytes, pool.free_bytes, pool.largest_free_bytes,
                                    pool.fragmentation, pool.high_water_bytes)

    def run(self) -> None:
        """The tick thread, until the scheduler closes."""
        while True:
            with self._lock:
                if self._closed():
                    return
            todo = self.publish_metrics()
            for job in todo:  # phonemize outside the lock; a worker may take it meanwhile
                try:
                    units = self.synth.phonemize(job.plan)
                except Exception:  # noqa: BLE001 - the worker will hit and report it
                    continue
                if job.units is None:
                    job.units = units
            with self._lock:
                if self._closed():
                    return
                self._lock.wait(self.tick_s)

    def _publish_busy(self) -> None:
        """Each worker's busy fraction since the previous tick."""
        assert self.metrics is not None
        now = self.clock()
        with self._busy_lock:
            busy = dict(self._busy)
        with self._lock:
            names = list(self._worker_names())  # local sessions and outside workers alike
        then, seen = self._busy_seen
        if now > then:
            for name in names:
                fraction = (busy.get(name, 0.0) - seen.get(name, 0.0)) / (now - then)
                self.metrics.set_device_busy(name, min(1.0, max(0.0, fraction)))
        self._busy_seen = (now, busy)

    def _publish(self, idx: np.ndarray, priorities: np.ndarray) -> None:
        if self.metrics is None:
            return
        roles = self._table.role[idx]
        names = {v: k for k, v in self._table.role_ids.items()}
        top = np.zeros(len(names))
        depth = np.bincount(roles, minlength=len(names))
        np.maximum.at(top, roles, priorities)
        for rid, name in names.items():
            self.metrics.set_role_priority(name, float(top[rid]))
            self.metrics.set_queue_depth(name, int(depth[rid]))
