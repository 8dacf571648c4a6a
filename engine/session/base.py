"""The records the Session's parts keep: one line's, and one playback pass's.

The Session (control.py) is composed of parts, each owning its own state and
handed its collaborators: the line book (lines.py), the playback pass
(playback.py), the live mix (mix.py), the sound desk (sound_desk.py) and the
check desk (checking.py). Only the control thread ("radioplay-live") runs them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.sched.request import LineRequest
from engine.synth.synthesizer import ClipPlan


@dataclass
class LineRecord:
    """The control thread's record of one line."""

    plan: ClipPlan | None = None
    error: str | None = None
    no_voice: bool = False  # ``error`` says the voice is not installed here: nothing failed
    clip: np.ndarray | None = None
    clip_key: str | None = None  # the key ``clip`` was made for (pinned in the cache)
    request: LineRequest | None = None
    failed: str | None = None
    recording: str | None = None  # the recorded take ``clip`` was read from (no plan, no synthesis)
    # ``clip`` is the line's live take (engine/synth/live_parts.py): heard while it was voiced,
    # not the cached clip, which replaces it once it comes (held for the pass it is heard in).
    live: bool = False
    growing: bool = False  # the live take has more parts to come (``clip`` is what is ready)
    expected_s: float = 0.0  # a growing take's predicted whole length (the layout's)

    @property
    def voiceable(self) -> bool:
        """A clip can come for it (planned, nothing failed): playback waits for one it lacks.
        A line that cannot be voiced (its text, its voice, a failed synthesis) or has no
        text yet is silent where it is laid out, never a late line."""
        return self.plan is not None and self.error is None and self.failed is None


@dataclass
class PassState:
    """What one playback pass keeps fixed (reset on play, seek and loop wrap)."""

    frozen: dict[str, float] = field(default_factory=dict)  # passed without a clip: estimated length
    held: dict[str, np.ndarray] = field(default_factory=dict)  # edited while playing: old clip this pass
    held_keys: list[str] = field(default_factory=list)  # their cache pins, released with the pass
    pinned: dict[str, float] = field(default_factory=dict)  # late lines: start where they arrived
    waiting: set[str] = field(default_factory=set)  # reached (or under the playhead) without a clip
    # growing live takes the playhead overtook (a late part): seconds heard of each; the
    # rest starts where the playhead is once it arrives
    late_parts: dict[str, float] = field(default_factory=dict)
