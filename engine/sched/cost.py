"""What synthesis costs, per backend, and whether live playback can keep up.

A Piper line costs ~0.08 s of one session per second of audio; a Kokoro
line ~2 s (measured on this 2-core CPU, bench/backends.py). Planning that treats
them alike is dishonest twice: a Kokoro line 5 s ahead of the playhead is
already late if it takes 6 s to make, and a Kokoro cast cannot play live from
a cold cache at all. So:

- :class:`CostModel` knows each backend's seconds of inference per second of
  audio: the backend's prior until the workers have run it here, then an
  exponential average of what they measure (load on a shared machine moves it).
- The scheduler subtracts a job's expected inference time from its slack
  (``work``), so the policy ranks by the time that is really left.
- :func:`playback_outlook` tells, before play, whether the workers can make
  the lines not yet voiced before the playhead reaches them, and if not how
  long pre-rendering must run first; ``radioplay play`` prints it.

Thread-safe: workers observe while the scheduler and callers read.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.project.timeline import estimate_duration
from engine.synth.backends.base import BackendCost
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.registry import cost_priors
from engine.synth.synthesizer import ClipPlan

_ALPHA = 0.2


class CostModel:
    def __init__(self, priors: Mapping[str, BackendCost]) -> None:
        self._rate = {name: cost.seconds_per_audio_second for name, cost in priors.items()}
        self._measured: set[str] = set()
        self._lock = threading.Lock()

    def observe(self, backend: str, seconds: float, audio_seconds: float) -> None:
        """One inference on one worker took ``seconds`` for ``audio_seconds`` of audio."""
        if seconds <= 0 or audio_seconds <= 0:
            return
        rate = seconds / audio_seconds
        with self._lock:
            if backend in self._measured:
                rate = (1 - _ALPHA) * self._rate[backend] + _ALPHA * rate
            self._measured.add(backend)
            self._rate[backend] = rate

    def seconds_per_audio_second(self, backend: str) -> float:
        with self._lock:
            return self._rate.get(backend, 1.0)

    def measured(self, backend: str) -> bool:
        with self._lock:
            return backend in self._measured

    def realtime(self, backend: str, workers: int) -> float:
        """Audio seconds made per wall second with ``workers`` sessions all busy: the speed
        figure the studio shows wherever it names one (voice picker, play outlook)."""
        return max(1, workers) / max(self.seconds_per_audio_second(backend), 1e-9)

    def work(self, plan: ClipPlan) -> float:
        """Expected inference seconds for a plan (its length estimated from the text)."""
        audio = estimate_duration(plan.prepared.normalized, plan.params.speed)
        return audio * self.seconds_per_audio_second(plan.voice.backend)


def prior_realtime(backend: str) -> float:
    """What a backend makes per wall second here before any line has run: its prior
    cost on the worker layout every session uses (one session per core, up to 4)."""
    cost = CostModel(cost_priors())
    return cost.realtime(backend, SessionLayout.for_throughput().sessions)


@dataclass(frozen=True)
class PendingLine:
    """A line as the outlook sees it: where it starts, how long, who makes it."""

    start: float
    duration: float
    backend: str
    voiced: bool  # its clip exists: costs nothing
    # False: no clip can come (its synthesis failed, its voice cannot be used): playback
    # never waits for it, so it costs nothing either, and the outlook counts it apart.
    voiceable: bool = True


@dataclass(frozen=True)
class Outlook:
    audio_s: float  # audio still to synthesize from the start position on
    work_s: float  # wall seconds the workers need for it (all of them busy)
    wait_s: float  # pre-render this long first and playback never waits for a line
    realtime: dict[str, float]  # backend -> audio seconds made per wall second, all workers
    silent: int = 0  # lines from the start position on that cannot be voiced: not waited for

    @property
    def keeps_up(self) -> bool:
        return self.wait_s < 0.5

    def describe(self) -> str:
        """One line for a status display."""
        rates = ", ".join(f"{name} {rate:.1f}x" for name, rate in sorted(self.realtime.items()))
        if not self.audio_s:
            return "every line is voiced"
        if self.keeps_up:
            return f"synthesis keeps up with playback ({rates} real time)"
        return (f"synthesis runs at {rates} real time here: {self.audio_s:.0f} s of lines still to voice need "
                f"{self.work_s:.0f} s, so playback would wait up to {self.wait_s:.0f} s; pre-render first "
                f"(radioplay render, or leave the project open {self.wait_s:.0f} s before playing)")


def playback_outlook(lines: Iterable[PendingLine], cost: CostModel, workers: int,
                     from_s: float = 0.0) -> Outlook:
    """Can lines from ``from_s`` on be voiced before the playhead reaches them?

    The workers are assumed to voice the lines in timeline order, all busy
    (what the scheduler does when the playhead moves), so line i is ready
    after sum(work of lines up to i) / workers; its wait is how much later
    that is than its start, and the worst wait is how long pre-rendering has
    to run first. Optimistic for one long line (it cannot be split over
    workers), which the honest figures below still bound well on two cores.
    A line that cannot be voiced is never waited for (waiting would never end):
    it is counted in ``silent`` instead.
    """
    workers = max(1, workers)
    done = 0.0
    audio = 0.0
    wait = 0.0
    silent = 0
    seen: set[str] = set()
    for line in sorted(lines, key=lambda ln: ln.start):
        if line.voiced or line.start + line.duration <= from_s:
            continue
        if not line.voiceable:
            silent += 1
            continue
        seen.add(line.backend)
        audio += line.duration
        done += line.duration * cost.seconds_per_audio_second(line.backend) / workers
        wait = max(wait, done - max(0.0, line.start - from_s))
    realtime = {name: cost.realtime(name, workers) for name in seen}  # the one speed figure
    return Outlook(audio, done, wait, realtime, silent)
