"""Work that may run only while the scheduler has nothing more urgent: the
speech check (engine/session/checking.py), and pre-render while nothing plays
(:meth:`BackgroundGate._keep_one_free`).

Such work is not a synthesis job, so it never enters the pending table and
never takes an inference worker; instead it asks here, before each piece,
whether any job more urgent than its origin is pending or running, and waits
while one is. A playback, audition, service, export or pre-render request
that arrives while a piece runs is not held back by the scheduler (it is
ranked and started as ever); the piece itself runs in another process at a
lower OS priority, so it does not hold this process's GIL either.

A part of :class:`engine.sched.scheduler.Scheduler` (which inherits it),
sharing its lock and job table.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from engine.sched.job import Job
from engine.sched.policy import Playhead
from engine.sched.request import Origin

POLL_S = 0.05  # completions do not always notify the lock: look again this often


class BackgroundGate:
    # The scheduler's state read here (set by Scheduler.__init__).
    clock: Callable[[], float]
    _cond: threading.Condition
    _closed: bool
    _jobs: dict[str, Job]
    _playhead: Playhead
    workers: int

    def _keep_one_free(self, job: Job) -> bool:
        """While nothing plays, pre-render runs one line at a time and leaves the
        other workers free: a Play cannot interrupt a line in inference, and with
        every worker pre-rendering (as from the moment the studio opens a project)
        it waited for them (time to first audio 2-4x that of idle workers on the
        sample, 2 cores: bench/studio_play.py). Lock held (the scheduler's _take)."""
        return (not self._playhead.playing and self.workers > 1 and job.origin == Origin.PRERENDER
                and any(other.running for other in self._jobs.values()))

    def quiet_below(self, origin: Origin) -> bool:
        """No job more urgent than ``origin`` is pending or running."""
        with self._cond:
            return not any(job.origin < origin for job in self._jobs.values())

    def wait_quiet_below(self, origin: Origin, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until :meth:`quiet_below` holds; False
        when it does not by then (or the scheduler closed)."""
        limit = self.clock() + timeout
        with self._cond:
            while not self._closed:
                if not any(job.origin < origin for job in self._jobs.values()):
                    return True
                remaining = limit - self.clock()
                if remaining <= 0:
                    return False
                self._cond.wait(min(remaining, POLL_S))
            return False
