"""Issue 52's must-show on a storm script of its kind, through the commands a producer runs:
``radioplay import``, ``radioplay sounds --accept`` (the scene's weather beds) and
``radioplay render``, measured on the written stems (FFT band energies, each line's tail
in its role's stem, the sound stem's level in each scene), not with the product's code."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

from engine.cli import main
from engine.project.fileformat import load_project

SCRIPT = """\
Title: The Light

INT. LIGHTHOUSE LAMP ROOM - NIGHT

The great lens turns.

MORAG (V.O.)
(on radio)
Kilbrae light, Kilbrae light, this is Stornoway coastguard. Do you read, over?

ELSIE
Stornoway, this is Kilbrae. I read you loud and clear. Go ahead.

EXT. LIGHTHOUSE GALLERY - NIGHT

The storm at full force. Rain and wind batter the gallery rail.

ELSIE
Not while this light turns, they will not. Fetch the big lamp, Tam.

TAM
There is a green light out there, off the north skerry, drifting east.
"""


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("storm")
    script = folder / "light.fountain"
    script.write_text(SCRIPT, encoding="utf-8")
    project_file = folder / "light.radioplay"
    out = folder / "out"
    assert main(["import", str(script), "-o", str(project_file)]) == 0
    beds = [s.id for s in load_project(project_file).sound_suggestions if s.kind == "bed" and s.file]
    assert beds, "the storm's beds found no sound in the bundled library"
    assert main(["sounds", str(project_file), "--accept", *beds]) == 0
    assert main(["render", str(project_file), "-o", str(out)]) == 0
    project = load_project(project_file)
    cues = json.loads((out / "cues.json").read_text(encoding="utf-8"))["cues"]
    lines = [c for c in cues if c["kind"] == "line"]
    stems = {role: sf.read(out / "stems" / f"{role}.wav", dtype="float64") for role in ("MORAG", "ELSIE", "TAM")}
    fx = sf.read(out / "dme" / "FX.wav", dtype="float64")
    return {"project": project, "lines": lines, "stems": stems, "fx": fx}


def _span(stem: tuple[np.ndarray, int], start: float, end: float) -> np.ndarray:
    audio, rate = stem
    return audio[int(start * rate):int(end * rate)].mean(axis=1)


def _db(a: float, b: float) -> float:
    return float(10 * np.log10(max(a, 1e-30) / max(b, 1e-30)))


@pytest.mark.integration
def test_the_radio_voice_is_band_limited_in_its_stem(rendered: dict) -> None:  # type: ignore[type-arg]
    project = rendered["project"]
    assert [(line.role, line.perspective) for line in project.lines][0] == ("MORAG", "radio")
    cue = rendered["lines"][0]
    stem = rendered["stems"]["MORAG"]
    mono = _span(stem, cue["start"], cue["end"])
    power = np.abs(np.fft.rfft(mono)) ** 2
    freqs = np.fft.rfftfreq(mono.shape[0], 1 / stem[1])
    inside = power[(freqs >= 300) & (freqs <= 3400)].sum()
    assert _db(power[(freqs > 20) & (freqs < 300)].sum(), inside) <= -20.0
    assert _db(power[freqs > 3400].sum(), inside) <= -20.0


@pytest.mark.integration
def test_outside_on_the_gallery_nothing_rings_after_a_line_and_inside_it_does(rendered: dict) -> None:  # type: ignore[type-arg]
    project = rendered["project"]
    rooms = [(s.room.name if s.room else "", s.room.outdoor if s.room else None) for s in project.scenes]
    assert rooms == [("lamp room", False), ("gallery", True)]

    def tail_db(index: int) -> float:
        """The role's stem 100-500 ms after the line against the line (energy per sample)."""
        cue = rendered["lines"][index]
        stem = rendered["stems"][cue["role"]]
        line = _span(stem, cue["start"], cue["end"])
        after = _span(stem, cue["end"] + 0.1, cue["end"] + 0.5)
        return _db(float(np.mean(after ** 2)), float(np.mean(line ** 2)))

    inside, outside = tail_db(1), tail_db(2)  # ELSIE in the lamp room, ELSIE on the gallery
    assert inside > -45.0 and outside < -90.0, (inside, outside)


@pytest.mark.integration
def test_the_storms_bed_plays_under_the_gallery_and_not_in_the_lamp_room(rendered: dict) -> None:  # type: ignore[type-arg]
    project = rendered["project"]
    accepted = [s for s in project.sound_suggestions if s.state == "accepted"]
    assert {s.sound for s in accepted} >= {"wind", "rain"} and {s.scene for s in accepted} == {"S2"}
    scene_of = {line.id: line.scene for line in project.lines}
    lines = rendered["lines"]
    lamp = [c for c in lines if scene_of[c["id"]] == "S1"]
    gallery = [c for c in lines if scene_of[c["id"]] == "S2"]

    def level(cues: list[dict]) -> float:  # type: ignore[type-arg]
        span = _span(rendered["fx"], cues[0]["start"], cues[-1]["end"])
        return float(10 * np.log10(np.mean(span ** 2) + 1e-30))

    assert level(gallery) > -40.0 and level(lamp) < -100.0, (level(gallery), level(lamp))
    # Outside in the storm the lines are raised over it.
    assert all("over the storm" in line.note for line in project.lines if line.scene == "S2")
