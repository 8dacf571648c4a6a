"""The scheduler's own inference workers (threads ``radioplay-infer-N``, one
per ONNX session of the voice): each takes the most urgent jobs the queue
gives it (batched when the batch sizer says so), runs inference (ONNX
Runtime releases the GIL) and hands the raw audio to the post stage. A broken
voice fails its requests, not the worker; a pre-render batch stopped for more
urgent lines (engine/sched/urgency.py) waits again.

A part of :class:`engine.sched.scheduler.Scheduler`, reaching its queue
through :class:`engine.sched.outside.WorkerQueue` as an outside worker does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from engine.metrics.hub import MetricsHub
from engine.sched.batching import BatchSizer
from engine.sched.cost import CostModel
from engine.sched.job import Job
from engine.sched.outside import WorkerQueue
from engine.sched.post import Inferred, PostStage
from engine.sched.request import QueueFull
from engine.sched.streaming import UnitRunner
from engine.sched.urgency import Preemption
from engine.synth.backends.base import Inference
from engine.synth.backends.onnx_sessions import RunStopper
from engine.synth.synthesizer import ClipSynthesizer, RawAudio


class LocalInference:
    def __init__(self, queue: WorkerQueue, synth: ClipSynthesizer, batch: BatchSizer, cost: CostModel,
                 metrics: MetricsHub | None, post: PostStage, add_busy: Callable[[str, float], None],
                 clock: Callable[[], float], *, lock: threading.Condition, preemption: Preemption,
                 units: UnitRunner) -> None:
        """``add_busy``: where a worker's inference time is counted (the tick's); ``lock``:
        the scheduler's, under which ``preemption`` (its part) and ``queue`` are used;
        ``units``: voices a job that is not batched unit by unit (a listener may come to
        wait for it: engine/sched/streaming.py)."""
        self._queue, self.synth, self.batch, self.cost, self.metrics = queue, synth, batch, cost, metrics
        self._post, self._add_busy, self.clock = post, add_busy, clock
        self._lock, self._preemption, self._units = lock, preemption, units

    def run(self, worker: str) -> None:
        """One local worker's thread, until the queue closes."""
        stopper = RunStopper()
        stopper.install()
        with self._lock:
            self._preemption.register(worker, stopper)
        while True:
            batch = self._queue.next_jobs(worker)
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
                if self.batch.unmeasured and self.synth.supports(batch[0].plan).batching and not batch[0].plan.phrases:
                    self.batch.measure_once(model, batch[0].plan.settings, flat)  # a GPU's first batch
                if len(batch) == 1:  # its runs measured one by one there
                    inferred = self._units.voice(worker, batch[0], model)
                else:
                    inferred = self.synth.infer_units(model, batch[0].plan, flat, batch=True)
                raws = self._land(batch, inferred, model.sample_rate)
            except Exception as exc:  # a broken voice fails its requests, not the worker
                if not self._stopped(worker, batch):
                    self._queue.fail_jobs(batch, exc)
                continue
            finished = self.clock()
            self._add_busy(worker, finished - started)
            samples = sum(piece.shape[0] for raw in raws for piece in raw.pieces)
            if self.synth.supports(batch[0].plan).batching:  # an unbatched engine's line says nothing of batch sizes
                self.batch.observe(len(batch), samples, finished - started)
            if len(batch) > 1:
                self.cost.observe(batch[0].plan.voice.backend, finished - loaded, samples / model.sample_rate)
            if self.metrics is not None:
                self.metrics.record_batch(worker, len(batch), finished - started)
            for job, raw in zip(batch, raws, strict=True):
                self._post.put(Inferred(job, raw, started, finished))

    def _land(self, batch: list[Job], inferred: list[Inference], rate: int) -> list[RawAudio]:
        """Each job's clip on the host, a job at a time: on a synthesis device gathered in
        its pool and copied once, into the room the host pool reserved for the clip."""
        pos, raws = 0, []
        for job in batch:
            units = job.units or []
            mine = inferred[pos:pos + len(units)]
            pos += len(units)
            raws.append(RawAudio(job.plan, self.synth.land(job.plan, units, mine, job.reservation),
                                 [u.pause_after for u in units], rate, sum(len(u.ids) for u in units),
                                 job.reservation, [i.words for i in mine], [u.phrase for u in units]))
        return raws

    def _stopped(self, worker: str, batch: list[Job]) -> bool:
        """Whether the batch's inference failed because it was stopped for more urgent
        lines (engine/sched/urgency.py): then it waits again, as it was before it started."""
        with self._lock:
            if not self._preemption.was_stopped(worker):
                return False
        for job in batch:
            if job.reservation is not None:  # its arena room: taken again when it is voiced
                job.reservation = None
            self.synth.release(job.plan.key)  # and its device pool's
        with self._lock:
            lost = self._queue.wait_again(batch, workers_left=True)
        if lost:
            self._queue.fail_jobs(lost, QueueFull("the synthesis queue filled while a stopped line waited again"))
        return True
