"""A role's voice design in the project file: stored, reloaded, located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.fileformat import ProjectFileError, load_project, project_to_dict, save_project
from engine.project.model import Line, Project, Role, VoiceParams

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
DESIGN = VoiceDesign(f0_shift=9.5, f0_range=1.2, f0_slope=-1.0, formant=1.17, breathiness=0.1, jitter=0.02,
                     tilt=1.5, rate=0.95, gain=2.0)


def project(design: VoiceDesign) -> Project:
    return Project(title="t", cast=[Role("ROSIE", voice=VoiceParams(design=design)), Role("TOM")],
                   lines=[Line("l1", "ROSIE", "Hello."), Line("l2", "TOM", "Hi.")])


def test_a_design_survives_save_and_load(tmp_path: Path) -> None:
    path = tmp_path / "show.radioplay"
    save_project(project(DESIGN), path)
    loaded = load_project(path)
    assert loaded.cast[0].voice.design == DESIGN
    assert loaded.cast[1].voice.design is NEUTRAL or loaded.cast[1].voice.design == NEUTRAL
    stored = json.loads(path.read_text())["cast"]
    assert stored[0]["voice"]["design"]["formant"] == 1.17
    assert "design" not in stored[1]["voice"]  # neutral: the file reads as before designs


def test_a_locked_take_keeps_its_design(tmp_path: Path) -> None:
    p = project(NEUTRAL)
    p.lines[0].locked = VoiceParams(design=DESIGN)
    path = tmp_path / "show.radioplay"
    save_project(p, path)
    assert load_project(path).lines[0].locked == VoiceParams(design=DESIGN)


def test_files_without_designs_load_neutral(tmp_path: Path) -> None:
    data = json.loads(next(SAMPLES.glob("*.radioplay")).read_text(encoding="utf-8"))
    for role in data["cast"]:
        role["voice"].pop("design", None)  # as a file written before voice design
    older = tmp_path / "older.radioplay"
    older.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_project(older)
    assert loaded.cast and all(r.voice.design == NEUTRAL for r in loaded.cast)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("formant", 3.0, "3.0 is out of range [0.7, 1.4]"),
    ("breathiness", "lots", "expected a number, got a string"),
    ("tilt", True, "expected a number"),
    ("pitchiness", 1.0, "unknown design field"),
])
def test_a_bad_design_field_is_one_line_naming_role_and_field(tmp_path: Path, field: str, value: object,
                                                               message: str) -> None:
    data = project_to_dict(project(DESIGN))
    data["cast"][0]["voice"]["design"][field] = value
    path = tmp_path / "bad.radioplay"
    path.write_text(json.dumps(data))
    with pytest.raises(ProjectFileError) as raised:
        load_project(path)
    text = str(raised.value)
    assert "\n" not in text
    assert f"cast[0].voice.design.{field}" in text and "role 'ROSIE'" in text and message in text
    assert str(path) in text


def test_a_design_that_is_not_an_object_is_located(tmp_path: Path) -> None:
    data = project_to_dict(project(DESIGN))
    data["cast"][0]["voice"]["design"] = [1, 2]
    path = tmp_path / "bad.radioplay"
    path.write_text(json.dumps(data))
    with pytest.raises(ProjectFileError, match=r"cast\[0\]\.voice\.design: role 'ROSIE': expected an object"):
        load_project(path)
