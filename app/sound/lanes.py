"""Sound lanes on the timeline: under the cast lanes, their clips, and moving them.

The timeline (app/timeline/view.py) draws lanes and clips of any kind; this module
turns the project's sound lanes and the Session's sound clips
(:class:`engine.session.SoundView`) into them: a lane is of kind
:attr:`LaneKind.SOUND` (what the studio's drop, trim and menus go by) and keyed
``♪ NAME`` (so its key never equals a role's), its header shows the ducking, a
placeholder is a dashed outline with its cue, and a clip whose file cannot be
used is red with the reason in its tooltip. A dropped sound clip keeps its
kind of anchor and moves its offset, or anchors to the line start or end it
was snapped onto. GUI thread only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from app.timeline.ruler import format_time
from app.timeline.scene import Lane, LaneKind
from engine.audio.staging import sound_stage
from engine.project.model import Project
from engine.project.sound import SoundClip, SoundLane
from engine.project.timeline import SoundPlacement, layout_all

PREFIX = "♪ "
KIND_COLOURS = {"effects": "#d08c3c", "ambience": "#4f9a8a", "music": "#8a6fd1"}
PROBLEM_COLOUR = "#e02424"


def lane_key(name: str) -> str:
    """The timeline's key of a sound lane (what its clips name as their ``role``)."""
    return PREFIX + name


def ducking_text(lane: SoundLane) -> str:
    d = lane.ducking
    return f"duck {d.depth_db:g}" if d.on else "no duck"


def sound_lanes(project: Project) -> list[Lane]:
    audible = project.audible_sound_lanes()
    return [Lane(lane_key(lane.name), KIND_COLOURS.get(lane.kind, "#888888"), lane.name not in audible,
                 detail=ducking_text(lane) if lane.kind != "effects" else "", kind=LaneKind.SOUND,
                 source=lane.name)
            for lane in project.sound_lanes]


@dataclass(frozen=True)
class SoundClipItem:
    """A sound clip as the timeline reads clips (``line_id`` is the clip id)."""

    line_id: str
    role: str
    start: float
    end: float
    estimated: bool
    colour: str | None = None
    problem: str | None = None


def timeline_clips(project: Project, views: Sequence[Any]) -> list[SoundClipItem]:
    """The Session's sound clips, or (before it reports any) the document's estimate."""
    if not views:
        _, placements = layout_all(project, {})
        views = [_Estimated(p) for p in placements]
    return [SoundClipItem(v.clip_id, lane_key(v.lane), v.start, v.end, bool(v.silent),
                          PROBLEM_COLOUR if v.problem else None, v.problem) for v in views]


class _Estimated:
    def __init__(self, p: SoundPlacement) -> None:
        self.clip_id, self.lane, self.start, self.end = p.clip_id, p.lane, p.start, p.end
        self.silent, self.problem = True, None


def labels(project: Project, views: Iterable[Any]) -> dict[str, str]:
    """What each sound clip says on the timeline: its cue, its file, or why it is silent."""
    problems = {v.clip_id: v.problem for v in views if getattr(v, "problem", None)}
    out = {}
    for clip in project.sounds:
        name = clip.file.rsplit("/", 1)[-1] if clip.file else "no sound yet"
        text = f"{clip.cue} ({name})" if clip.cue else name
        out[clip.id] = f"{text}\n{problems[clip.id]}" if clip.id in problems else text
    return out


def drop_fields(clip: SoundClip, views: Sequence[Any], line_clips: Iterable[Any],
                new_start: float, snap_tolerance: float = 0.002) -> dict[str, Any]:
    """The fields ``clip`` dropped at ``new_start`` gets: anchored to the start or end of the
    line (as the timeline shows it) it was snapped onto, else its anchor kept and its offset
    moved by the drag."""
    clip_id = clip.id
    current = next((v.start for v in views if v.clip_id == clip_id), None)
    for line in line_clips:
        for anchor, at in (("line_start", line.start), ("line_end", line.end)):
            if abs(at - new_start) <= snap_tolerance:
                return {"anchor": anchor, "line": line.line_id, "offset": 0.0}
    if current is None:
        return {"anchor": "time", "line": None, "offset": max(0.0, new_start)}
    return {"offset": round(clip.offset + (new_start - current), 4)}


def describe_drop(project: Project, clip: SoundClip, fields: dict[str, Any], new_start: float) -> str:
    """What dropping ``clip`` with ``fields`` (:func:`drop_fields`) does, in the producer's words."""
    if all(getattr(clip, key) == value for key, value in fields.items()):
        return "stays where it is"
    anchor = fields.get("anchor", clip.anchor)
    if anchor in ("line_start", "line_end") and fields.get("line"):
        role = project.line(fields["line"]).role
        return f"{clip.cue or 'sound'} starts at the {'start' if anchor == 'line_start' else 'end'} of {role}'s line"
    return f"{clip.cue or 'sound'} starts at {format_time(max(0.0, new_start), 1)}"


def staged_positions(project: Project) -> dict[str, tuple[tuple[float, float, float], ...]]:
    """The pan and distance keyframes the timeline draws on a placed effect's clip
    (as on a line's: app/timeline/position.py); ambience and music have none."""
    kinds = {lane.name: lane.kind for lane in project.sound_lanes}
    stages = ((clip.id, sound_stage(clip, kinds.get(clip.lane, "effects"), None)) for clip in project.sounds)
    return {clip_id: stage.path for clip_id, stage in stages if stage is not None}
