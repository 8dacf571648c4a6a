"""The scheduler: which line is synthesized next, and on which worker.

Threads (named, stopped by ``close()`` with sentinels, never killed):

- ``radioplay-sched``: every 50 ms re-evaluates priorities, publishes each
  role's priority and queue depth to the metrics hub, and runs the text
  frontend (phonemization) for the most urgent pending jobs, so inference
  never waits for text processing.
- ``radioplay-infer-N``: one per ONNX session of the voice. Takes the most
  urgent job (re-evaluating when something changed or 50 ms passed),
  preferring roles the weighted hash ring places on it, batches same-voice
  jobs when the batch sizer says so, and runs inference (ORT releases the GIL).
- ``radioplay-post``: trims, levels, pitch-shifts and resamples, shaping
  waiting clips of one voice and pitch together, stores them in the cache
  and resolves the callers' futures.

Callers on any thread submit, cancel and move the playhead; none of these
waits on synthesis (``submit`` only waits while the bounded queue is full,
up to its timeout, then raises QueueFull).
"""

from __future__ import annotations

import math
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

from engine.metrics.hub import MetricsHub
from engine.sched.background import BackgroundGate
from engine.sched.batching import BatchSizer
from engine.sched.cost import CostModel
from engine.sched.hashring import WeightedHashRing
from engine.sched.job import Job
from engine.sched.outside import OutsideWorkers
from engine.sched.policy import PendingArrays, Playhead, Policy
from engine.sched.post import Inferred, PostStage, ShapeKey
from engine.sched.request import LineRequest, Origin, QueueFull
from engine.sched.table import PendingTable
from engine.sched.tick import SchedulerTick
from engine.synth.synthesizer import ClipSynthesizer, RawAudio

TICK_S = 0.05
# A worker prefers roles the hash ring gives it (voice warm on that session)
# unless another job is this much more urgent (factor on priority).
AFFINITY = math.log(1.5)
# The longest a job the listener waits for keeps the other workers idle.
FOCUS_MAX_S = 2.0


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


class Scheduler(SchedulerTick, OutsideWorkers, BackgroundGate):
    def __init__(self, synth: ClipSynthesizer, policy: Policy, *, capacity: int = 2048,
                 metrics: MetricsHub | None = None, batch: BatchSizer | None = None,
                 clock: Callable[[], float] = time.monotonic, tick_s: float = TICK_S,
                 frontend_ahead: int = 8, start: bool = True, local_workers: bool = True) -> None:
        self.synth = synth
        self.policy = policy
        self.capacity = capacity
        self.metrics = metrics
        self.batch = batch or BatchSizer(fixed=1)
        self.clock = clock
        self.tick_s = tick_s
        self.frontend_ahead = frontend_ahead
        # Without local workers, inference runs only on outside workers (engine.sched.outside).
        self.workers = max(1, synth.backend.layout.sessions) if local_workers else 0
        # Seconds of inference per audio second, per backend: a Kokoro line's
        # slack is shortened by the time it takes to make (engine.sched.cost).
        self.cost = CostModel({name: backend.cost for name, backend in synth.backends.items()})
        self.ring = WeightedHashRing()
        for w in range(self.workers):
            self.ring.add(f"infer-{w}")
        self._worker_index = {f"infer-{w}": w for w in range(self.workers)}
        self._role_placement = np.zeros(0, dtype=np.int64)
        self._cond = threading.Condition()
        self._jobs: dict[str, Job] = {}  # pending and running, by key
        self._table = PendingTable(capacity)
        self._playhead = Playhead(since=clock())
        self._scores: np.ndarray | None = None
        self._scores_at = -math.inf
        self._dirty = True
        self._closed = False
        self._counts: defaultdict[str, int] = defaultdict(int)
        self._model_seconds = 0.0
        self._busy: defaultdict[str, float] = defaultdict(float)  # inference seconds per worker
        self._idle: defaultdict[str, int] = defaultdict(int)  # threads of each worker waiting for work
        self._busy_seen: tuple[float, dict[str, float]] = (clock(), {})
        self._shape_groups: defaultdict[ShapeKey, int] = defaultdict(int)  # jobs not yet shaped
        self._focus: dict[int, float] = {}  # id(job) -> start, for overdue jobs in inference
        self._post = PostStage(synth, done=self._complete, failed=self._fail, outstanding=self._outstanding,
                               clock=clock)
        self._threads = [threading.Thread(target=self._tick_loop, name="radioplay-sched", daemon=True),
                         self._post.thread]
        self._threads += [threading.Thread(target=self._infer_loop, args=(f"infer-{w}",),
                                           name=f"radioplay-infer-{w}", daemon=True) for w in range(self.workers)]
        self._started = False
        if start:
            self.start()

    def start(self) -> None:
        """Start the threads (tests and benchmarks may queue work first)."""
        if not self._started:
            self._started = True
            for thread in self._threads:
                thread.start()

    # --- caller side (any thread) -------------------------------------------------

    def submit(self, request: LineRequest, timeout: float | None = 5.0) -> Future[np.ndarray]:
        """Queue a request; identical keys share one synthesis.

        Waits while the queue is full, at most ``timeout`` seconds, then raises
        QueueFull. A cached clip resolves the future at once.
        """
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
                self._shape_groups[job.shape_key] += 1
            else:
                self._counts["deduplicated"] += 1
                job.origin = min(job.origin, request.origin)
                if not job.running:
                    self._table.merge(job, request)
            job.waiters.append(request)
            self._dirty = True
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
        self._shape_groups[job.shape_key] -= 1
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

    def _pending_arrays(self) -> tuple[np.ndarray, PendingArrays]:
        return self._table.pending()

    def reprioritize(self) -> tuple[np.ndarray, np.ndarray]:
        """Scores of every pending job (slot indices, scores). Call with the lock held."""
        now = self.clock()
        idx, arrays = self._pending_arrays()
        scores = self.policy.scores(arrays, now, self._playhead) if idx.size else np.zeros(0)
        self._scores, self._scores_at, self._dirty = scores, now, False
        self._score_slots = idx
        return idx, scores

    def _current_scores(self) -> tuple[np.ndarray, np.ndarray]:
        if self._dirty or self._scores is None or self.clock() - self._scores_at >= self.tick_s:
            return self.reprioritize()
        return self._score_slots, self._scores

    # --- inference workers ----------------------------------------------------------------

    def _role_worker(self) -> np.ndarray:
        """Worker index of each role id, from the hash ring (cached until roles change)."""
        if self._role_placement.size != len(self._table.role_ids):
            names = sorted(self._table.role_ids, key=self._table.role_ids.__getitem__)
            self._role_placement = np.array([self._worker_index[self.ring.node_for(n)] for n in names],
                                            dtype=np.int64)
        return self._role_placement

    def _overdue(self, job: Job, now: float) -> bool:
        """The playhead has already reached this job's line: a listener is waiting."""
        if not self._playhead.playing:
            return False
        position = self._playhead.position(now)
        return any(r.origin == Origin.PLAYBACK and r.deadline.kind == "timeline" and r.deadline.value <= position
                   for r in job.waiters)

    def _take(self, worker: str) -> list[Job] | None:
        with self._cond:
            self._idle[worker] += 1  # waiting for work: its roles' lines are left to it (_defer)
            try:
                while True:
                    while not self._closed and not self._table.any():
                        self._cond.wait()
                    if self._closed:
                        return None
                    batch = self._pick(worker)
                    now = self.clock()
                    # Focus: until a line the listener is already waiting for is
                    # synthesized and shaped, other workers start nothing less
                    # urgent, so it has the cores and the post stage to itself
                    # (measured on 2 cores: inference beside another ~1.5x slower,
                    # shaping beside two inferences 2-4x slower).
                    focused = any(now - started < FOCUS_MAX_S for started in self._focus.values())
                    if (focused and not self._overdue(batch[0], now)) or self._defer(worker, batch[0]) or \
                            self._keep_one_free(batch[0]):
                        self._cond.wait(TICK_S)
                        continue
                    break
            finally:
                self._idle[worker] -= 1
            for job in batch:
                job.running, job.started = True, now
                self._release_slot(job)
                if self._overdue(job, now):
                    self._focus[id(job)] = now
            self._dirty = True
            return batch

    def _pick(self, worker: str) -> list[Job]:
        """The most urgent job for ``worker`` (and its batch mates); lock held."""
        idx, scores = self._current_scores()
        live = self._table.alive[idx]
        scores = np.where(live, scores, -np.inf)
        ranked = scores
        if len(self.ring) > 1:
            mine = self._role_worker()[self._table.role[idx]] == self._worker_index[worker]
            ranked = scores + AFFINITY * mine
        first = int(np.argmax(ranked))
        lead = self._table.jobs[int(idx[first])]
        assert lead is not None
        top = self._table.jobs[int(idx[int(np.argmax(scores))])]
        if top is not None and top is not lead and self._overdue(top, self.clock()):
            lead = top  # a listener waits for it: no worker affinity is worth that
        batch = [lead]
        size = self.batch.size if self.synth.cost(lead.plan).batches else 1
        if size > 1:
            for i in np.argsort(-scores):
                if len(batch) >= size or not np.isfinite(scores[i]):
                    break
                job = self._table.jobs[int(idx[i])]
                if job is not None and job is not lead and job.batch_key == lead.batch_key:
                    batch.append(job)
        return batch

    def _infer_loop(self, worker: str) -> None:
        while True:
            batch = self._take(worker)
            if batch is None:
                return
            started = self.clock()
            try:
                model = self.synth.voice(batch[0].plan.voice)
                loaded = self.clock()  # a voice's first load is not what its lines cost
                for job in batch:
                    if job.units is None:
                        job.units = self.synth.phonemize(job.plan)
                    job.reservation = self.synth.reserve(job.plan, job.units)  # arena room first
                flat = [u for job in batch for u in job.units or []]
                inferred = model.infer_timed(flat, batch[0].plan.settings, batch=len(batch) > 1)
            except Exception as exc:  # a broken voice fails its requests, not the worker
                self._fail(batch, exc)
                continue
            finished = self.clock()
            with self._cond:
                self._busy[worker] += finished - started
            audio = [i.audio for i in inferred]
            samples = sum(a.shape[0] for a in audio)
            if self.synth.cost(batch[0].plan).batches:  # a Kokoro line says nothing of Piper's batch sizes
                self.batch.observe(len(batch), samples, finished - started)
            self.cost.observe(batch[0].plan.voice.backend, finished - loaded, samples / model.sample_rate)
            if self.metrics is not None:
                self.metrics.record_batch(worker, len(batch), finished - started)
            pos = 0
            for job in batch:
                units = job.units or []
                raw = RawAudio(job.plan, audio[pos:pos + len(units)], [u.pause_after for u in units],
                               model.sample_rate, sum(len(u.ids) for u in units), job.reservation,
                               [i.words for i in inferred[pos:pos + len(units)]])
                pos += len(units)
                self._post.put(Inferred(job, raw, started, finished))

    def _fail(self, batch: list[Job], exc: Exception) -> None:
        for job in batch:
            if job.reservation is not None:
                self.synth.cache.release(job.plan.key)
        with self._cond:
            waiters = []
            for job in batch:
                if self._jobs.pop(job.plan.key, None) is not None:
                    self._shape_groups[job.shape_key] -= 1
                waiters += job.waiters
            self._counts["failed"] += len(batch)
        for request in waiters:
            if not request.future.done():
                request.future.set_exception(exc)
        self._unfocus(batch)

    # --- post-processing (PostStage callbacks, on radioplay-post) -------------------------

    def _outstanding(self, key: ShapeKey) -> int:
        with self._cond:
            return self._shape_groups[key]

    def _complete(self, item: Inferred, clip: np.ndarray, done: float) -> None:
        self._resolve(item.job, clip, item.raw.seconds, item.finished, done)

    def _resolve(self, job: Job, clip: np.ndarray, model_seconds: float, finished: float, done: float) -> None:
        """A job's clip is made (shaped and cached): every waiter gets it."""
        with self._cond:
            if self._jobs.pop(job.plan.key, None) is not None:
                self._shape_groups[job.shape_key] -= 1
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
        """A focused job is finished (shaped too: shaping beside two inferences
        took 2-4x longer): the other workers may start again."""
        with self._cond:
            if any(self._focus.pop(id(job), None) is not None for job in jobs):
                self._cond.notify_all()

    def _record(self, request: LineRequest, started: float, finished: float, done: float,
                clip: np.ndarray, cached: bool = False) -> None:
        if self.metrics is None:
            return
        queue_wait = max(0.0, started - request.arrival)
        synth_s = 0.0 if cached else max(0.0, done - started)
        self.metrics.record_request(request.role, request.origin.label, self.policy.name, queue_wait, synth_s,
                                    max(0.0, done - request.arrival), clip.shape[0] / self.synth.sample_rate)


__all__ = ["Scheduler", "SchedulerStats", "QueueFull"]
