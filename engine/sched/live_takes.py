"""The scheduler's part for live takes: the lines a listener waits for while they are voiced.

:class:`engine.sched.streaming.UnitRunner` asks here, between two units of a line, whether
a listener now waits for it (the playing playhead has reached its start); if so the line
goes live: the other workers start nothing less urgent (the scheduler's ``Focus``) and
pre-render runs stop (``Preemption.yield_to``) until its live take is whole, so its runs
have every core. The post stage hands each shaped part here, and here it goes to the
requests that listen for parts (``LineRequest.on_part``: the Session's); the job's whole
clip follows as every clip does.

A part of :class:`engine.sched.scheduler.Scheduler`: every method takes the scheduler's
lock, handed to it with the jobs, the focus and the preemption it reads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from engine.sched.job import Job
from engine.sched.outside import WorkerQueue
from engine.sched.urgency import Focus, Preemption
from engine.synth.live_parts import LivePart
from engine.synth.synthesizer import ClipSynthesizer


class LiveTakes:
    def __init__(self, queue: WorkerQueue, synth: ClipSynthesizer, *, lock: threading.Condition, jobs: Mapping[str, Job],
                 focus: Focus, preemption: Preemption, overdue: Callable[[Job], bool],
                 clock: Callable[[], float]) -> None:
        """``overdue``: whether the playing playhead has reached a job's line (lock held)."""
        self._queue, self._synth, self._lock, self._jobs = queue, synth, lock, jobs
        self._focus, self._preemption, self._overdue, self.clock = focus, preemption, overdue, clock

    def waited_for(self, job: Job) -> bool:
        """A listener waits for ``job``'s line now: the playing playhead has reached it."""
        with self._lock:
            return self._overdue(job)

    def begin_live(self, worker: str, job: Job) -> bool:
        """``job`` goes live on ``worker``: the other workers start nothing less urgent and
        pre-render runs stop until its live take is whole (:meth:`part`). False when
        ``worker``'s own run is being stopped (it waits again, voiced from the start)."""
        with self._lock:
            if self._preemption.stopped(worker):
                return False
            self._focus.live(job)
            self._preemption.yield_to(worker)
            return True

    def part(self, job: Job, part: LivePart) -> None:
        """A shaped part of ``job``'s live take (the post stage's thread): to the requests
        listening for parts; once it is whole the other workers go on."""
        with self._lock:
            listeners = [r.on_part for r in job.waiters if r.on_part is not None and not r.future.done()]
            if part.final and self._focus.live_done(job):
                self._lock.notify_all()
        for listener in listeners:
            listener(part)
