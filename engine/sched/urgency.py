"""Making way for the lines someone waits for: focus and preemption.

**Focus.** Until a line the listener is already waiting for is synthesized
and shaped, the other workers start nothing less urgent, so it has the cores
and the post stage to itself (measured on 2 cores: inference beside another
~1.5x slower, shaping beside two inferences 2-4x slower).

**Preemption.** A Kokoro line takes seconds to voice (the sample's opening narration 12 s on
one core), and pre-render runs from the moment the studio opens a project:
when Play is pressed, a worker is usually inside such a line. ONNX Runtime
cannot pause a run, but it can end one (engine/synth/backends/onnx_sessions.py
``RunStopper``), so when lines more urgent than pre-render (the playhead's,
an audition, an export, a service request) outnumber the free local workers,
the pre-render run started last is stopped and its line waits again, to be
voiced once nothing more urgent is left. What it had voiced is lost: its
line is made again later, from the start (on the sample a Play inside
line 29 sounded after 4.6 s instead of 12.5 s: docs/dev/scheduling-and-playback.md).

Both are parts of :class:`engine.sched.scheduler.Scheduler`: each owns its
state (the focused jobs; the local workers' stoppers and what each runs) and
every method runs under the scheduler's lock.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.sched.job import Job
from engine.sched.request import Origin
from engine.synth.backends.onnx_sessions import RunStopper

# The longest a job the listener waits for keeps the other workers idle.
FOCUS_MAX_S = 2.0


class Focus:
    def __init__(self) -> None:
        self._since: dict[int, float] = {}  # id(job) -> when it started, for overdue jobs in inference
        self._live: set[int] = set()  # id(job) of the jobs whose live take is being made

    def holding(self, now: float) -> bool:
        """A focused job is in inference or shaping (for at most FOCUS_MAX_S), or a live
        take is being made (engine/sched/streaming.py: until it is whole, however long:
        its parts are what the listener hears next, on every core)."""
        return bool(self._live) or any(now - since < FOCUS_MAX_S for since in self._since.values())

    def live(self, job: Job) -> None:
        """``job``'s live take is being made: the other workers hold until :meth:`live_done`."""
        self._live.add(id(job))

    def live_done(self, job: Job) -> bool:
        """``job``'s live take is whole (or it failed); True when the others may start again."""
        if id(job) not in self._live:
            return False
        self._live.discard(id(job))
        return True

    def start(self, job: Job, now: float, work_s: float) -> None:
        """``job`` (a line the listener waits for) started, expected to take ``work_s``
        seconds of inference. One expected to outlast the hold is not focused: held
        workers would gain it a third of its time and cost the next lines their whole
        start (a Kokoro line of 4.6 s at a Play on the sample: the second worker idled
        for 2 s, then made the next line 1.8 s too late for its span; first audio 12.5 s)."""
        if work_s <= FOCUS_MAX_S:
            self._since[id(job)] = now

    def end(self, jobs: list[Job]) -> bool:
        """The jobs are finished (shaped too) or failed; True when one was focused:
        the other workers may start again."""
        ended = [self._since.pop(id(job), None) for job in jobs]  # every one, not up to the first
        live = [self.live_done(job) for job in jobs]
        return any(since is not None for since in ended) or any(live)


class Preemption:
    def __init__(self, jobs: Mapping[str, Job]) -> None:
        """``jobs``: the scheduler's pending and running jobs."""
        self._jobs = jobs
        self._stoppers: dict[str, RunStopper] = {}
        self._running: dict[str, tuple[list[Job], float]] = {}  # worker -> its batch and when it started

    def register(self, worker: str, stopper: RunStopper) -> None:
        """A local worker whose runs can be stopped (its thread installed ``stopper``)."""
        self._stoppers[worker] = stopper

    def started(self, worker: str, batch: list[Job], now: float) -> None:
        """``worker`` was handed ``batch``: its runs go on until stopped."""
        stopper = self._stoppers.get(worker)
        if stopper is not None:
            stopper.arm()
            self._running[worker] = (batch, now)

    def idle(self, worker: str) -> None:
        """``worker`` asks for work: whatever it ran is over (a stop that came after
        its last run ended stopped nothing, and the next batch arms it again)."""
        self._running.pop(worker, None)

    def was_stopped(self, worker: str) -> bool:
        """Whether ``worker``'s failed inference was stopped here, not broken."""
        self._running.pop(worker, None)
        stopper = self._stoppers.get(worker)
        return stopper is not None and stopper.stopped

    def yield_to(self, worker: str) -> None:
        """Stop every pre-render run but ``worker``'s: a line a listener waits for goes on
        every core (engine/sched/streaming.py), and a background run beside it would take
        one back. Their lines wait again, as :meth:`make_room`'s do."""
        for other, (batch, _) in self._running.items():
            if other != worker and all(job.origin >= Origin.PRERENDER for job in batch):
                self._stoppers[other].stop()

    def stopped(self, worker: str) -> bool:
        """Whether ``worker``'s runs are being stopped (its next run fails at once)."""
        stopper = self._stoppers.get(worker)
        return stopper is not None and stopper.stopped

    def make_room(self) -> bool:
        """Stop pre-render runs while more urgent lines wait than local workers are
        free; True when one was stopped. The run started last goes first: it has
        voiced least."""
        stoppable = sorted((since, worker) for worker, (batch, since) in self._running.items()
                           if all(job.origin >= Origin.PRERENDER for job in batch)
                           and not self._stoppers[worker].stopped)
        if not stoppable:  # the common case, answered without looking at the queue
            return False
        # A worker whose run was stopped is as good as free: it asks for work within milliseconds.
        free = len(self._stoppers) - sum(1 for worker in self._running if not self._stoppers[worker].stopped)
        urgent = 0
        for job in self._jobs.values():
            if not job.running and job.origin < Origin.PRERENDER:
                urgent += 1
                if urgent > free + len(stoppable):
                    break
        stopped = False
        while urgent > free and stoppable:
            _, worker = stoppable.pop()
            self._stoppers[worker].stop()
            free += 1
            stopped = True
        return stopped
