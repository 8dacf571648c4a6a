"""Work that may run only while the scheduler has nothing more urgent: the
speech check (engine/session/checking.py), and pre-render while nothing plays
(:meth:`BackgroundGate.keeps_one_free`).

Such work is not a synthesis job, so it never enters the pending table and
never takes an inference worker; instead it asks here, before each piece,
whether any job more urgent than its origin is pending or running, or such
work outside the queue is in progress (``foreground``: an export of a cached
project mixes and writes without a job), and waits while one is. A playback,
audition, service, export or pre-render request that arrives while a piece
runs is not held back by the scheduler (it is ranked and started as ever);
the piece itself runs in another process at a lower OS priority, so it does
not hold this process's GIL either.

A part of the :class:`engine.sched.scheduler.Scheduler`: it reads the
scheduler's jobs under the scheduler's lock, both handed to it, and owns the
list of foreground work.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping

from engine.sched.job import Job
from engine.sched.policy import Playhead
from engine.sched.request import Origin

POLL_S = 0.05  # completions do not always notify the lock: look again this often


class BackgroundGate:
    def __init__(self, lock: threading.Condition, jobs: Mapping[str, Job], clock: Callable[[], float],
                 closed: Callable[[], bool]) -> None:
        """``jobs``: the scheduler's pending and running jobs, read under ``lock``;
        ``closed``: whether the scheduler has closed (read under ``lock``)."""
        self._lock, self._jobs, self._clock, self._closed = lock, jobs, clock, closed
        self._foreground: list[Origin] = []  # work outside the queue in progress (foreground())

    @contextlib.contextmanager
    def foreground(self, origin: Origin) -> Iterator[None]:
        """Work of ``origin`` that is not in the queue runs inside: background work waits
        for it as for a job. A cached export voices nothing, yet mixes and writes for
        seconds, which the speech check's child process took a core from (measured on the
        sample: 3 CPU-s of the check in each 4 s studio export)."""
        with self._lock:
            self._foreground.append(origin)
        try:
            yield
        finally:
            with self._lock:
                self._foreground.remove(origin)
                self._lock.notify_all()

    def _busy_below(self, origin: Origin) -> bool:
        """Something more urgent than ``origin`` is queued, running or in the foreground; lock held."""
        return any(o < origin for o in self._foreground) or any(job.origin < origin for job in self._jobs.values())

    def keeps_one_free(self, job: Job, playhead: Playhead, workers: int) -> bool:
        """While nothing plays, pre-render runs one line at a time and leaves the
        other workers free for a Play (with every worker pre-rendering, as from the
        moment the studio opens a project, a Play waited for them: time to first
        audio 2-4x that of idle workers on the sample, 2 cores: bench/studio_play.py).
        A Play now stops a pre-render run it needs the worker of (engine/sched/urgency.py),
        but that loses the run's work; the free worker starts the played line without
        losing any. Lock held (the scheduler's next_jobs)."""
        return (not playhead.playing and workers > 1 and job.origin == Origin.PRERENDER
                and any(other.running for other in self._jobs.values()))

    def quiet_below(self, origin: Origin) -> bool:
        """No job more urgent than ``origin`` is pending or running, nor such work in the foreground."""
        with self._lock:
            return not self._busy_below(origin)

    def wait_quiet_below(self, origin: Origin, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until :meth:`quiet_below` holds; False
        when it does not by then (or the scheduler closed)."""
        limit = self._clock() + timeout
        with self._lock:
            while not self._closed():
                if not self._busy_below(origin):
                    return True
                remaining = limit - self._clock()
                if remaining <= 0:
                    return False
                self._lock.wait(min(remaining, POLL_S))
            return False
