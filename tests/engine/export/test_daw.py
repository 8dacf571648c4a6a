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
from tests.support.projects import tiny_project


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


@pytest.fixture
def sound_project(tmp_path, tiny_voices):
    """Dialogue with an effect, an ambience bed (looped past its file) and a
    music sting, the files at 22.05 kHz (resampled for the render), one a placeholder."""
    import numpy as np

    from engine.project.sound import SoundClip, SoundLane

    project = tiny_project(tiny_voices["single"])
    folder = tmp_path / "sounds"
    folder.mkdir()
    t = np.arange(int(0.8 * 22050)) / 22050
    sf.write(folder / "door.wav", (0.3 * np.sin(2 * np.pi * 440 * t)).astype("float32"), 22050)
    sf.write(folder / "rain.wav", (0.1 * np.sin(2 * np.pi * 220 * t)).astype("float32"), 22050)
    project.sound_lanes = [SoundLane.of_kind(k) for k in ("effects", "ambience", "music")]
    fx, amb, mx = (lane.name for lane in project.sound_lanes)
    project.sound_lanes[0] = SoundLane(fx, "effects", gain_db=-3.0, pan=-0.5)
    project.sounds = [
        SoundClip("S1", fx, cue="door slams", file="sounds/door.wav", line="L0002"),
        SoundClip("S2", amb, cue="rain", file="sounds/rain.wav", anchor="line_start", line="L0001",
                  loop=True, end="length", length=3.0, fade_in=0.2, fade_out=0.5),
        SoundClip("S3", mx, cue="sting", file="sounds/door.wav", anchor="time", offset=1.25, gain_db=-6.0),
        SoundClip("S4", fx, cue="thunder (to find)", line="L0004"),
    ]
    path = tmp_path / "Sound play.radioplay"
    save_project(project, path)
    return path


def test_sound_lanes_hand_off_as_tracks_with_an_item_per_clip(tmp_path, sound_project, capsys):
    out = tmp_path / "out"
    assert main(["render", str(sound_project), "-o", str(out), "--daw", "reaper", "--no-stems"]) == 0
    capsys.readouterr()
    project = load_project(sound_project)
    sounds = {c["id"]: c for c in _cues(out) if c["kind"] in ("sfx", "ambience", "music")}
    assert sorted(sounds) == ["S1", "S2", "S3", "S4"]
    tracks = rpp.loads((out / "Sound_play.rpp").read_text()).findall("TRACK")
    lanes = [lane.name for lane in project.sound_lanes]
    assert [t.find("NAME")[1] for t in tracks] == [r.name for r in project.cast] + lanes
    fx = tracks[len(project.cast)]
    assert abs(float(fx.find("VOLPAN")[1]) - 10 ** (-3 / 20)) < 1e-6 and float(fx.find("VOLPAN")[2]) == -0.5
    seen = 0
    for track in tracks[len(project.cast):]:
        for item in track.findall("ITEM"):
            cue = sounds[item.find("IGUID")[1].strip("{}")]
            assert track.find("NAME")[1] == cue["lane"]
            assert abs(float(item.find("POSITION")[1]) - cue["start"]) < 0.001
            assert abs(float(item.find("LENGTH")[1]) - (cue["end"] - cue["start"])) < 0.001
            source = out / item.find("SOURCE").find("FILE")[1]
            assert source.parent == out / "sound-clips" and source.is_file()
            audio, rate = sf.read(source, dtype="float32")
            assert rate == 48_000 and abs(len(audio) / rate - float(item.find("LENGTH")[1])) < 1e-6
            # The clip as the mix played it: a placeholder is the library's match, or silence.
            assert (float(abs(audio).max()) > 0.01) == bool(cue["file"])
            if cue["id"] == "S2":  # looped past its 0.8 s file, with its fades baked in
                assert abs(len(audio) / rate - 3.0) < 0.001 and abs(audio[-1]).max() < 0.01
                assert float(abs(audio[int(2.4 * rate):int(2.5 * rate)]).max()) > 0.05
            seen += 1
    assert seen == 4


def test_sound_clips_in_audacity_and_otio(tmp_path, sound_project, capsys):
    cues: dict[str, dict] = {}
    for kind in ("audacity", "otio"):
        out = tmp_path / kind
        assert main(["render", str(sound_project), "-o", str(out), "--daw", kind, "--no-stems"]) == 0
        capsys.readouterr()
        cues = {c["id"]: c for c in _cues(out) if c["kind"] != "line"}
        if kind == "audacity":
            entries = [e for e in (out / "Sound_play.lof").read_text().splitlines() if "sound-clips/" in e]
            assert len(entries) == 4
            for entry in entries:
                file, offset = entry.split('"')[1], float(entry.rsplit(" ", 1)[1])
                assert (out / file).is_file() and abs(offset - cues[file.rsplit("_", 1)[1][:-4]]["start"]) < 0.001
            labels = (out / "Sound_play-labels.txt").read_text()
            assert "\tdoor slams" not in labels and ": door slams\n" in labels
        else:
            timeline = otio.adapters.read_from_file(str(out / "Sound_play.otio"))
            seen = set()
            for track in timeline.audio_tracks():
                for clip in track.find_clips():
                    if clip.name not in cues:
                        continue
                    span = track.range_of_child(clip)
                    cue = cues[clip.name]
                    assert abs(span.start_time.to_seconds() - cue["start"]) < 0.001
                    assert abs(span.duration.to_seconds() - (cue["end"] - cue["start"])) < 0.001
                    assert track.name.startswith(cue["lane"]) and (out / clip.media_reference.target_url).is_file()
                    seen.add(clip.name)
            assert seen == set(cues)
