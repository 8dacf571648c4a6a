"""Hand-off to a DAW, read back with the formats' own readers (the rpp
package for REAPER, opentimelineio) and compared with cues.json."""

from __future__ import annotations

import json
from pathlib import Path

import opentimelineio as otio
import pytest
import rpp
import soundfile as sf

from engine.cli import main
from engine.project.fileformat import load_project, save_project
from engine.project.model import Role, Scene
from tests.conftest import tiny_project


@pytest.fixture
def daw_project(tmp_path, tiny_voices):
    project = tiny_project(tiny_voices["single"])
    project.scenes.append(Scene("S2", "The hall"))
    for line in project.lines[3:]:
        line.scene = "S2"
    project.cast[1].gain_db, project.cast[1].pan, project.cast[2].mute = -6.0, 0.75, True
    project.cast.append(Role('A "quoted" /../role', voice=project.cast[0].voice))
    project.lines[-1].role = project.cast[-1].name
    project.lines[-1].text = "Hello, I'm \"quoted\"."
    path = tmp_path / "My play.radioplay"
    save_project(project, path)
    return path


def _cues(out: Path) -> list[dict]:
    return json.loads((out / "cues.json").read_text())["cues"]


def test_reaper_project_is_the_cue_sheet_timeline(tmp_path, daw_project):
    out = tmp_path / "out"
    assert main(["render", str(daw_project), "-o", str(out), "--daw", "reaper", "--no-stems"]) == 0
    project = rpp.loads((out / "My_play.rpp").read_text())
    tracks = project.findall("TRACK")
    cast = load_project(daw_project).cast
    assert [t.find("NAME")[1] for t in tracks] == [r.name for r in cast]
    volpan = {t.find("NAME")[1]: t.find("VOLPAN") for t in tracks}
    assert abs(float(volpan["ROLE1"][1]) - 10 ** (-6 / 20)) < 1e-6 and float(volpan["ROLE1"][2]) == 0.75
    assert [t.find("MUTESOLO")[1] for t in tracks] == ["0", "0", "1", "0"]
    cues = _cues(out)
    items = {}
    for track in tracks:
        for item in track.findall("ITEM"):
            items[item.find("IGUID")[1].strip("{}")] = (track.find("NAME")[1], item)
    assert len(items) == len(cues) == 6
    for cue in cues:
        role, item = items[cue["id"]]
        assert role == cue["role"]
        assert abs(float(item.find("POSITION")[1]) - cue["start"]) < 0.001
        assert abs(float(item.find("LENGTH")[1]) - (cue["end"] - cue["start"])) < 0.001
        source = out / item.find("SOURCE").find("FILE")[1]
        assert source.parent == out / "lines" and source.is_file()
        assert abs(sf.info(source).duration - float(item.find("LENGTH")[1])) < 1e-6
    markers = project.findall("MARKER")
    scenes = [m for m in markers if m[4] == "0"]
    regions = [m for m in markers if m[4] == "1"]
    assert [m[3] for m in scenes] == ["A room", "The hall"] and len(regions) == 4
    first_in_hall = min(c["start"] for c in cues if c["id"] in {"L0004", "L0005", "L0006"})
    assert abs(float(scenes[1][2]) - first_in_hall) < 0.001


def test_audacity_list_and_labels(tmp_path, daw_project):
    out = tmp_path / "out"
    assert main(["render", str(daw_project), "-o", str(out), "--daw", "audacity", "--no-stems"]) == 0
    cues = {c["id"]: c for c in _cues(out)}
    entries = (out / "My_play.lof").read_text().splitlines()
    assert len(entries) == 6
    for entry in entries:
        _, file, _, offset = entry.split('"')[0], entry.split('"')[1], None, float(entry.rsplit(" ", 1)[1])
        line_id = file.rsplit("_", 1)[1].removesuffix(".wav")
        assert (out / file).is_file() and abs(offset - cues[line_id]["start"]) < 0.001
    labels = [row.split("\t") for row in (out / "My_play-labels.txt").read_text().splitlines()]
    spoken = [row for row in labels if not row[2].startswith("[")]
    assert len(spoken) == 6 and spoken[-1][2] == 'A "quoted" /../role: Hello, I\'m "quoted".'


def test_otio_timeline_reads_back(tmp_path, daw_project):
    out = tmp_path / "out"
    assert main(["render", str(daw_project), "-o", str(out), "--daw", "otio", "--no-stems"]) == 0
    timeline = otio.adapters.read_from_file(str(out / "My_play.otio"))
    cues = {c["id"]: c for c in _cues(out)}
    seen = 0
    for track in timeline.audio_tracks():
        for clip in track.find_clips():
            cue = cues[clip.name]
            span = track.range_of_child(clip)
            assert abs(span.start_time.to_seconds() - cue["start"]) < 0.001
            assert abs(span.duration.to_seconds() - (cue["end"] - cue["start"])) < 0.001
            assert (out / clip.media_reference.target_url).is_file() and track.name.startswith(cue["role"])
            seen += 1
    assert seen == 6
    assert [m.name for m in timeline.tracks.markers] == ["A room", "The hall"]
