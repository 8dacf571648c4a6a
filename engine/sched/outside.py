"""Workers outside the scheduler's threads: synthesis in other processes or on
other machines (engine/farm's Ray actors), behind the same queue, priorities
and hash-ring placement as the local inference sessions.

An outside worker joins the ring with a weight (``add_worker``), takes its
next job like a local session does (``take``: the most urgent line, preferring
the roles the ring gives it), does the whole synthesis itself (phonemes,
inference, shaping) and hands the finished clip back (``deliver``), which
stores it in the content-addressed cache and answers every caller waiting on
it. A worker that is lost gives its unfinished jobs back (``requeue``) and
leaves the ring (``remove_worker``): only its roles move, onto the others.

A part of :class:`engine.sched.scheduler.Scheduler` (which inherits it), in
its own module so each file stays readable; it shares the scheduler's lock
and state, declared below.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable

import numpy as np

from engine.metrics.hub import MetricsHub
from engine.sched.cost import CostModel
from engine.sched.hashring import WeightedHashRing
from engine.sched.job import Job
from engine.sched.request import QueueFull
from engine.sched.table import PendingTable
from engine.synth.synthesizer import ClipSynthesizer
from engine.synth.wordtimes import ClipWords


class NoWorkers(RuntimeError):
    """Every worker is gone: the lines still waiting cannot be voiced."""


class OutsideWorkers:
    # The scheduler's state these methods share (set by Scheduler.__init__).
    synth: ClipSynthesizer
    metrics: MetricsHub | None
    cost: CostModel
    clock: Callable[[], float]
    ring: WeightedHashRing
    workers: int
    _cond: threading.Condition
    _jobs: dict[str, Job]
    _table: PendingTable
    _worker_index: dict[str, int]
    _role_placement: np.ndarray
    _busy: defaultdict[str, float]
    _shape_groups: defaultdict[tuple[str, float], int]
    _dirty: bool
    _idle: defaultdict[str, int]

    def _take(self, worker: str) -> list[Job] | None:
        raise NotImplementedError  # Scheduler's

    def _resolve(self, job: Job, clip: np.ndarray, model_seconds: float, finished: float, done: float) -> None:
        raise NotImplementedError  # Scheduler's

    def _fail(self, batch: list[Job], exc: Exception) -> None:
        raise NotImplementedError  # Scheduler's

    def _defer(self, worker: str, job: Job) -> bool:
        """Leave a line of another worker's role to that worker while it waits for
        work too: the role's voice is warm there. An idle worker still takes the
        lines of a busy one (lock held)."""
        if len(self.ring) < 2:
            return False
        owner = self.ring.node_for(job.role)
        return owner != worker and self._idle[owner] > 0

    def add_worker(self, name: str, weight: float = 1.0) -> None:
        """An outside worker joins the ring (weight: its share of the roles)."""
        with self._cond:
            self.ring.add(name, weight)
            self._worker_index.setdefault(name, len(self._worker_index))  # never reused: stats stay apart
            self._placement_changed()

    def remove_worker(self, name: str) -> None:
        """A worker leaves the ring; with none left, every waiting line fails (NoWorkers)."""
        with self._cond:
            if name in self.ring:
                self.ring.remove(name)
            self._placement_changed()
            orphans = [] if len(self.ring) else [j for j in self._jobs.values() if not j.running]
            for job in orphans:
                self._table.remove(job)
        if orphans:
            self._fail(orphans, NoWorkers("no synthesis workers are left to voice the remaining lines"))

    def _placement_changed(self) -> None:
        self.workers = len(self.ring)
        self._role_placement = np.zeros(0, dtype=np.int64)  # recomputed from the ring on the next pick
        self._dirty = True
        self._cond.notify_all()

    def placement(self, keys: list[str]) -> dict[str, str]:
        """``{role: worker}`` the ring gives now."""
        with self._cond:
            return self.ring.assignment(keys) if len(self.ring) else {}

    def fail(self, jobs: list[Job], exc: Exception) -> None:
        """A worker could not make these jobs (their own error): every caller gets ``exc``."""
        self._fail(jobs, exc)

    def take(self, worker: str) -> list[Job] | None:
        """The next jobs for ``worker`` (blocks until there are some; None once closed)."""
        return self._take(worker)

    def deliver(self, worker: str, job: Job, audio: np.ndarray, model_seconds: float, infer_s: float,
                words: ClipWords | None = None) -> None:
        """``worker`` made ``job``'s clip (shaped, at the project rate) in ``infer_s`` seconds of its
        time; ``words``: where its words lie (engine.synth.wordtimes), when the worker kept them."""
        clip = self.synth.cache.put(job.plan.key, audio, words)
        done = self.clock()
        with self._cond:
            self._busy[worker] += infer_s
        self.cost.observe(job.plan.voice.backend, infer_s, model_seconds)
        if self.metrics is not None:
            self.metrics.record_batch(worker, 1, infer_s)
        self._resolve(job, clip, model_seconds, done, done)

    def requeue(self, jobs: list[Job]) -> None:
        """A lost worker's unfinished jobs wait again for the others (fail when none is left)."""
        lost: list[Job] = []
        with self._cond:
            for job in jobs:
                if self._jobs.get(job.plan.key) is not job:
                    continue
                if not job.waiters:  # every caller gave up while it ran
                    del self._jobs[job.plan.key]
                    self._shape_groups[job.shape_key] -= 1
                elif not len(self.ring) or not self._table.has_room():
                    lost.append(job)
                else:
                    job.running = False
                    self._table.restore(job, job.waiters, self.cost.work(job.plan))
            self._dirty = True
            self._cond.notify_all()
        if lost:
            error: Exception = NoWorkers("no synthesis workers are left to voice the remaining lines") \
                if not len(self.ring) else QueueFull("synthesis queue full while re-placing a lost worker's lines")
            self._fail(lost, error)
