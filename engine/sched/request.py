"""What a caller asks the scheduler for, and what it gets back.

A :class:`LineRequest` is one line to voice: its cache key (from the
synthesizer's plan, so identical requests share one synthesis), the role and
its base weight, the origin (why it is wanted), a deadline, and a future the
caller can wait on or cancel. Deadlines come in two kinds: a wall-clock
instant (``Deadline.at``) or a position on the timeline (``Deadline.on_timeline``)
that becomes urgent as the playhead approaches it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from engine.project.model import VoiceParams
from engine.synth.live_parts import LivePart
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer


class Origin(IntEnum):
    """Why a line is wanted, most urgent first."""

    PLAYBACK = 0  # prefetch near the playhead: heard in seconds
    AUDITION = 1  # the producer just edited or auditioned this line
    SERVICE = 2  # an HTTP client is waiting
    EXPORT = 3  # a render in progress
    PRERENDER = 4  # background fill of the whole project
    CHECK = 5  # new takes of lines the speech check flagged: only when nothing else waits

    @property
    def label(self) -> str:
        return self.name.lower()


# Urgency multiplier per origin (index = Origin value).
ORIGIN_FACTOR = np.array([8.0, 4.0, 2.0, 1.0, 0.25, 0.125])


@dataclass(frozen=True)
class Deadline:
    """A wall-clock instant (monotonic seconds) or a timeline position."""

    kind: str  # "wall" | "timeline" | "none"
    value: float = 0.0

    @staticmethod
    def at(monotonic_s: float) -> Deadline:
        return Deadline("wall", monotonic_s)

    @staticmethod
    def on_timeline(position_s: float) -> Deadline:
        return Deadline("timeline", position_s)

    @staticmethod
    def none() -> Deadline:
        return Deadline("none")


class QueueFull(RuntimeError):
    """The scheduler's bounded queue stayed full for the whole submit timeout."""


_ids = itertools.count(1)


@dataclass(eq=False)
class LineRequest:
    plan: ClipPlan
    role: str
    origin: Origin = Origin.SERVICE
    deadline: Deadline = field(default_factory=Deadline.none)
    weight: float = 1.0
    line_id: str | None = None  # project line, so edits and seeks can cancel it
    id: int = field(default_factory=lambda: next(_ids))
    arrival: float = 0.0  # set by the scheduler at submit
    future: Future[np.ndarray] = field(default_factory=Future)
    # Called (on the post stage's thread: hand over and return) with each part of the line's
    # live take, when a listener came to wait for it while it was voiced (engine/sched/streaming.py);
    # the future still gets the whole clip.
    on_part: Callable[[LivePart], None] | None = None

    @property
    def key(self) -> str:
        return self.plan.key


def request_for(synth: ClipSynthesizer, text: str, role: str, params: VoiceParams, *, lexicon: Mapping[str, str] | None = None,
                origin: Origin = Origin.SERVICE, deadline: Deadline | None = None, weight: float = 1.0,
                line_id: str | None = None) -> LineRequest:
    """Plan a line (text frontend, voice lookup, cache key) into a request."""
    plan = synth.plan(text, params, lexicon)
    return LineRequest(plan=plan, role=role, origin=origin, deadline=deadline or Deadline.none(),
                       weight=weight, line_id=line_id)
