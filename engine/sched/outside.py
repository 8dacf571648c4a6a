"""The scheduler's workers on one weighted hash ring, and workers outside its
threads: synthesis in other processes or on other machines (engine/farm's Ray
actors), behind the same queue, priorities and ring placement as the local
inference sessions.

An outside worker joins the ring with a weight (``add_worker``), takes its
next job like a local session does (``take``: the most urgent line, preferring
the roles the ring gives it), does the whole synthesis itself (phonemes,
inference, shaping) and hands the finished clip back (``deliver``), which
stores it in the content-addressed cache and answers every caller waiting on
it. A worker that is lost gives its unfinished jobs back (``requeue``) and
leaves the ring (``remove_worker``): only its roles move, onto the others.

A part of :class:`engine.sched.scheduler.Scheduler`: it owns the ring, each
worker's index and how many of its threads wait for work, and reaches the
scheduler's queue through :class:`WorkerQueue`.
"""

from __future__ import annotations

import contextlib
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Protocol

import numpy as np

from engine.metrics.hub import MetricsHub
from engine.sched.cost import CostModel
from engine.sched.hashring import WeightedHashRing
from engine.sched.job import Job
from engine.sched.request import QueueFull
from engine.synth.synthesizer import ClipSynthesizer
from engine.synth.wordtimes import ClipWords


class NoWorkers(RuntimeError):
    """Every worker is gone: the lines still waiting cannot be voiced."""


class WorkerQueue(Protocol):
    """The scheduler's queue as its workers use it."""

    def next_jobs(self, worker: str) -> list[Job] | None:
        """The next jobs for ``worker`` (blocks; None once closed)."""

    def resolve(self, job: Job, clip: np.ndarray, model_seconds: float, finished: float, done: float) -> None:
        """``job``'s clip is made: every caller gets it."""

    def fail_jobs(self, jobs: list[Job], exc: Exception) -> None:
        """Every caller of ``jobs`` gets ``exc``."""

    def wait_again(self, jobs: list[Job], workers_left: bool) -> list[Job]:
        """Running jobs back in the queue; returns those that cannot wait (lock held)."""

    def take_orphans(self) -> list[Job]:
        """Every job not running, taken off the queue (lock held)."""

    def placement_changed(self) -> None:
        """The ring changed: rank again (lock held)."""


class OutsideWorkers:
    def __init__(self, queue: WorkerQueue, lock: threading.Condition, synth: ClipSynthesizer, cost: CostModel,
                 metrics: MetricsHub | None, clock: Callable[[], float], add_busy: Callable[[str, float], None],
                 local: int) -> None:
        """``local``: the scheduler's own inference sessions, ``infer-0`` ... on the
        ring from the start; ``add_busy``: where a worker's inference time is counted."""
        self._queue, self._lock = queue, lock
        self.synth, self.cost, self.metrics, self.clock = synth, cost, metrics, clock
        self._add_busy = add_busy
        self.ring = WeightedHashRing()
        for w in range(local):
            self.ring.add(f"infer-{w}")
        self._index = {f"infer-{w}": w for w in range(local)}
        self._role_placement = np.zeros(0, dtype=np.int64)
        self._idle: defaultdict[str, int] = defaultdict(int)  # threads of each worker waiting for work

    # --- the ring (lock held) ----------------------------------------------------------

    def names(self) -> list[str]:
        """Every worker that ever joined (local sessions and outside workers; lock held)."""
        return list(self._index)

    def index_of(self, worker: str) -> int:
        return self._index[worker]

    def role_workers(self, role_ids: dict[str, int]) -> np.ndarray:
        """Worker index of each role id, from the hash ring (cached until roles change; lock held)."""
        if self._role_placement.size != len(role_ids):
            names = sorted(role_ids, key=role_ids.__getitem__)
            self._role_placement = np.array([self._index[self.ring.node_for(n)] for n in names], dtype=np.int64)
        return self._role_placement

    def defer(self, worker: str, job: Job) -> bool:
        """Leave a line of another worker's role to that worker while it waits for
        work too: the role's voice is warm there. An idle worker still takes the
        lines of a busy one (lock held)."""
        if len(self.ring) < 2:
            return False
        owner = self.ring.node_for(job.role)
        return owner != worker and self._idle[owner] > 0

    @contextlib.contextmanager
    def waiting(self, worker: str) -> Iterator[None]:
        """``worker`` waits for work meanwhile: its roles' lines are left to it (defer; lock held)."""
        self._idle[worker] += 1
        try:
            yield
        finally:
            self._idle[worker] -= 1

    # --- joining and leaving ------------------------------------------------------------

    def add_worker(self, name: str, weight: float = 1.0) -> None:
        """An outside worker joins the ring (weight: its share of the roles)."""
        with self._lock:
            self.ring.add(name, weight)
            self._index.setdefault(name, len(self._index))  # never reused: stats stay apart
            self._placement_changed()

    def remove_worker(self, name: str) -> None:
        """A worker leaves the ring; with none left, every waiting line fails (NoWorkers)."""
        with self._lock:
            if name in self.ring:
                self.ring.remove(name)
            self._placement_changed()
            orphans = [] if len(self.ring) else self._queue.take_orphans()
        if orphans:
            self._queue.fail_jobs(orphans, NoWorkers("no synthesis workers are left to voice the remaining lines"))

    def _placement_changed(self) -> None:
        self._role_placement = np.zeros(0, dtype=np.int64)  # recomputed from the ring on the next pick
        self._queue.placement_changed()

    def placement(self, keys: list[str]) -> dict[str, str]:
        """``{role: worker}`` the ring gives now."""
        with self._lock:
            return self.ring.assignment(keys) if len(self.ring) else {}

    # --- an outside worker's jobs --------------------------------------------------------

    def take(self, worker: str) -> list[Job] | None:
        """The next jobs for ``worker`` (blocks until there are some; None once closed)."""
        return self._queue.next_jobs(worker)

    def fail(self, jobs: list[Job], exc: Exception) -> None:
        """A worker could not make these jobs (their own error): every caller gets ``exc``."""
        self._queue.fail_jobs(jobs, exc)

    def deliver(self, worker: str, job: Job, audio: np.ndarray, model_seconds: float, infer_s: float,
                words: ClipWords | None = None) -> None:
        """``worker`` made ``job``'s clip (shaped, at the project rate) in ``infer_s`` seconds of its
        time; ``words``: where its words lie (engine.synth.wordtimes), when the worker kept them."""
        clip = self.synth.cache.put(job.plan.key, audio, words)
        done = self.clock()
        self._add_busy(worker, infer_s)
        self.cost.observe(job.plan.voice.backend, infer_s, model_seconds)
        if self.metrics is not None:
            self.metrics.record_batch(worker, 1, infer_s)
        self._queue.resolve(job, clip, model_seconds, done, done)

    def requeue(self, jobs: list[Job]) -> None:
        """A lost worker's unfinished jobs wait again for the others (fail when none is left)."""
        with self._lock:
            workers_left = bool(len(self.ring))
            lost = self._queue.wait_again(jobs, workers_left)
        if lost:
            error: Exception = NoWorkers("no synthesis workers are left to voice the remaining lines") \
                if not workers_left else QueueFull("synthesis queue full while re-placing a lost worker's lines")
            self._queue.fail_jobs(lost, error)
