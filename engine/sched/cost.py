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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.project.timeline import estimate_duration
from engine.synth.backends.base import BackendCost
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.registry import cost_priors
from engine.synth.synthesizer import ClipPlan

_ALPHA = 0.2
# A run on every core against one on one core, before a wide run has been measured here
# (make_session: a Kokoro sentence in 1.98 CPU-s on one thread, 1.2-1.3 s on two).
WIDE_SPEEDUP = 1.6


class CostModel:
    def __init__(self, priors: Mapping[str, BackendCost]) -> None:
        self._rate = {name: cost.seconds_per_audio_second for name, cost in priors.items()}
        self._rate.update({_wide(name): cost.seconds_per_audio_second / WIDE_SPEEDUP for name, cost in priors.items()})
        self._measured: set[str] = set()
        self._lock = threading.Lock()

    def observe(self, backend: str, seconds: float, audio_seconds: float, wide: bool = False) -> None:
        """One inference on one worker took ``seconds`` for ``audio_seconds`` of audio;
        ``wide``: on the voice's session on every core (a live take's run)."""
        if seconds <= 0 or audio_seconds <= 0:
            return
        name = _wide(backend) if wide else backend
        rate = seconds / audio_seconds
        with self._lock:
            if name in self._measured:
                rate = (1 - _ALPHA) * self._rate[name] + _ALPHA * rate
            self._measured.add(name)
            self._rate[name] = rate
            if not wide and _wide(backend) not in self._measured:
                # Until a wide run is measured, it is this much faster than what is measured.
                self._rate[_wide(backend)] = rate / WIDE_SPEEDUP

    def seconds_per_audio_second(self, backend: str, wide: bool = False) -> float:
        """Inference seconds per audio second on one worker (``wide``: on every core)."""
        with self._lock:
            return self._rate.get(_wide(backend) if wide else backend, 1.0)

    def measured(self, backend: str, wide: bool = False) -> bool:
        """Whether ``backend``'s runs (``wide``: on every core) have been measured here."""
        with self._lock:
            return (_wide(backend) if wide else backend) in self._measured

    def realtime(self, backend: str, workers: int) -> float:
        """Audio seconds made per wall second with ``workers`` sessions all busy: the speed
        figure the studio shows wherever it names one (voice picker, play outlook)."""
        return max(1, workers) / max(self.seconds_per_audio_second(backend), 1e-9)

    def work(self, plan: ClipPlan) -> float:
        """Expected inference seconds for a plan (its length estimated from the text)."""
        audio = estimate_duration(plan.prepared.normalized, plan.params.speed)
        return audio * self.seconds_per_audio_second(plan.voice.backend)


def _wide(backend: str) -> str:
    return backend + "/wide"


def prior_realtime(backend: str) -> float:
    """What a backend makes per wall second here before any line has run: its prior
    cost on the worker layout every session uses (one session per core, up to 4)."""
    cost = CostModel(cost_priors())
    return cost.realtime(backend, SessionLayout.for_throughput().sessions)


# What a live take's margin allows beyond the predicted inference: shaping each part (the
# post stage) and a run slower than the average measured.
LIVE_SAFETY_S = 0.3


def live_margin(ready_s: float, remaining_s: Sequence[float], rate: float) -> float:
    """How long after its first part is ready a live take must wait to start, so that
    each later part is voiced before the playhead reaches it (engine/sched/streaming.py):
    the parts are voiced one after another at ``rate`` inference seconds per audio second
    (the wide session's, measured), part k needed once ``ready_s`` and the parts before it
    have played. 0 where the engine keeps ahead (the common case on two cores); on a
    slower machine, the line waits rather than stopping mid-word."""
    wait = 0.0
    made = 0.0
    heard = ready_s
    for seconds in remaining_s:
        made += seconds * rate
        wait = max(wait, made - heard + LIVE_SAFETY_S)
        heard += seconds
    return wait


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
    first: float | None = None  # its first part's length, voiced first when it is waited for (None: whole)


# Play asks first when the first words would take longer than this to come.
FIRST_SOUND_ASK_S = 3.0


@dataclass(frozen=True)
class Outlook:
    audio_s: float  # audio still to synthesize from the start position on
    work_s: float  # wall seconds the workers need for it (all of them busy)
    wait_s: float  # pre-render this long first and playback never waits for a line
    realtime: dict[str, float]  # backend -> audio seconds made per wall second, all workers
    silent: int = 0  # lines from the start position on that cannot be voiced: not waited for
    first_sound_s: float = 0.0  # from Play to the first words, where the first line is not voiced yet

    @property
    def keeps_up(self) -> bool:
        return self.wait_s < 0.5 and self.first_sound_s <= FIRST_SOUND_ASK_S

    @property
    def prerender_s(self) -> float:
        """How long to pre-render before playing so that playback never waits (the first words
        included)."""
        return max(self.wait_s, self.first_sound_s)

    def describe(self) -> str:
        """One line for a status display."""
        rates = ", ".join(f"{name} {rate:.1f}x" for name, rate in sorted(self.realtime.items()))
        if not self.audio_s:
            return "every line is voiced"
        if self.keeps_up:
            return (f"synthesis keeps up with playback ({rates} real time; first words after "
                    f"~{self.first_sound_s:.1f} s)")
        wait = self.prerender_s
        first = (f"the first words would come after ~{self.first_sound_s:.0f} s; "
                 if self.first_sound_s > FIRST_SOUND_ASK_S else "")
        return (f"synthesis runs at {rates} real time here: {first}{self.audio_s:.0f} s of lines still to voice need "
                f"{self.work_s:.0f} s, so playback would wait up to {wait:.0f} s; pre-render first "
                f"(radioplay render, or leave the project open {wait:.0f} s before playing)")


def playback_outlook(lines: Iterable[PendingLine], cost: CostModel, workers: int,
                     from_s: float = 0.0) -> Outlook:
    """Can lines from ``from_s`` on be voiced before the playhead reaches them?

    The first line not voiced yet is the one the listener waits for: it is voiced live
    (engine/sched/streaming.py), alone on every core (the cost model's wide rate), and
    starts once its first part (``PendingLine.first``) is voiced and the rest will keep
    ahead of the playhead (``live_margin``): that is ``first_sound_s``, counted past where
    the timeline would have started it. The lines after it are voiced by every worker in
    timeline order, all busy, so line i is ready after the live take and sum(work of the
    lines up to i) / workers; each must be whole before its start (later by the first
    line's wait), and the worst shortfall is how long pre-rendering has to run first.
    Optimistic for one long line (it cannot be split over workers), which the honest
    figures below still bound well on two cores. A line that cannot be voiced is never
    waited for (waiting would never end): it is counted in ``silent`` instead.
    """
    workers = max(1, workers)
    audio = 0.0
    silent = 0
    pending: list[PendingLine] = []
    for line in sorted(lines, key=lambda ln: ln.start):
        if line.voiced or line.start + line.duration <= from_s:
            continue
        if not line.voiceable:
            silent += 1
            continue
        pending.append(line)
        audio += line.duration
    if not pending:
        return Outlook(0.0, 0.0, 0.0, {}, silent)
    first = pending[0]
    wide = cost.seconds_per_audio_second(first.backend, wide=True)
    part = min(first.duration, first.first if first.first is not None else first.duration)
    ready = part * wide + live_margin(part, [first.duration - part] if first.duration > part else [], wide)
    due = max(0.0, first.start - from_s)
    first_sound = max(0.0, ready - due)  # the first line's wait past its place on the timeline
    starts_at = due + first_sound
    done = first.duration * wide  # the live take whole
    wait = 0.0
    for line in pending[1:]:
        done += line.duration * cost.seconds_per_audio_second(line.backend) / workers
        wait = max(wait, done - (starts_at + line.start - first.start))
    realtime = {name: cost.realtime(name, workers) for name in {ln.backend for ln in pending}}
    return Outlook(audio, done, wait, realtime, silent, first_sound)
