"""What the cue sheet says of staging: each line's room and perspective, and
where the rooms' reverberation is (in the role stems, docs/user/staging.md)."""

from __future__ import annotations

from engine.audio.staging import line_stages
from engine.project.model import Project

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
    stages = line_stages(project)
    lines = {line.id: line for line in project.lines}
    out: dict[str, dict[str, object]] = {}
    for line_id, stage in stages.items():
        line = lines[line_id]
        fields: dict[str, object] = {"room": stage.room.name if stage.room is not None else ""}
        if line.perspective:
            fields["perspective"] = line.perspective
        first, last = stage.path[0], stage.path[-1]
        fields["position"] = {"pan": [round(first[1], 3), round(last[1], 3)],
                              "distance": [round(first[2], 3), round(last[2], 3)]}
        out[line_id] = fields
    return out
