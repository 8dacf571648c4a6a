"""Staging in the ``.radioplay`` file: a scene's ``room``, a line's (and an
effect clip's) ``perspective`` and ``position``.

Kept beside :mod:`engine.project.fileformat`, which calls it. Every key is
optional and written only when set, so files from before staging load
unchanged (their scenes have no room and their lines are dry) and a project
without staging saves as it did. Problems name the JSON path
(``scenes[2].room.rt60: 40 is out of range [0.05, 12]``).
"""

from __future__ import annotations

from typing import Any

from engine.project.defaults import PAN_RANGE
from engine.project.formatreader import Reader
from engine.project.model import Line, Scene
from engine.project.staging import (
    DISTANCE_RANGE,
    PERSPECTIVES,
    ROOM_SIDE_RANGE,
    RT60_RANGE,
    WALLS_RANGE,
    Position,
    Room,
)

_PERSPECTIVE_CHOICES = {"": "as the role is", **{name: name for name in PERSPECTIVES}}


def scene_staging_to_dict(scene: Scene) -> dict[str, Any]:
    if scene.room is None:
        return {}
    room = scene.room
    d: dict[str, Any] = {"room": {"name": room.name, "size": list(room.size), "rt60": room.rt60,
                                  "early_reflections": room.early_reflections, "outdoor": room.outdoor}}
    if room.absorption is not None:
        d["room"]["absorption"] = room.absorption
    if room.outdoor:
        d["room"]["walls"] = room.walls
    if scene.room_evidence:
        d["room_evidence"] = scene.room_evidence
    return d


def scene_staging_from_dict(r: Reader, d: dict[str, Any], path: str) -> dict[str, Any]:
    """The Scene fields of a scene object's staging keys."""
    if d.get("room") is None:
        return {}
    where = f"{path}.room"
    rd = r.obj(d["room"], where)
    size = r.items(rd.get("size", list(Room().size)), f"{where}.size")
    if len(size) != 3:
        raise r.fail(f"{where}.size", f"expected [length, width, height] in metres, got {len(size)} numbers")
    sides = tuple(_side(r, v, f"{where}.size[{k}]") for k, v in enumerate(size))
    rt60 = float(r.num(rd, "rt60", where, Room().rt60, lo=RT60_RANGE[0], hi=RT60_RANGE[1]))
    outdoor = r.flag(rd, "outdoor", where, False)
    # A file from before ``walls`` was written: outdoors, the facades either side reflected
    # when the RT60 was 0.2 s or more (a street), none otherwise (a field).
    walls = r.num(rd, "walls", where, 2 if outdoor and rt60 >= 0.2 else 0, lo=WALLS_RANGE[0], hi=WALLS_RANGE[1])
    if walls != int(walls):
        raise r.fail(f"{where}.walls", f"expected a whole number of walls, got {walls!r}")
    room = Room(
        name=r.text(rd, "name", where, "custom", empty=False),
        size=(sides[0], sides[1], sides[2]),
        rt60=rt60,
        absorption=r.num(rd, "absorption", where, None, lo=0.01, hi=1.0, optional=True),
        early_reflections=r.flag(rd, "early_reflections", where, True),
        outdoor=outdoor,
        walls=int(walls) if outdoor else 0,
    )
    return {"room": room, "room_evidence": r.text(d, "room_evidence", path, "")}


def _side(r: Reader, value: Any, at: str) -> float:
    lo, hi = ROOM_SIDE_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise r.fail(at, f"expected a side of {lo:g} to {hi:g} metres, got {value!r}")
    return float(value)


def line_staging_to_dict(line: Line) -> dict[str, Any]:
    placed = placement_to_dict(line.perspective, line.position)
    d = {key: placed[key] for key in ("perspective",) if key in placed}
    if line.perspective_evidence:
        d["perspective_evidence"] = line.perspective_evidence
    return d | placed


def placement_to_dict(perspective: str, position: Position | None) -> dict[str, Any]:
    """A line's or a sound clip's ``perspective`` and ``position`` keys (only those set)."""
    d: dict[str, Any] = {}
    if perspective:
        d["perspective"] = perspective
    if position is not None:
        pd: dict[str, Any] = {}
        if position.pan is not None:
            pd["pan"] = position.pan
        if position.distance is not None:
            pd["distance"] = position.distance
        if position.path:
            pd["path"] = [list(key) for key in position.path]
        d["position"] = pd
    return d


def line_staging_from_dict(r: Reader, d: dict[str, Any], path: str) -> dict[str, Any]:
    """The Line fields of a line object's staging keys."""
    return {**placement_from_dict(r, d, path), "perspective_evidence": r.text(d, "perspective_evidence", path, "")}


def placement_from_dict(r: Reader, d: dict[str, Any], path: str) -> dict[str, Any]:
    """The ``perspective`` and ``position`` fields of a line or a sound clip object."""
    fields: dict[str, Any] = {
        "perspective": r.choice(d, "perspective", path, "", _PERSPECTIVE_CHOICES, "perspective"),
    }
    if d.get("position") is not None:
        where = f"{path}.position"
        pd = r.obj(d["position"], where)
        keys: list[tuple[float, float, float]] = []
        for k, key in enumerate(r.items(pd.get("path", []), f"{where}.path")):
            at = f"{where}.path[{k}]"
            values = r.items(key, at)
            if len(values) != 3:
                raise r.fail(at, f"expected [fraction of the line, pan, distance], got {len(values)} numbers")
            named = dict(zip(("at", "pan", "distance"), values, strict=True))
            keys.append((float(r.num(named, "at", at, lo=0.0, hi=1.0)),
                         float(r.num(named, "pan", at, lo=PAN_RANGE[0], hi=PAN_RANGE[1])),
                         float(r.num(named, "distance", at, lo=DISTANCE_RANGE[0], hi=DISTANCE_RANGE[1]))))
        if any(b[0] < a[0] for a, b in zip(keys, keys[1:], strict=False)):
            raise r.fail(f"{where}.path", "keyframes must be in order of their fraction of the line")
        fields["position"] = Position(
            pan=r.num(pd, "pan", where, None, lo=PAN_RANGE[0], hi=PAN_RANGE[1], optional=True),
            distance=r.num(pd, "distance", where, None, lo=DISTANCE_RANGE[0], hi=DISTANCE_RANGE[1], optional=True),
            path=tuple(keys),
        )
    return fields
