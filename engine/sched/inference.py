"""The scheduler's own inference workers (threads ``radioplay-infer-N``, one
per ONNX session of the voice): each takes the most urgent jobs the queue
gives it (batched when the batch sizer says so), runs inference (ONNX
Runtime releases the GIL) and hands the raw audio to the post stage. A broken
voice fails its requests, not the worker.

A part of :class:`engine.sched.scheduler.Scheduler`, reaching its queue
through :class:`engine.sched.outside.WorkerQueue` as an outside worker does.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.metrics.hub import MetricsHub
from engine.sched.batching import BatchSizer
from engine.sched.cost import CostModel
from engine.sched.outside import WorkerQueue
from engine.sched.post import Inferred, PostStage
from engine.synth.synthesizer import ClipSynthesizer, RawAudio


class LocalInference:
    def __init__(self, queue: WorkerQueue, synth: ClipSynthesizer, batch: BatchSizer, cost: CostModel,
                 metrics: MetricsHub | None, post: PostStage, add_busy: Callable[[str, float], None],
                 clock: Callable[[], float]) -> None:
        """``add_busy``: where a worker's inference time is counted (the tick's)."""
        self._queue, self.synth, self.batch, self.cost, self.metrics = queue, synth, batch, cost, metrics
        self._post, self._add_busy, self.clock = post, add_busy, clock

    def run(self, worker: str) -> None:
        """One local worker's thread, until the queue closes."""
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
                inferred = self.synth.infer_units(model, batch[0].plan, flat, batch=len(batch) > 1)
            except Exception as exc:  # a broken voice fails its requests, not the worker
                self._queue.fail_jobs(batch, exc)
                continue
            finished = self.clock()
            self._add_busy(worker, finished - started)
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
                               [i.words for i in inferred[pos:pos + len(units)]], [u.phrase for u in units])
                pos += len(units)
                self._post.put(Inferred(job, raw, started, finished))
