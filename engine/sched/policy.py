"""Which pending line goes to the device next.

``role-priority`` (the design this project implements)::

    priority = w_role * origin_factor * (1 + continuity) / max(eps, slack / horizon)

where slack is the time until the line is needed (a wall-clock deadline, or
its timeline position ahead of a playing playhead), and continuity in [0, 1)
grows with the number of same-role requests that arrived within the 300 ms
coherence window (they are batched together and keep a voice warm).
Aging works in the log domain: ``score = ln(priority) + age / tau``. The
ratio between the largest and smallest possible priority is bounded
(weights 0.01..100, origins 0.125..8, slack eps..1), so no request waits more
than ``tau * ln(P_max / P_min)`` (~28 s with tau = 1.5 s) however many urgent
requests keep arriving; in ordinary use aging is a gentle tie-breaker
(half a second of waiting multiplies priority by 1.4).

A playback line the playing playhead has already reached is what the listener waits
for now: its score is raised by ``ln(P_max / P_min)``, above every line still
ahead whatever their weights. Counting a line's inference into its slack makes
the next few lines of a slow voice all "as late as can be" (slack eps) once
playing, and a lead's next line (weight 3) then took the worker from the line
being played (a Play inside a Kokoro line of the sample heard the next line
first). Only lines already reached get it, a handful at a time, so the bound
above holds for everything else once they are served.

``fifo`` serves in arrival order, for side-by-side comparison.

Both operate on numpy arrays over every pending request at once: one
re-prioritization of 10,000 requests is a handful of vectorized passes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.sched.request import ORIGIN_FACTOR, Deadline, Origin

KIND_NONE, KIND_WALL, KIND_TIMELINE = 0, 1, 2
COHERENCE_S = 0.3
# ln(P_max / P_min): weights 0.01..100, origin factors 0.125..8, slack eps (0.01)..1,
# continuity 1..2. A line the listener waits for is raised by this (see the module).
LISTENER_WAITING = math.log((100 / 0.01) * (8 / 0.125) * (1 / 0.01) * 2)


@dataclass(frozen=True)
class Playhead:
    """Where the playhead was at monotonic time ``since`` and whether it moves."""

    position_s: float = 0.0
    playing: bool = False
    since: float = 0.0
    rate: float = 1.0

    def position(self, now: float) -> float:
        return self.position_s + (now - self.since) * self.rate if self.playing else self.position_s

    def reached(self, deadline: Deadline, now: float) -> bool:
        """Whether the playing playhead is at or past a timeline deadline (a line's start):
        that line's listener is waiting (``listener_waiting`` below, for arrays)."""
        return self.playing and deadline.kind == "timeline" and deadline.value <= self.position(now)


@dataclass
class PendingArrays:
    """Structure-of-arrays view of the pending requests (same length each)."""

    weight: np.ndarray  # float64
    origin: np.ndarray  # int64 (Origin values)
    kind: np.ndarray  # int64 (KIND_*)
    deadline: np.ndarray  # float64: monotonic s (wall) or timeline s
    arrival: np.ndarray  # float64 monotonic s
    role: np.ndarray  # int64 role ids
    work: np.ndarray | None = None  # float64 expected inference seconds; None = nothing known


class Policy(Protocol):
    name: str

    def scores(self, p: PendingArrays, now: float, playhead: Playhead) -> np.ndarray:
        """Higher is served first."""
        ...

    def displayed(self, scores: np.ndarray, now: float) -> np.ndarray:
        """The priority shown on heatmaps and /metrics, from ``scores`` taken at ``now``."""
        ...


class FifoPolicy:
    name = "fifo"

    def scores(self, p: PendingArrays, now: float, playhead: Playhead) -> np.ndarray:
        return -p.arrival

    def displayed(self, scores: np.ndarray, now: float) -> np.ndarray:
        # FIFO has no notion of priority; show waiting time (now - arrival) so
        # the heatmap still tells which role is being kept waiting.
        return np.asarray(now + scores)


@dataclass
class RolePriorityPolicy:
    name: str = "role-priority"
    horizon_s: float = 10.0
    eps: float = 0.01
    tau_s: float = 1.5
    coherence_s: float = COHERENCE_S

    def slack(self, p: PendingArrays, now: float, playhead: Playhead) -> np.ndarray:
        """Time left until each line is needed, less the time it takes to make
        (a 5 s Kokoro line due in 6 s has 1 s of slack, a Piper one 5.6 s)."""
        slack = np.full(p.weight.shape, self.horizon_s)
        wall = p.kind == KIND_WALL
        slack[wall] = p.deadline[wall] - now
        timeline = p.kind == KIND_TIMELINE
        if playhead.playing:
            ahead = (p.deadline[timeline] - playhead.position(now)) / max(playhead.rate, 1e-6)
            slack[timeline] = ahead
        else:
            # Stopped: nothing is due, but keep lines near the playhead first.
            slack[timeline] = self.horizon_s + np.abs(p.deadline[timeline] - playhead.position_s)
        if p.work is not None:
            due = wall | (timeline & playhead.playing)
            slack[due] -= p.work[due]
        return np.asarray(slack)

    def continuity(self, p: PendingArrays) -> np.ndarray:
        """c/(c+1) for c = same-role requests arriving within the coherence window."""
        n = p.arrival.size
        if n == 0:
            return np.zeros(0)
        base = p.arrival.min()
        span = float(p.arrival.max() - base) + 2 * self.coherence_s + 1.0
        composite = p.role.astype(np.float64) * span + (p.arrival - base)
        order = np.argsort(composite, kind="stable")
        keys = composite[order]
        lo = np.searchsorted(keys, keys - self.coherence_s, side="left")
        hi = np.searchsorted(keys, keys + self.coherence_s, side="right")
        counts = np.empty(n)
        counts[order] = hi - lo - 1
        return np.asarray(counts / (counts + 1.0))

    def _log_priority(self, p: PendingArrays, now: float, playhead: Playhead) -> np.ndarray:
        normalized = np.maximum(self.eps, np.minimum(1.0, self.slack(p, now, playhead) / self.horizon_s))
        base = p.weight * ORIGIN_FACTOR[p.origin] * (1.0 + self.continuity(p))
        return np.asarray(np.log(base) - np.log(normalized))

    def listener_waiting(self, p: PendingArrays, now: float, playhead: Playhead) -> np.ndarray:
        """Playback lines the playing playhead has reached (``Playhead.reached``, for every
        pending line; an export's lines carry timeline deadlines too, but nobody hears them)."""
        if not playhead.playing:
            return np.zeros(p.weight.shape, dtype=bool)
        return np.asarray((p.origin == Origin.PLAYBACK) & (p.kind == KIND_TIMELINE)
                          & (p.deadline <= playhead.position(now)))

    def scores(self, p: PendingArrays, now: float, playhead: Playhead) -> np.ndarray:
        return (self._log_priority(p, now, playhead) + (now - p.arrival) / self.tau_s
                + LISTENER_WAITING * self.listener_waiting(p, now, playhead))

    def displayed(self, scores: np.ndarray, now: float) -> np.ndarray:
        return np.asarray(np.exp(scores))  # scores are log-priorities (aging included)


def make_policy(name: str) -> Policy:
    if name == "fifo":
        return FifoPolicy()
    if name == "role-priority":
        return RolePriorityPolicy()
    raise ValueError(f"unknown policy {name!r} (choose role-priority or fifo)")
