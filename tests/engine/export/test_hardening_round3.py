"""Issue 25, delivery formats and hand-offs: hostile role and lane names in the
Audacity labels and the REAPER project, an M4B chapter title cut inside a
UTF-8 character, a --cover that never ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mutagen
import rpp

from engine.project.fileformat import save_project
from engine.project.model import Scene
from engine.project.sound import SoundClip, SoundLane
from tests.support.hostile import tiny_project

REPO = Path(__file__).resolve().parents[3]
HOSTILE = ("AN\nNA\t1", "B\0EN\r\n\u2028X")


def render(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.cli", "render", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600)


def test_hostile_names_stay_one_label_and_one_field(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"], roles=HOSTILE, lines=4)
    project.sound_lanes = [SoundLane("F\nX\0")]
    project.sounds = [SoundClip("X1", "F\nX\0", cue="door\tslam\n", anchor="line_start", line="L2")]
    project.scenes[0].heading = "A\nroom\0"
    path = tmp_path / "names.radioplay"
    save_project(project, path)
    for daw in ("audacity", "reaper"):
        done = render(str(path), "-o", str(tmp_path / daw), "--daw", daw, "--no-stems")
        assert done.returncode == 0, done.stderr[-2000:]
    labels = (tmp_path / "audacity" / "names-labels.txt").read_text(encoding="utf-8").splitlines()
    assert len(labels) == 4 + 1 + 1  # one row per line, clip and scene (the old file had more rows than labels)
    for row in labels:
        start, end, text = row.split("\t")  # exactly three fields: no tab survived
        float(start), float(end)
        assert "\0" not in text and "\r" not in text and "\u2028" not in text
    assert labels[0].endswith("\tAN NA 1: Line number 1 of the hostile play.")
    rpp_text = (tmp_path / "reaper" / "names.rpp").read_text(encoding="utf-8")
    assert "\0" not in rpp_text and "\u2028" not in rpp_text
    tree = rpp.loads(rpp_text)
    names = [t.find("NAME")[1] for t in tree.findall("TRACK")]
    assert names == ["AN NA 1", "B EN X", "F X"]


def test_a_chapter_title_cut_inside_a_character_still_writes_the_m4b(tmp_path: Path,
                                                                     tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"], lines=4)
    long_title = "é" * 200  # 400 bytes of UTF-8: FFmpeg's 255 would fall inside a character
    project.scenes.append(Scene("S2", long_title))
    for line in project.lines[2:]:
        line.scene = "S2"
    path = tmp_path / "chapters.radioplay"
    save_project(project, path)
    done = render(str(path), "-o", str(tmp_path / "out"), "--container", "m4b", "--bitrate", "64", "--no-stems")
    assert done.returncode == 0, done.stderr[-2000:]
    media = mutagen.File(tmp_path / "out" / "mix.m4b")
    titles = [c.title for c in media.chapters]
    assert titles == ["A room", "é" * 127]  # 254 bytes: cut between characters


def test_a_cover_that_is_a_device_or_fifo_is_one_line_before_any_work(tmp_path: Path,
                                                                      tiny_voices: dict[str, Path]) -> None:
    path = tmp_path / "cover.radioplay"
    save_project(tiny_project(tiny_voices["single"]), path)
    done = render(str(path), "-o", str(tmp_path / "out"), "--container", "m4b", "--bitrate", "64", "--cover", "/dev/zero")
    assert done.returncode == 1  # the old code read /dev/zero until the kernel killed it
    assert done.stderr.strip() == "radioplay: error: --cover /dev/zero: cannot read: a device, not a regular file"
    assert not (tmp_path / "out" / "mix.m4b").exists()
