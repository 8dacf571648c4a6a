"""Where each line and each sound clip sits in time.

Lines follow each other with the project's gaps (a longer one at a scene
change) plus each line's own ``pause_before``. Overlaps: a line with an
explicit ``start`` is pinned there; ``with_previous`` starts it with the
previous line; ``overlap`` starts it that long before the previous line ends.
The next line always follows whichever line ended last.

Sound clips are laid out by the same pass (engine/project/sound.py): a cue
stands between two lines, where the next line would have started; a
one-shot there is followed by the next line as a line would be (unless it
overlaps), and a bed there plays its ``lead`` in the clear first. Clips
anchored to a line's start or end, or pinned to a time, move no line. A
bed's end (an OUT cue, the next clip on its lane, the end of its scene, a
length) is resolved once every start is known.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from engine.project.defaults import PAUSE_RANGE, PLACEHOLDER_EFFECT_S
from engine.project.direction import lead_pause
from engine.project.model import Line, Project
from engine.project.sound import SoundClip

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


@dataclass(frozen=True)
class SoundPlacement:
    clip_id: str
    lane: str
    start: float
    end: float
    placeholder: bool = False
    scene: str | None = None  # the scene it plays in (its room stages a placed effect)

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass
class _Cues:
    """Cue-anchored clips by the line they stand before, and what the pass learns."""

    before: dict[str, list[SoundClip]]
    trailing: list[SoundClip]
    durations: Mapping[str, float]
    starts: dict[str, float]  # clip id -> start (every anchor)
    points: dict[str | None, float]  # line id (None: after the last) -> where its cues stand
    scene_of: dict[str, str | None]  # clip id -> the scene it plays in


def _cues(project: Project, durations: Mapping[str, float]) -> _Cues:
    ids = {line.id for line in project.lines}
    before: dict[str, list[SoundClip]] = {}
    trailing: list[SoundClip] = []
    for clip in project.sounds:
        if clip.anchor != "cue":
            continue
        if clip.line is not None and clip.line in ids:
            before.setdefault(clip.line, []).append(clip)
        else:
            trailing.append(clip)
    return _Cues(before, trailing, durations, {}, {}, {})


def sound_length(clip: SoundClip, file_s: float | None) -> float:
    """How long a one-shot holds the timeline: its length, else its file's."""
    if clip.length is not None:
        return clip.length
    return file_s if file_s is not None else PLACEHOLDER_EFFECT_S


def estimate_duration(text: str, speed: float = 1.0) -> float:
    return max(0.3, len(text) / CHARS_PER_SECOND / max(speed, 0.05))


def layout(project: Project, durations: Mapping[str, float],
           starts: Mapping[str, float] | None = None,
           sound_durations: Mapping[str, float] | None = None) -> list[Placement]:
    """Place every line; ``durations`` maps line id -> seconds (estimated if absent).

    ``starts`` pins lines to times for one playback pass only (a late line
    starts where the playhead was when its clip arrived); later lines follow
    it as they would follow an explicit ``start``."""
    return list(_place(project, project.lines, durations, starts, _cues(project, sound_durations or {})))


def layout_all(project: Project, durations: Mapping[str, float], sound_durations: Mapping[str, float] | None = None,
               starts: Mapping[str, float] | None = None) -> tuple[list[Placement], list[SoundPlacement]]:
    """Lines and sound clips, placed by one pass. ``sound_durations`` maps a
    clip id to its file's length in seconds (placeholders: absent)."""
    cues = _cues(project, sound_durations or {})
    lines = list(_place(project, project.lines, durations, starts, cues))
    return lines, _sound_placements(project, lines, cues)


def start_if(project: Project, durations: Mapping[str, float], line_id: str,
             placement: Mapping[str, object], sound_durations: Mapping[str, float] | None = None) -> float:
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
    *_, last = _place(project, lines, durations, None, _cues(project, sound_durations or {}))
    return last.start


def _place(project: Project, lines: Iterable[Line], durations: Mapping[str, float],
           starts: Mapping[str, float] | None, cues: _Cues | None = None) -> Iterator[Placement]:
    speeds = {r.name: r.voice.speed for r in project.cast}
    previous: Placement | None = None
    cursor = 0.0
    previous_scene: str | None = None
    for index, line in enumerate(lines):
        duration = durations.get(line.id)
        if duration is None:
            duration = estimate_duration(line.text, speeds.get(line.role, 1.0))
        gap = 0.0
        if index > 0:
            gap = project.timing.scene_gap if line.scene != previous_scene else project.timing.line_gap
        if cues is not None:
            cursor, gap = _place_cues(project, cues, line.id, line.scene, cursor, gap)
        if starts is not None and line.id in starts:
            start = starts[line.id]
        elif line.start is not None:
            start = line.start
        elif line.with_previous and previous is not None:
            start = previous.start + line.pause_before
        else:
            start = cursor + gap + line.pause_before + lead_pause(line.text, line.note, project.timing)
            if line.overlap and previous is not None:
                start = max(previous.start, previous.end - line.overlap)
        previous = Placement(line.id, line.role, start, start + duration)
        yield previous
        cursor = max(cursor, previous.end)
        previous_scene = line.scene
    if cues is not None:
        _place_cues(project, cues, None, previous_scene, cursor, project.timing.line_gap if previous else 0.0)


def _place_cues(project: Project, cues: _Cues, line_id: str | None, scene: str | None,
                cursor: float, gap: float) -> tuple[float, float]:
    """Place the clips whose cues stand before ``line_id``; returns the cursor
    and gap the line then follows with."""
    point = cursor + gap
    cues.points[line_id] = point
    lanes = {lane.name: lane.kind for lane in project.sound_lanes}
    for clip in cues.before.get(line_id, []) if line_id is not None else cues.trailing:
        start = max(0.0, point + clip.offset)
        cues.starts[clip.id] = start
        cues.scene_of[clip.id] = scene
        if lanes.get(clip.lane, "effects") == "effects":
            if not clip.overlap:
                cursor = max(cursor, start + sound_length(clip, cues.durations.get(clip.id)))
                gap = project.timing.line_gap
                point = cursor + gap
        elif clip.lead > 0:
            cursor, gap = max(cursor, start + clip.lead), 0.0
            point = cursor
    return cursor, gap


def _sound_placements(project: Project, lines: list[Placement], cues: _Cues) -> list[SoundPlacement]:
    by_id = {p.line_id: p for p in lines}
    scene_of_line = {line.id: line.scene for line in project.lines}
    end_of_scene: dict[str | None, float] = {}
    for p in lines:
        scene = scene_of_line.get(p.line_id)
        end_of_scene[scene] = max(end_of_scene.get(scene, 0.0), p.end)
    programme_end = max((p.end for p in lines), default=0.0)
    starts = cues.starts
    for clip in project.sounds:
        if clip.anchor == "cue":
            continue
        anchor = by_id.get(clip.line or "")
        if clip.anchor == "time" or anchor is None:
            starts[clip.id] = max(0.0, clip.offset)
            cues.scene_of[clip.id] = None
        else:
            at = anchor.start if clip.anchor == "line_start" else anchor.end
            starts[clip.id] = max(0.0, at + clip.offset)
            cues.scene_of[clip.id] = scene_of_line.get(anchor.line_id)
    lanes = {lane.name: lane.kind for lane in project.sound_lanes}
    by_lane: dict[str, list[float]] = {}
    for clip in project.sounds:
        by_lane.setdefault(clip.lane, []).append(starts[clip.id])
    for values in by_lane.values():
        values.sort()
    gap = project.timing.scene_gap

    def scene_end(clip: SoundClip) -> float:
        scene = cues.scene_of.get(clip.id)
        return end_of_scene[scene] + gap if scene in end_of_scene else programme_end + gap

    out = []
    for clip in project.sounds:
        start = starts[clip.id]
        if clip.end == "length" and clip.length is not None:
            end = start + clip.length
        elif clip.end == "out":
            end = cues.points.get(clip.out_line, programme_end + gap)
        elif clip.end == "scene":
            end = scene_end(clip)
        elif clip.end == "next":
            later = [s for s in by_lane[clip.lane] if s > start]
            end = min(later[0] if later else math.inf, scene_end(clip))
        elif lanes.get(clip.lane, "effects") == "effects" or clip.end == "file":
            end = start + sound_length(clip, cues.durations.get(clip.id))
        else:
            end = scene_end(clip)
        out.append(SoundPlacement(clip.id, clip.lane, start, max(start, end), clip.placeholder,
                                  _heard_in(clip, cues, lines, scene_of_line)))
    return out


def _heard_in(clip: SoundClip, cues: _Cues, lines: list[Placement], scene_of_line: Mapping[str, str | None],
              ) -> str | None:
    """The scene whose room a clip is heard in: its cue's or anchor line's; else
    (pinned to a time, a cue after the last line) the scene of the last line
    begun by its start (its end is still worked out as before, above)."""
    scene = cues.scene_of.get(clip.id)
    if scene is not None:
        return scene
    begun = [p for p in lines if p.start <= cues.starts[clip.id]]
    return scene_of_line.get(max(begun, key=lambda p: p.start).line_id) if begun else None


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
