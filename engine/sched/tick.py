"""The scheduler's tick (thread ``radioplay-sched``): every ``tick_s`` it re-evaluates
priorities, publishes each role's priority and queue depth, each worker's busy share,
the clip pool and the length predictor to the metrics hub, and runs the text frontend
for the most urgent jobs still lacking phonemes, so inference never waits for it.

A part of :class:`engine.sched.scheduler.Scheduler` (which inherits it) kept in its own
module so each file stays readable; it shares the scheduler's lock and state, declared
below.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable

import numpy as np

from engine.metrics.hub import MetricsHub
from engine.sched.job import Job
from engine.sched.policy import Policy
from engine.sched.table import PendingTable
from engine.synth.synthesizer import ClipSynthesizer


class SchedulerTick:
    # The scheduler's state the tick reads (set by Scheduler.__init__).
    synth: ClipSynthesizer
    policy: Policy
    metrics: MetricsHub | None
    clock: Callable[[], float]
    tick_s: float
    frontend_ahead: int
    workers: int
    _cond: threading.Condition
    _closed: bool
    _table: PendingTable
    _scores_at: float
    _busy: defaultdict[str, float]
    _busy_seen: tuple[float, dict[str, float]]
    _worker_index: dict[str, int]

    def reprioritize(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError  # Scheduler's

    def publish_metrics(self) -> list[Job]:
        """Re-prioritize, publish each role's priority and queue depth, and
        return the most urgent jobs still lacking phonemes (the tick's work)."""
        with self._cond:
            idx, scores = self.reprioritize()
            todo: list[Job] = []
            if idx.size:
                self._publish(idx, self.policy.displayed(scores, self._scores_at))
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
            pool = self.synth.cache.store.stats().arena
            self.metrics.set_pool_stats("host", pool.used_bytes, pool.free_bytes, pool.largest_free_bytes,
                                        pool.fragmentation)
            report = self.synth.predictor.report()
            self.metrics.set_predictor(report.p90_error, report.misses, report.observations)
        return todo

    def _tick_loop(self) -> None:
        while True:
            with self._cond:
                if self._closed:
                    return
            todo = self.publish_metrics()
            for job in todo:  # phonemize outside the lock; a worker may take it meanwhile
                try:
                    units = self.synth.phonemize(job.plan)
                except Exception:  # noqa: BLE001 - the worker will hit and report it
                    continue
                if job.units is None:
                    job.units = units
            with self._cond:
                if self._closed:
                    return
                self._cond.wait(self.tick_s)

    def _publish_busy(self) -> None:
        """Each worker's busy fraction since the previous tick."""
        assert self.metrics is not None
        now = self.clock()
        with self._cond:
            busy = dict(self._busy)
        then, seen = self._busy_seen
        if now > then:
            for name in list(self._worker_index):  # local sessions and outside workers alike
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
