"""Where each line sits in time.

Lines follow each other with the project's gaps (a longer one at a scene
change) plus each line's own ``pause_before``. Overlaps: a line with an
explicit ``start`` is pinned there; ``with_previous`` starts it with the
previous line; ``overlap`` starts it that long before the previous line ends.
The next line always follows whichever line ended last.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from engine.project.defaults import PAUSE_RANGE
from engine.project.model import Line, Project

# Before a clip exists its length is estimated from the text (about 14
# characters per second for these voices at speed 1.0).
CHARS_PER_SECOND = 14.0

# Bounds of a layout anyone could mean. A pause longer than ten minutes is a
# typo; a pinned start past a day, or one leaving more than an hour of silence
# after everything before it, is a mistake (hours instead of minutes) that
# would render hours of silence and fill the disk before anyone noticed.
MAX_PAUSE_S = PAUSE_RANGE[1]
MAX_START_S = 24 * 3600.0
MAX_SILENCE_S = 3600.0


@dataclass(frozen=True)
class Placement:
    line_id: str
    role: str
    start: float
    end: float

    @property
    def duration(self) -> float:
        return self.end - self.start


def estimate_duration(text: str, speed: float = 1.0) -> float:
    return max(0.3, len(text) / CHARS_PER_SECOND / max(speed, 0.05))


def layout(project: Project, durations: Mapping[str, float],
           starts: Mapping[str, float] | None = None) -> list[Placement]:
    """Place every line; ``durations`` maps line id -> seconds (estimated if absent).

    ``starts`` pins lines to times for one playback pass only (a late line
    starts where the playhead was when its clip arrived); later lines follow
    it as they would follow an explicit ``start``."""
    return list(_place(project, project.lines, durations, starts))


def start_if(project: Project, durations: Mapping[str, float], line_id: str,
             placement: Mapping[str, object]) -> float:
    """Where ``line_id`` would start if its placement fields (``start``,
    ``overlap``, ``with_previous``, ``pause_before``) were ``placement``: the
    what-if a clip drag asks before it chooses how to record the move. Pure:
    the project is not changed, and lines after this one are not placed."""
    lines: list[Line] = []
    for line in project.lines:
        if line.id == line_id:
            lines.append(replace(line, **placement))  # type: ignore[arg-type]
            break
        lines.append(line)
    else:
        raise KeyError(f"unknown line {line_id!r}")
    *_, last = _place(project, lines, durations, None)
    return last.start


def _place(project: Project, lines: Iterable[Line], durations: Mapping[str, float],
           starts: Mapping[str, float] | None) -> Iterator[Placement]:
    speeds = {r.name: r.voice.speed for r in project.cast}
    previous: Placement | None = None
    cursor = 0.0
    previous_scene: str | None = None
    for index, line in enumerate(lines):
        duration = durations.get(line.id)
        if duration is None:
            duration = estimate_duration(line.text, speeds.get(line.role, 1.0))
        if starts is not None and line.id in starts:
            start = starts[line.id]
        elif line.start is not None:
            start = line.start
        elif line.with_previous and previous is not None:
            start = previous.start + line.pause_before
        else:
            gap = 0.0
            if index > 0:
                gap = project.timing.scene_gap if line.scene != previous_scene else project.timing.line_gap
            start = cursor + gap + line.pause_before
            if line.overlap and previous is not None:
                start = max(previous.start, previous.end - line.overlap)
        previous = Placement(line.id, line.role, start, start + duration)
        yield previous
        cursor = max(cursor, previous.end)
        previous_scene = line.scene


def impossible_start(project: Project) -> tuple[int, str] | None:
    """The first line whose pinned ``start`` leaves more than ``MAX_SILENCE_S``
    of silence after every line before it ends (lengths estimated from the
    text), as (index, problem); None when the layout is one a person means."""
    placements = layout(project, {})
    end = 0.0
    for index, (line, placed) in enumerate(zip(project.lines, placements, strict=True)):
        if line.start is not None and line.start - end > MAX_SILENCE_S:
            return index, (f"{line.start:g} s leaves {_clock(line.start - end)} of silence after the lines "
                           f"before it (they end near {_clock(end)}); at most {_clock(MAX_SILENCE_S)} is allowed")
        end = max(end, placed.end)
    return None


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def total_duration(placements: list[Placement]) -> float:
    return max((p.end for p in placements), default=0.0)
