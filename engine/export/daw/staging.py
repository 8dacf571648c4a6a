"""Staging in the DAW hand-off: each staged line's pan and distance as
automation points on its role's track, and the role stems (the rendered
staging: perspective, position, movement and the room's tail) as tracks of
their own beside the dry lines.

Points are (seconds, pan -1..1, distance m): one at each keyframe of each
staged line (its start, its end, and any keyframe between for movement),
so between lines the envelope holds where the last line left it.
"""

from __future__ import annotations

from engine.audio.rooms import shared_responses
from engine.audio.staging import line_stages
from engine.project.model import Project
from engine.project.staging import REFERENCE_DISTANCE_M
from engine.project.timeline import Placement

Point = tuple[float, float, float]


def automation(project: Project, placements: list[Placement]) -> dict[str, list[Point]]:
    """Role -> its pan and distance points in time order (roles with a staged line)."""
    stages = line_stages(project)
    points: dict[str, list[Point]] = {}
    for p in sorted(placements, key=lambda p: p.start):
        stage = stages.get(p.line_id)
        if stage is None:
            continue
        keys = stage.path if len(stage.path) > 1 else (stage.path[0], (1.0, *stage.path[0][1:]))
        track = points.setdefault(p.role, [])
        track += [(p.start + at * (p.end - p.start), pan, distance) for at, pan, distance in keys]
    return points


def distance_gain(distance: float) -> float:
    """The direct sound's gain at a distance (the stager's inverse distance law, no nearer than 0.3 m)."""
    return REFERENCE_DISTANCE_M / max(distance, 0.3)


def tail_s(project: Project) -> float:
    """How long the longest room rings after a line (a staged stem runs this far past the last line)."""
    rooms = {stage.room for stage in line_stages(project).values() if stage.room is not None and stage.reverb > 0}
    rate = project.sample_rate
    return max((shared_responses().response(room, rate).shape[0] / rate for room in rooms), default=0.0)
