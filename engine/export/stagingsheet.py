"""What the cue sheet says of staging: each line's (and placed effect's) room,
perspective and position, and where the rooms' reverberation is (in the role
stems; a placed effect's in its sound lane's stem, docs/user/staging.md)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.audio.staging import line_stages, sound_stages
from engine.project.model import Project
from engine.project.staging import LineStage
from engine.project.timeline import SoundPlacement

# Where a room's reverberation goes: each role's stem carries its staged voice, tail included.
REVERB_IN = "role stems"


def staging_summary(project: Project) -> dict[str, object]:
    """The cue sheet's top-level ``staging`` object (empty: nothing staged)."""
    if not line_stages(project):
        return {}
    return {"staging": {"reverb": REVERB_IN,
                        "rooms": {s.id: s.room.name for s in project.scenes if s.room is not None}}}


def line_staging(project: Project) -> dict[str, dict[str, object]]:
    """Per staged line: its room, perspective and the pan and distance it starts and ends at."""
    lines = {line.id: line for line in project.lines}
    return {line_id: _fields(stage, lines[line_id].perspective) for line_id, stage in line_stages(project).items()}


def sound_staging(project: Project, sounds: Sequence[SoundPlacement]) -> dict[str, dict[str, object]]:
    """Per placed effect: the same fields as a staged line's."""
    clips = {clip.id: clip for clip in project.sounds}
    stages = sound_stages(project, {p.clip_id: p.scene for p in sounds})
    return {clip_id: _fields(stage, clips[clip_id].perspective) for clip_id, stage in stages.items()}


def _fields(stage: LineStage, perspective: str) -> dict[str, object]:
    fields: dict[str, object] = {"room": stage.room.name if stage.room is not None else ""}
    if perspective:
        fields["perspective"] = perspective
    first, last = stage.path[0], stage.path[-1]
    fields["position"] = {"pan": [round(first[1], 3), round(last[1], 3)],
                          "distance": [round(first[2], 3), round(last[2], 3)]}
    return fields
