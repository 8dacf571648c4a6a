"""What the session shows the studio and the CLI: immutable snapshots of line
states, clip placements and the transport, read from any thread."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from engine.audio.meters import MeterSnapshot
from engine.check.lines import LineResult
from engine.metrics.hub import EngineSnapshot


class LineState(enum.Enum):
    MISSING = "missing"  # no clip and not requested (e.g. pre-render off)
    QUEUED = "queued"
    SYNTHESIZING = "synthesizing"
    READY = "ready"
    FAILED = "failed"
    EMPTY = "empty"  # no text yet (a line just inserted): nothing to voice, nothing wrong
    NO_VOICE = "no voice"  # its voice is not installed here (the error says how to get it): nothing failed

    @property
    def coming(self) -> bool:
        """A clip is being made or will be asked for: playback waits for this line (the
        play outlook counts it, the mixer calls it late when the playhead gets there first)."""
        return self in _COMING

    @property
    def unvoiceable(self) -> bool:
        """No clip comes until the producer changes something (a failure): playback never
        waits for the line, and it is silent, never late. Every state that is neither
        coming, voiced nor blank is one, so a new reason a line cannot be voiced is
        treated so without another change here."""
        return self not in _COMING and self not in (LineState.READY, LineState.EMPTY)


_COMING = frozenset({LineState.MISSING, LineState.QUEUED, LineState.SYNTHESIZING})


@dataclass(frozen=True)
class LineStatus:
    state: LineState
    error: str | None = None


@dataclass(frozen=True)
class ClipView:
    line_id: str
    role: str
    start: float
    end: float
    estimated: bool  # True until the clip exists (the length is a guess)


@dataclass(frozen=True)
class SoundView:
    """A sound clip on its lane, as laid out now."""

    clip_id: str
    lane: str
    start: float
    end: float
    silent: bool  # a placeholder, or its file could not be used
    file: str  # what it plays ("" for a placeholder)
    problem: str | None = None  # why its file cannot be used (the studio shows it in red)


@dataclass(frozen=True)
class TransportSnapshot:
    position_s: float
    playing: bool
    duration_s: float
    loop: tuple[float, float] | None
    late_lines: int
    underruns: int
    cpu_load: float
    output: str
    audio_error: str | None
    device_underflows: int = 0
    # (line id, seed) of the take an audition plays now (the Takes panel's A/B says which)
    audition: tuple[str, int] | None = None
    # Playing stopped at the programme's end (the layout may have moved since: a line late
    # in that pass has its real length now), and has not started since.
    ended: bool = False


@dataclass(frozen=True)
class FixOutcome:
    """One line "Fix flagged lines" worked on: the takes it has now and the one chosen.
    ``text`` and ``take_before`` say what the line was, so a line edited meanwhile is left alone."""

    line_id: str
    text: str
    take_before: int
    takes: tuple[int, ...]
    take: int
    result: LineResult


@dataclass(frozen=True)
class FixProgress:
    """Where "Fix flagged lines" is (``Session.fix_lines``)."""

    batch: int  # increases with every fix() call
    lines: int  # lines asked for
    done: bool
    outcomes: Mapping[str, FixOutcome] = field(default_factory=dict)


NO_CHECKS: Mapping[str, LineResult] = MappingProxyType({})


@dataclass(frozen=True)
class SessionState:
    """Everything the studio draws, in one read (``Session.state()``).

    Assembled from "latest value" slots: the control thread publishes
    ``line_status`` and ``clips`` as new objects when they change (an
    identity check tells a reader whether to redraw), the player its
    transport, the meters and metrics hub their own snapshots."""

    transport: TransportSnapshot
    line_status: Mapping[str, LineStatus]
    clips: Sequence[ClipView]
    levels: MeterSnapshot | None
    metrics: EngineSnapshot
    error: str | None  # the last problem the control thread met
    sounds: Sequence[SoundView] = ()  # sound clips on the sound lanes
    checks: Mapping[str, LineResult] = field(default_factory=lambda: NO_CHECKS)  # line id -> the speech check of the clip it has now
    fixing: FixProgress | None = None  # the latest "Fix flagged lines"

    @property
    def voiced_lines(self) -> int:
        """The lines of the project as it is now that have a clip: the one count of voiced
        lines (the status bar's and the monitor's); takes replaced or auditioned do not count."""
        return voiced_lines(self.line_status)

    @property
    def unvoiceable(self) -> list[str]:
        """The lines no clip will come for until the producer changes them, in no order."""
        return [line_id for line_id, status in self.line_status.items() if status.state.unvoiceable]


def voiced_lines(line_status: Mapping[str, LineStatus]) -> int:
    """How many lines have a clip (``line_status`` holds the project's lines, and only them)."""
    return sum(1 for status in line_status.values() if status.state is LineState.READY)


def waveform_peaks(clip: np.ndarray, columns: int) -> np.ndarray:
    """(columns, 2) min/max of a clip, for drawing its waveform."""
    n = clip.shape[0]
    out = np.zeros((columns, 2), dtype=np.float32)
    if n == 0:
        return out
    edges = np.minimum(np.linspace(0, n, columns + 1).astype(np.int64)[:-1], n - 1)
    out[:, 0] = np.minimum.reduceat(clip, edges)
    out[:, 1] = np.maximum.reduceat(clip, edges)
    return out
