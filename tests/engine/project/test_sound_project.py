"""Sound design in the project: script cues in both importers (cues, never
roles), the timeline pass that places lines and sound clips together, and
the file format (version 2; version 1 files load unchanged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.project.fileformat import (
    FORMAT_VERSION,
    ProjectFileError,
    load_project,
    project_from_dict,
    save_project,
)
from engine.project.importers.build import build_project
from engine.project.importers.fountain import parse_fountain
from engine.project.importers.parsed import ScriptSyntaxError
from engine.project.importers.plaintext import parse_plaintext
from engine.project.model import Line, Project, Role
from engine.project.sound import SoundClip, SoundLane, parse_cue
from engine.project.timeline import layout, layout_all
from tests.support.paths import SAMPLES

SCRIPT = """# Title: Storm
# Scene 1 - The studio
AMBIENCE: rain on the glass
MUSIC: night theme
MAGGIE: Good evening.
sfx: thunder rolls
OWEN: That was close.
Music Out
MAGGIE: Back to the records.
# Scene 2 - The corridor
Fx: door knock
OWEN: Who's there?
"""


def imported(text: str = SCRIPT) -> Project:
    project, _ = build_project(parse_plaintext(text, "storm.txt"))
    return project


def test_plain_text_cues_are_cues_never_roles() -> None:
    project, report = build_project(parse_plaintext(SCRIPT, "storm.txt"))
    assert project.role_names() == ["MAGGIE", "OWEN"]
    assert [(lane.name, lane.kind) for lane in project.sound_lanes] == [
        ("FX", "effects"), ("AMBIENCE", "ambience"), ("MUSIC", "music")]
    assert report.cues == 4
    rain, theme, thunder, knock = project.sounds
    assert (rain.lane, rain.cue, rain.line, rain.loop, rain.end) == ("AMBIENCE", "rain on the glass", "L0001", True,
                                                                     "next")
    assert (theme.lane, theme.end, theme.line, theme.out_line) == ("MUSIC", "out", "L0001", "L0003")
    assert (thunder.lane, thunder.cue, thunder.line, thunder.end) == ("FX", "thunder rolls", "L0002", "file")
    assert (knock.cue, knock.line) == ("door knock", "L0004")
    assert all(clip.placeholder for clip in project.sounds)
    assert project.lines[3].scene == "S2"


def test_an_out_without_a_bed_is_a_warning_and_words_like_music_can_still_be_names() -> None:
    project, report = build_project(parse_plaintext("MUSIC OUT\nMUSICIAN: Hello.\nSOUNDMAN: Hi.\n", "x.txt"))
    assert project.role_names() == ["MUSICIAN", "SOUNDMAN"]
    assert any("MUSIC OUT with no music playing" in w for w in report.warnings)
    with pytest.raises(ScriptSyntaxError, match="expected 'NAME: text'"):
        parse_plaintext("SFX thunder\n", "x.txt")
    assert parse_cue("SFX OUT") is None and parse_cue("MUSIC: out") == parse_cue("MUSIC OUT")


def test_fountain_action_lines_starting_with_cue_words_are_cues() -> None:
    text = """INT. STUDIO - NIGHT

AMBIENCE: Rain on the glass.

Maggie leans into the microphone.
SFX: Thunder, close.

MAGGIE
Good evening.

MUSIC OUT

OWEN
Evening.
"""
    project, report = build_project(parse_fountain(text, "storm.fountain"))
    assert project.role_names() == ["MAGGIE", "OWEN"]
    assert [(c.lane, c.cue, c.line) for c in project.sounds] == [
        ("AMBIENCE", "Rain on the glass.", "L0001"), ("FX", "Thunder, close.", "L0001")]
    assert project.scenes[0].notes == ["Maggie leans into the microphone."]
    assert any("MUSIC OUT with no music" in w for w in report.warnings)


def durations(project: Project) -> dict[str, float]:
    return {line.id: 2.0 for line in project.lines}


def test_cues_are_laid_out_with_the_lines() -> None:
    project = imported()
    gap, scene_gap = project.timing.line_gap, project.timing.scene_gap
    lines, sounds = layout_all(project, durations(project), {"X0003": 4.0})
    at = {p.line_id: p for p in lines}
    clip = {p.clip_id: p for p in sounds}
    # The rain plays 1 s in the clear, then the music 3 s, then the first line.
    assert clip["X0001"].start == 0.0 and clip["X0002"].start == 1.0
    assert at["L0001"].start == pytest.approx(4.0)
    # The thunder stands where OWEN would have started; OWEN follows it as he would a line.
    assert clip["X0003"].start == pytest.approx(6.0 + gap)
    assert at["L0002"].start == pytest.approx(clip["X0003"].end + gap)
    # MUSIC OUT stands before MAGGIE's second line: the music ends where she would start.
    assert clip["X0002"].end == pytest.approx(at["L0003"].start)
    # The rain (no OUT) ends with its scene; scene 2's knock is a placeholder second.
    assert clip["X0001"].end == pytest.approx(at["L0003"].end + scene_gap)
    assert clip["X0004"].start == pytest.approx(at["L0003"].end + scene_gap)
    assert clip["X0004"].placeholder and clip["X0004"].duration == pytest.approx(1.0)
    assert at["L0004"].start == pytest.approx(clip["X0004"].end + gap)
    # layout() is the same pass: the lines sit where layout_all put them (placeholder lengths).
    _, placeholder_sounds = layout_all(project, durations(project))
    assert layout(project, durations(project)) == layout_all(project, durations(project))[0]
    assert {p.clip_id for p in placeholder_sounds} == {"X0001", "X0002", "X0003", "X0004"}


def test_overlapping_effects_line_anchors_and_pinned_clips_move_no_line() -> None:
    project = Project(cast=[Role("A")], lines=[Line("L1", "A", "one"), Line("L2", "A", "two")],
                      sound_lanes=[SoundLane.of_kind("effects"), SoundLane.of_kind("music")])
    bare = layout(project, {"L1": 2.0, "L2": 2.0})
    project.sounds = [
        SoundClip("X1", "FX", cue="bang", line="L2", overlap=True),
        SoundClip("X2", "FX", cue="door", anchor="line_end", line="L1", offset=-0.5),
        SoundClip("X3", "MUSIC", cue="sting", anchor="time", offset=7.0, loop=True, end="length", length=2.5),
        SoundClip("X4", "FX", cue="after", line=None),
    ]
    lines, sounds = layout_all(project, {"L1": 2.0, "L2": 2.0}, {"X1": 3.0, "X4": 0.5})
    assert lines == bare
    clip = {p.clip_id: p for p in sounds}
    assert clip["X1"].start == pytest.approx(2.0 + project.timing.line_gap)
    assert clip["X1"].duration == pytest.approx(3.0)
    assert clip["X2"].start == pytest.approx(1.5)
    assert (clip["X3"].start, clip["X3"].end) == (7.0, 9.5)
    assert clip["X4"].start == pytest.approx(bare[1].end + project.timing.line_gap)


def test_file_format_round_trip_relative_paths(tmp_path: Path) -> None:
    project = imported()
    sounds_dir = tmp_path / "sounds"
    project.sounds[0].file = str(sounds_dir / "rain.flac")  # inside the project folder: stored relative
    project.sounds[1].file = "/elsewhere/theme.wav"  # outside: kept absolute
    project.sounds[2].gain_db, project.sounds[2].fade_out = -4.0, 0.25
    project.sound_lanes[2].mute = True
    path = tmp_path / "storm.radioplay"
    save_project(project, path)
    data = json.loads(path.read_text())
    assert data["format_version"] == FORMAT_VERSION >= 2  # sound lanes came in version 2
    assert data["sounds"][0]["file"] == "sounds/rain.flac" and data["sounds"][1]["file"] == "/elsewhere/theme.wav"
    loaded = load_project(path)
    assert loaded.sound_lanes == project.sound_lanes
    assert loaded.sounds[0].file == "sounds/rain.flac"
    assert loaded.sounds[1:] == project.sounds[1:]


def test_version_1_files_load_unchanged(tmp_path: Path) -> None:
    project = project_from_dict({"format_version": 1, "cast": [{"name": "A"}],
                                 "lines": [{"id": "L1", "role": "A", "text": "hi"}]})
    assert project.sound_lanes == [] and project.sounds == []
    sample = load_project(SAMPLES / "the-last-broadcast.radioplay")
    assert sample.lines


@pytest.mark.parametrize("change, where, problem", [
    (lambda d: d["sounds"][0].update(lane="MUSIK"), "sounds[0].lane", "unknown sound lane 'MUSIK'"),
    (lambda d: d["sounds"][0].update(line="L9"), "sounds[0].line", "unknown line 'L9'"),
    (lambda d: d["sounds"][0].update(anchor="beat"), "sounds[0].anchor", "unknown anchor 'beat'"),
    (lambda d: d["sounds"][1].update(end="length"), "sounds[1].length", "an end 'length' needs a length"),
    (lambda d: d["sound_lanes"][0].update(kind="noise"), "sound_lanes[0].kind", "unknown sound lane kind"),
    (lambda d: d["sound_lanes"][2]["ducking"].update(depth_db=6), "sound_lanes[2].ducking.depth_db",
     "out of range"),
    (lambda d: d["sounds"][1].update(id="X0001"), "sounds[1].id", "duplicate sound id 'X0001'"),
])
def test_bad_sound_fields_name_the_path(tmp_path: Path, change, where: str, problem: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.radioplay"
    save_project(imported(), path)
    data = json.loads(path.read_text())
    change(data)
    with pytest.raises(ProjectFileError, match=f"{where.replace('[', '.').replace(']', '.')}: .*{problem}"):
        project_from_dict(data, path)


def test_save_as_elsewhere_keeps_relative_sound_files_pointing_at_the_same_files(tmp_path: Path) -> None:
    from engine.project.soundformat import absolute_sounds

    project = imported()
    project.sounds[0].file = "sounds/rain.flac"
    moved = absolute_sounds(project.sounds, tmp_path / "old")
    assert moved[0].file == str((tmp_path / "old" / "sounds" / "rain.flac").resolve())
    assert moved[1] is project.sounds[1]  # placeholders and absolute files are kept as they are
    project.sounds = moved
    save_project(project, tmp_path / "old" / "copy.radioplay")
    assert load_project(tmp_path / "old" / "copy.radioplay").sounds[0].file == "sounds/rain.flac"
