"""Staging in the project file: saved, loaded, old files unchanged, bad values named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.project.fileformat import (
    ProjectFileError,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from engine.project.model import Line, Project, Role, Scene
from engine.project.staging import ROOM_PRESETS, Position, Room


def _project() -> Project:
    custom = Room(name="custom", size=(9.0, 7.0, 4.0), rt60=1.2, absorption=0.2, early_reflections=False)
    return Project(
        cast=[Role("TOM")],
        scenes=[Scene("S1", "INT. KITCHEN", room=ROOM_PRESETS["kitchen"], room_evidence="heading says KITCHEN"),
                Scene("S2", "Somewhere", room=custom, room_evidence="set by hand"), Scene("S3", "Dry")],
        lines=[Line("L1", "TOM", "Hello.", scene="S1", perspective="off", perspective_evidence="(O.S.)"),
               Line("L2", "TOM", "Going.", scene="S2",
                    position=Position(pan=0.3, distance=2.0, path=((0.0, 0.3, 2.0), (1.0, -0.5, 8.0)))),
               Line("L3", "TOM", "Plain.", scene="S3")])


def test_staging_round_trips_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "p.radioplay"
    save_project(_project(), path)
    loaded = load_project(path)
    original = _project()
    assert [(s.room, s.room_evidence) for s in loaded.scenes] == [(s.room, s.room_evidence) for s in original.scenes]
    assert [(ln.perspective, ln.perspective_evidence, ln.position) for ln in loaded.lines] == \
        [(ln.perspective, ln.perspective_evidence, ln.position) for ln in original.lines]


def test_an_unstaged_project_writes_no_staging_keys() -> None:
    data = project_to_dict(Project(cast=[Role("TOM")], scenes=[Scene("S1")], lines=[Line("L1", "TOM", "Hi.", "S1")]))
    assert set(data["scenes"][0]) == {"id", "heading", "notes"}
    assert not {"perspective", "position", "perspective_evidence"} & set(data["lines"][0])


def test_a_file_from_before_staging_loads_dry() -> None:
    old = {"format_version": 2, "cast": [{"name": "TOM"}], "scenes": [{"id": "S1", "heading": "INT. CAVE"}],
           "lines": [{"id": "L1", "role": "TOM", "scene": "S1", "text": "Hi."}]}
    project = project_from_dict(old)
    assert project.scenes[0].room is None and project.lines[0].perspective == "" and project.lines[0].position is None


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: d["scenes"][0]["room"].update(rt60=40), "scenes[0].room.rt60: 40 is out of range"),
    (lambda d: d["scenes"][0]["room"].update(size=[3, 4]), "scenes[0].room.size: expected [length, width, height]"),
    (lambda d: d["scenes"][0]["room"]["size"].__setitem__(1, "wide"), "scenes[0].room.size[1]: expected a side of 1 to 200 metres, got 'wide'"),
    (lambda d: d["lines"][0].update(perspective="underwater"), "lines[0].perspective: unknown perspective 'underwater'"),
    (lambda d: d["lines"][1]["position"].update(pan=3), "lines[1].position.pan: 3 is out of range"),
    (lambda d: d["lines"][1]["position"]["path"].reverse(), "lines[1].position.path: keyframes must be in order"),
    (lambda d: d["lines"][1]["position"]["path"][0].append(1), "lines[1].position.path[0]: expected [fraction"),
])
def test_bad_staging_is_named_with_its_path(change, problem: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(json.dumps(project_to_dict(_project())))
    change(data)
    with pytest.raises(ProjectFileError) as caught:
        project_from_dict(data, "bad.radioplay")
    assert problem in str(caught.value) and str(caught.value).startswith("bad.radioplay: ")
