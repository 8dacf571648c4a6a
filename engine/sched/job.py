"""One synthesis in the scheduler, shared by every request with its cache key."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.memory.arena import Allocation
from engine.sched.request import LineRequest, Origin
from engine.synth.backends.base import PhonemeUnit
from engine.synth.synthesizer import ClipPlan


@dataclass(eq=False)
class Job:
    plan: ClipPlan
    role: str
    slot: int
    origin: Origin = Origin.SERVICE  # the most urgent origin among its waiters
    waiters: list[LineRequest] = field(default_factory=list)
    units: list[PhonemeUnit] | None = None
    running: bool = False
    reservation: Allocation[np.ndarray] | None = None
    started: float = 0.0

    @property
    def batch_key(self) -> tuple[str, object]:
        """Jobs that can share one inference batch: same voice, same settings (a
        directed line's phrases each have their own: it is inferred alone)."""
        return str(self.plan.voice.model_path), self.plan.key if self.plan.phrases else self.plan.settings
