"""The scheduler: which line is synthesized next, and on which worker.

Threads (named, stopped by ``close()`` with sentinels, never killed):

- ``radioplay-sched``: every 50 ms re-evaluates priorities, publishes each
  role's priority and queue depth to the metrics hub, and runs the text
  frontend (phonemization) for the most urgent pending jobs, so inference
  never waits for text processing.
- ``radioplay-infer-N``: one per ONNX session of the voice. Takes the most
  urgent job (re-evaluating when something changed or 50 ms passed),
  preferring roles the weighted hash ring places on it, batches same-voice
  jobs when the batch sizer says so, and runs inference (ORT releases the GIL);
  a pre-render run is stopped when more urgent lines wait (engine/sched/urgency.py);
  a line a listener waits for is voiced live, on every core (streaming.py, live_takes.py).
- ``radioplay-post``: trims, levels, shapes and resamples each clip as it
  arrives, stores it in the cache and resolves the callers' futures.

Callers on any thread submit, cancel and move the playhead; none of these
waits on synthesis (``submit`` only waits while the bounded queue is full,
up to its timeout, then raises QueueFull).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

from engine.metrics.hub import MetricsHub
from engine.sched.background import BackgroundGate
from engine.sched.batching import BatchSizer
from engine.sched.cost import CostModel
from engine.sched.hashring import WeightedHashRing
from engine.sched.inference import LocalInference
from engine.sched.job import Job
from engine.sched.live_takes import LiveTakes
from engine.sched.outside import OutsideWorkers
from engine.sched.policy import Playhead, Policy
from engine.sched.post import PostStage
from engine.sched.request import LineRequest, Origin, QueueFull
from engine.sched.streaming import UnitRunner
from engine.sched.table import PendingTable
from engine.sched.tick import SchedulerTick
from engine.sched.urgency import Focus, Preemption
from engine.synth.synthesizer import ClipSynthesizer

TICK_S = 0.05
# A worker prefers roles the hash ring gives it (voice warm on that session)
# unless another job is this much more urgent (factor on priority).
AFFINITY = math.log(1.5)


@dataclass(frozen=True)
class SchedulerStats:
    submitted: int
    deduplicated: int
    cancelled: int
    completed: int
    failed: int
    model_seconds: float  # untrimmed model output produced, for throughput
    pending: int
    running: int


class Scheduler:
    """The queue (pending table, jobs, ranking, the inference threads) with its
    parts: the tick (``tick``), the workers on the ring and outside ones
    (``outside``), the gate for background work (``background``), live takes (``live``)."""

    def __init__(self, synth: ClipSynthesizer, policy: Policy, *, capacity: int = 2048,
                 metrics: MetricsHub | None = None, batch: BatchSizer | None = None,
                 clock: Callable[[], float] = time.monotonic, tick_s: float = TICK_S,
                 frontend_ahead: int = 8, start: bool = True, local_workers: bool = True) -> None:
        self.synth = synth
        self.policy = policy
        self.capacity = capacity
        self.metrics = metrics
        self.batch = batch or BatchSizer.for_device(synth.device)
        self.clock = clock
        self.tick_s = tick_s
        self.frontend_ahead = frontend_ahead
        # Without local workers, inference runs only on outside workers (engine.sched.outside).
        local = max(1, synth.layout.sessions) if local_workers else 0
        # Seconds of inference per audio second, per backend: a Kokoro line's
        # slack is shortened by the time it takes to make (engine.sched.cost).
        self.cost = CostModel({name: backend.cost for name, backend in synth.backends.items()})
        self._cond = threading.Condition()
        self._jobs: dict[str, Job] = {}  # pending and running, by key
        self._table = PendingTable(capacity)
        self._playhead = Playhead(since=clock())
        self._scores: np.ndarray | None = None
        self._scores_at = -math.inf
        self._dirty = True
        self._closed = False
        self._holds = 0  # changes in progress (one_change): no worker starts a job meanwhile
        self._counts: defaultdict[str, int] = defaultdict(int)
        self._model_seconds = 0.0
        self._focus, self.preemption = Focus(), Preemption(self._jobs)  # engine/sched/urgency.py
        self.live = LiveTakes(self, synth, lock=self._cond, jobs=self._jobs, focus=self._focus, clock=clock,
                              preemption=self.preemption, overdue=lambda job: self._overdue(job, self.clock()))
        self._post = PostStage(synth, failed=self.fail_jobs, live=self.live.part, clock=clock,
                               done=lambda item, clip, at: self.resolve(item.job, clip, item.raw.seconds, item.finished, at))
        self.outside = OutsideWorkers(self, self._cond, synth, self.cost, metrics, clock, local=local,
                                      add_busy=lambda worker, seconds: self.tick.add_busy(worker, seconds))
        self.tick = SchedulerTick(synth, policy, metrics, lock=self._cond, table=self._table, rank=self._rank,
                                  worker_names=self.outside.names, closed=lambda: self._closed, clock=clock,
                                  tick_s=tick_s, frontend_ahead=frontend_ahead)
        self.background = BackgroundGate(self._cond, self._jobs, clock, closed=lambda: self._closed)
        # The parts' entry points, where their callers (the farm, the speech check, tests) reach them.
        self.publish_metrics = self.tick.publish_metrics  # what the tick does every tick_s
        self.quiet_below, self.wait_quiet_below = self.background.quiet_below, self.background.wait_quiet_below
        self.foreground = self.background.foreground
        self.add_worker, self.remove_worker = self.outside.add_worker, self.outside.remove_worker
        self.placement, self.take, self.fail = self.outside.placement, self.outside.take, self.outside.fail
        self.deliver, self.requeue = self.outside.deliver, self.outside.requeue
        self._threads = [threading.Thread(target=self.tick.run, name="radioplay-sched", daemon=True),
                         self._post.thread]
        units = UnitRunner(synth, self.cost, self._post, self.live, clock)
        self.calibrate = units.calibrate  # what an engine costs here, before the first play (the Session's)
        inference = LocalInference(self, synth, self.batch, self.cost, metrics, self._post, self.tick.add_busy, clock,
                                   lock=self._cond, preemption=self.preemption, units=units)
        self._threads += [threading.Thread(target=inference.run, args=(f"infer-{w}",),
                                           name=f"radioplay-infer-{w}", daemon=True) for w in range(local)]
        self._started = False
        if start:
            self.start()

    def start(self) -> None:
        """Start the threads (tests and benchmarks may queue work first); never once
        closed (threads started after close() would wait forever)."""
        with self._cond:
            starting = not self._started and not self._closed
            self._started = self._started or starting
        for thread in self._threads if starting else ():
            thread.start()

    @property
    def workers(self) -> int:
        """Workers on the ring now: the local sessions and outside workers."""
        return len(self.outside.ring)

    @property
    def ring(self) -> WeightedHashRing:
        return self.outside.ring

    # --- caller side (any thread) -------------------------------------------------

    def submit(self, request: LineRequest, timeout: float | None = 5.0) -> Future[np.ndarray]:
        """Queue a request; identical keys share one synthesis. Waits while the queue is
        full, at most ``timeout`` seconds, then raises QueueFull. A cached clip resolves the
        future at once."""
        request.arrival = self.clock()
        with self._cond:
            self._counts["submitted"] += 1
        cached, pinned = self.synth.cache.acquire(request.key)
        if cached is not None:
            # Pinned while the future's callbacks run (they copy or pin it for
            # themselves): no eviction can reuse the arena block under them.
            try:
                request.future.set_result(cached)
            finally:
                if pinned:
                    self.synth.cache.unpin(request.key)
            self._record(request, request.arrival, request.arrival, request.arrival, cached, cached=True)
            return request.future
        with self._cond:
            if self._closed:
                raise RuntimeError("scheduler is closed")
            job = self._jobs.get(request.key)
            if job is None:
                limit = None if timeout is None else request.arrival + timeout
                while not self._table.has_room():
                    remaining = None if limit is None else limit - self.clock()
                    if remaining is not None and remaining <= 0:
                        raise QueueFull(f"synthesis queue full ({self.capacity} lines pending) for {timeout:g} s; "
                                        f"try again shortly")
                    self._cond.wait(remaining)
                    if self._closed:
                        raise RuntimeError("scheduler is closed")
                    job = self._jobs.get(request.key)
                    if job is not None:
                        break
            if job is None:
                job = self._table.add(request, self.cost.work(request.plan))
                self._jobs[request.key] = job
            else:
                self._counts["deduplicated"] += 1
                job.origin = min(job.origin, request.origin)
                if not job.running:
                    self._table.merge(job, request)
            job.waiters.append(request)
            self._dirty = True
            if job.origin < Origin.PRERENDER and not self._holds:
                self.preemption.make_room()
            self._cond.notify_all()
        request.future.add_done_callback(lambda f, r=request: self._on_done(r, f))  # type: ignore[misc]
        return request.future

    def _on_done(self, request: LineRequest, future: Future[np.ndarray]) -> None:
        if not future.cancelled():
            return
        with self._cond:
            job = self._jobs.get(request.key)
            if job is None or request not in job.waiters:
                return
            job.waiters.remove(request)
            self._counts["cancelled"] += 1
            if not job.waiters and not job.running:
                self._drop(job)  # stale: never reaches the device

    def _drop(self, job: Job) -> None:
        del self._jobs[job.plan.key]
        self._release_slot(job)
        self._dirty = True

    def _release_slot(self, job: Job) -> None:
        self._table.remove(job)
        self._cond.notify_all()

    def cancel(self, predicate: Callable[[LineRequest], bool]) -> int:
        """Cancel every pending request matching ``predicate``; returns how many."""
        with self._cond:
            doomed = [r for job in self._jobs.values() if not job.running for r in job.waiters if predicate(r)]
        return sum(1 for r in doomed if r.future.cancel())

    def set_role_weight(self, role: str, weight: float) -> None:
        """The role's priority weight changed: pending requests follow at once."""
        with self._cond:
            if self._table.set_role_weight(role, weight):
                self._dirty = True
                self._cond.notify_all()

    def set_playhead(self, position_s: float, playing: bool, rate: float = 1.0,
                     cancel_behind: bool = True) -> int:
        """Move the playhead; playback prefetches now behind it are cancelled."""
        with self._cond:
            self._playhead = Playhead(position_s, playing, self.clock(), rate)
            self._dirty = True
            self._cond.notify_all()
        if not cancel_behind:
            return 0
        return self.cancel(lambda r: r.origin == Origin.PLAYBACK and r.deadline.kind == "timeline"
                           and r.deadline.value < position_s)

    @contextlib.contextmanager
    def one_change(self) -> Iterator[None]:
        """What is submitted, cancelled and moved inside is one change: no worker starts a job
        until it ends (a Play's move freed a worker for a pre-render line before the played
        line was asked). Only around ``submit(timeout=0)``, which never waits for a worker."""
        with self._cond:
            self._holds += 1
        try:
            yield
        finally:
            with self._cond:
                self._holds, self._dirty = self._holds - 1, True
                self.preemption.make_room()
                self._cond.notify_all()

    def job_states(self) -> dict[str, bool]:
        """Cache key -> running (True) or waiting (False), for every job in the scheduler."""
        with self._cond:
            return {key: job.running for key, job in self._jobs.items()}

    def stats(self) -> SchedulerStats:
        with self._cond:
            running = sum(1 for j in self._jobs.values() if j.running)
            return SchedulerStats(self._counts["submitted"], self._counts["deduplicated"],
                                  self._counts["cancelled"], self._counts["completed"], self._counts["failed"],
                                  self._model_seconds, len(self._jobs) - running, running)

    def close(self, timeout: float = 10.0) -> None:
        """Stop accepting work, cancel what is pending, let running work finish."""
        with self._cond:
            self._closed = True
            pending = [r for j in self._jobs.values() if not j.running for r in j.waiters]
            self._cond.notify_all()
        for request in pending:
            request.future.cancel()
        if not self._started:
            return
        for thread in self._threads:
            if thread.name.startswith("radioplay-infer") or thread.name == "radioplay-sched":
                thread.join(timeout)
        self._post.close()  # after the workers: everything they handed over gets shaped
        for thread in self._threads:
            thread.join(timeout)

    def __enter__(self) -> Scheduler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- priorities -----------------------------------------------------------------

    def _rank(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Scores of every pending job (slot indices, scores, when they were taken); lock held."""
        now = self.clock()
        idx, arrays = self._table.pending()
        scores = self.policy.scores(arrays, now, self._playhead) if idx.size else np.zeros(0)
        self._scores, self._scores_at, self._dirty = scores, now, False
        self._score_slots = idx
        return idx, scores, now

    def _current_scores(self) -> tuple[np.ndarray, np.ndarray]:
        if self._dirty or self._scores is None or self.clock() - self._scores_at >= self.tick_s:
            return self._rank()[:2]
        return self._score_slots, self._scores

    # --- inference workers ----------------------------------------------------------------

    def _overdue(self, job: Job, now: float) -> bool:
        """The playhead has already reached this job's line: a listener is waiting."""
        return any(r.origin == Origin.PLAYBACK and self._playhead.reached(r.deadline, now) for r in job.waiters)

    def next_jobs(self, worker: str) -> list[Job] | None:
        with self._cond:
            self.preemption.idle(worker)
            with self.outside.waiting(worker):  # its roles' lines are left to it meanwhile (defer)
                while True:
                    while not self._closed and (self._holds or not self._table.any()):
                        self._cond.wait()
                    if self._closed:
                        return None
                    batch = self._pick(worker)
                    now = self.clock()
                    if (self._focus.holding(now) and not self._overdue(batch[0], now)) or self.outside.defer(worker, batch[0]) or \
                            self.background.keeps_one_free(batch[0], self._playhead, self.workers):
                        self._cond.wait(TICK_S)
                        continue
                    break
            for job in batch:
                job.running, job.started = True, now
                self._release_slot(job)
                if self._overdue(job, now):
                    self._focus.start(job, now, self.cost.work(job.plan))
            self.preemption.started(worker, batch, now)
            self._dirty = True
            return batch

    def _pick(self, worker: str) -> list[Job]:
        """The most urgent job for ``worker`` (and its batch mates); lock held."""
        idx, scores = self._current_scores()
        live = self._table.alive[idx]
        scores = np.where(live, scores, -np.inf)
        ranked = scores
        if len(self.outside.ring) > 1:
            mine = self.outside.role_workers(self._table.role_ids)[self._table.role[idx]] == \
                self.outside.index_of(worker)
            ranked = scores + AFFINITY * mine
        first = int(np.argmax(ranked))
        lead = self._table.jobs[int(idx[first])]
        assert lead is not None
        top = self._table.jobs[int(idx[int(np.argmax(scores))])]
        if top is not None and top is not lead and self._overdue(top, self.clock()):
            lead = top  # a listener waits for it: no worker affinity is worth that
        batch = [lead]
        size = self.batch.size if self.synth.supports(lead.plan).batching else 1
        if size > 1:
            for i in np.argsort(-scores):
                if len(batch) >= size or not np.isfinite(scores[i]):
                    break
                job = self._table.jobs[int(idx[i])]
                if job is not None and job is not lead and job.batch_key == lead.batch_key:
                    batch.append(job)
        return batch

    def fail_jobs(self, batch: list[Job], exc: Exception) -> None:
        for job in batch:
            self.synth.release(job.plan.key)  # its room in the host pool and the device pool
        with self._cond:
            waiters = []
            for job in batch:
                self._jobs.pop(job.plan.key, None)
                waiters += job.waiters
            self._counts["failed"] += len(batch)
        for request in waiters:
            if not request.future.done():
                request.future.set_exception(exc)
        self._unfocus(batch)

    # --- the queue as the workers see it (engine.sched.outside.WorkerQueue) ---------------

    def wait_again(self, jobs: list[Job], workers_left: bool) -> list[Job]:
        """Running jobs of a lost worker wait again; returns those that cannot (lock held)."""
        lost: list[Job] = []
        for job in jobs:
            if self._jobs.get(job.plan.key) is not job:
                continue
            if not job.waiters:  # every caller gave up while it ran
                del self._jobs[job.plan.key]
            elif not workers_left or not self._table.has_room():
                lost.append(job)
            else:
                job.running = False
                self._table.restore(job, job.waiters, self.cost.work(job.plan))
        self._dirty = True
        self._cond.notify_all()
        return lost

    def take_orphans(self) -> list[Job]:
        orphans = [j for j in self._jobs.values() if not j.running]
        for job in orphans:
            self._table.remove(job)
        return orphans

    def placement_changed(self) -> None:
        self._dirty = True
        self._cond.notify_all()

    # --- post-processing (PostStage callbacks, on radioplay-post) -------------------------

    def resolve(self, job: Job, clip: np.ndarray, model_seconds: float, finished: float, done: float) -> None:
        """A job's clip is made (shaped and cached): every waiter gets it."""
        with self._cond:
            self._jobs.pop(job.plan.key, None)
            waiters = list(job.waiters)
            self._counts["completed"] += 1
            self._model_seconds += model_seconds
        self.synth.count_synthesis()
        for request in waiters:
            if request.future.set_running_or_notify_cancel():
                request.future.set_result(clip)
            self._record(request, job.started, finished, done, clip)
        self._unfocus([job])

    def _unfocus(self, jobs: list[Job]) -> None:
        with self._cond:
            if self._focus.end(jobs):
                self._cond.notify_all()

    def _record(self, request: LineRequest, started: float, finished: float, done: float,
                clip: np.ndarray, cached: bool = False) -> None:
        if self.metrics is not None:  # queue wait, synthesis, total, audio
            self.metrics.record_request(request.role, request.origin.label, self.policy.name,
                                        max(0.0, started - request.arrival), 0.0 if cached else max(0.0, done - started),
                                        max(0.0, done - request.arrival), clip.shape[0] / self.synth.sample_rate)


__all__ = ["Scheduler", "SchedulerStats", "QueueFull"]
