"""A staging edit is another programme: the memo of solved master gains must not
reuse the gain of the same lines staged otherwise."""

from __future__ import annotations

from dataclasses import replace

from engine.mixdown.memo import programme_key
from engine.project.model import Line, Project, Role, Scene
from engine.project.staging import ROOM_PRESETS, Position


def _key(project: Project) -> str:
    return programme_key(project, [], {}, ("none",), "clean", 48_000, -16.0, -1.0)


def test_room_perspective_and_position_are_in_the_programme_key() -> None:
    project = Project(cast=[Role("TOM")], scenes=[Scene("S1", "INT. KITCHEN", room=ROOM_PRESETS["kitchen"])],
                      lines=[Line("L1", "TOM", "Hello.", scene="S1")])
    first = _key(project)
    assert _key(project) == first
    project.lines[0].perspective = "off"
    off = _key(project)
    assert off != first
    project.lines[0].position = Position(distance=3.0)
    placed = _key(project)
    assert placed != off
    project.scenes[0] = replace(project.scenes[0], room=ROOM_PRESETS["cathedral"])
    assert _key(project) != placed
