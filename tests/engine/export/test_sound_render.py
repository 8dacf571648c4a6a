"""Sound design end to end: a plain-text script with AMBIENCE:, MUSIC:, SFX:
cues and MUSIC OUT, imported and rendered through the CLI with matching files
in sounds/ beside the project: DME stems, effects at their cues, the music
stopping at MUSIC OUT and ducked under the dialogue, cues.json, placeholders
and missing files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.cli import main
from engine.project.fileformat import load_project, save_project
from engine.project.model import VoiceParams
from tests.support.sound_design import SCRIPT, write_sounds

RATE = 48_000




@pytest.fixture
def storm(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    """The imported project (tiny voices), sounds/ beside it."""
    script = tmp_path / "storm.txt"
    script.write_text(SCRIPT)
    write_sounds(tmp_path / "sounds")
    path = tmp_path / "storm.radioplay"
    assert main(["import", str(script), "-o", str(path)]) == 0
    project = load_project(path)
    voice = next(iter(tiny_voices.values()))
    for role in project.cast:
        role.voice = VoiceParams(voice=str(voice))
    save_project(project, path)
    return path


def rms_db(x: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(np.square(x, dtype=np.float64)) + 1e-20))


def test_the_storm_imports_with_cues_and_renders_dme(storm: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project = load_project(storm)
    assert project.role_names() == ["MAGGIE", "OWEN"]
    files = {c.cue: c.file for c in project.sounds}
    assert files == {"rain on the glass": "sounds/rain-on-glass.wav", "night theme": "sounds/theme.flac",
                     "thunder rolls": "sounds/thunder.wav"}
    out = tmp_path / "out"
    assert main(["render", str(storm), "-o", str(out)]) == 0
    assert "warning" not in capsys.readouterr().out
    dx, rate = sf.read(out / "dme" / "DX.wav", dtype="float32")
    fx, _ = sf.read(out / "dme" / "FX.wav", dtype="float32")
    mx, _ = sf.read(out / "dme" / "MX.wav", dtype="float32")
    stems = sum(sf.read(out / "stems" / f"{r}.wav", dtype="float32")[0] for r in ("MAGGIE", "OWEN"))
    assert rate == RATE and dx.shape == fx.shape == mx.shape
    np.testing.assert_allclose(dx, stems, atol=1e-6)  # DX is every role

    cues = json.loads((out / "cues.json").read_text())["cues"]
    kinds = [c["kind"] for c in cues]
    assert kinds.count("line") == 4 and {"sfx", "ambience", "music"} <= set(kinds)
    lines = [c for c in cues if c["kind"] == "line"]
    thunder = next(c for c in cues if c["kind"] == "sfx")
    music = next(c for c in cues if c["kind"] == "music")
    assert thunder["file"] == "sounds/thunder.wav" and music["file"] == "sounds/theme.flac"

    # The thunder sits at its cue in FX: after MAGGIE's first line, before OWEN's.
    at = int(round(thunder["start"] * RATE))
    assert lines[0]["end"] < thunder["start"] < thunder["end"] < lines[1]["start"]
    onset = at + int(np.flatnonzero(np.abs(fx[at - RATE // 10:, 0]) > 0.2)[0]) - RATE // 10
    assert abs(onset - at) < RATE // 100

    # The music stops at MUSIC OUT (where OWEN's last line would start) and is silent after.
    assert music["end"] == pytest.approx(lines[3]["start"], abs=0.01)
    end = int(round(music["end"] * RATE))
    assert np.abs(mx[end:]).max() == 0.0 and np.abs(mx[end - RATE // 2:end]).max() > 0.0

    # Ducked: at least 6 dB quieter under dialogue than in the clear (its lead-in).
    start = int(round(music["start"] * RATE))
    clear = mx[start + int(1.2 * RATE): start + int(2.4 * RATE)]
    mid = (lines[1]["start"] + lines[1]["end"]) / 2
    under = mx[int((mid - 0.3) * RATE): int((mid + 0.3) * RATE)]
    print(f"music ducked by {rms_db(clear) - rms_db(under):.1f} dB under dialogue")
    assert rms_db(clear) - rms_db(under) >= 6.0
    # The buses sum to what entered the master chain: the stems' sum plus the sound lanes.
    assert np.abs(fx).max() > 0.0


def test_placeholders_warn_and_missing_files_fail_unless_allowed(storm: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project = load_project(storm)
    project.sounds[0].file = ""
    project.sounds[0].cue = "seagulls over the harbour"  # nothing in any library matches
    project.sounds[2].file = "sounds/thunder-missing.wav"
    save_project(project, storm)
    assert main(["render", str(storm), "-o", str(tmp_path / "a")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "sounds/thunder-missing.wav for cue 'thunder rolls'" in err and "--allow-missing-sounds" in err
    assert not (tmp_path / "a").exists()
    assert main(["render", str(storm), "-o", str(tmp_path / "b"), "--allow-missing-sounds"]) == 0
    out = capsys.readouterr().out
    assert "warning: placeholder: cue 'seagulls over the harbour'" in out
    assert "thunder-missing.wav for cue 'thunder rolls'" in out and "(rendered as silence)" in out
    # The rain is a placeholder and the thunder missing: FX would be silence, so it is not written.
    assert sorted(p.name for p in (tmp_path / "b" / "dme").iterdir()) == ["DX.wav", "MX.wav"]


def test_sounds_folder_option_feeds_import_and_render(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    library = tmp_path / "library"
    write_sounds(library)
    script = tmp_path / "storm.txt"
    script.write_text(SCRIPT)
    path = tmp_path / "play" / "storm.radioplay"
    path.parent.mkdir()
    assert main(["import", str(script), "-o", str(path), "--sounds", str(library)]) == 0
    files = {c.cue: c.file for c in load_project(path).sounds}
    assert files["thunder rolls"] == str(library / "thunder.wav")  # outside the project: absolute


def test_a_project_moved_without_its_sounds_relinks_them_by_name(storm: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    moved = tmp_path / "elsewhere" / "storm.radioplay"
    moved.parent.mkdir()
    moved.write_bytes(storm.read_bytes())  # copied alone: sounds/ stayed behind
    library = tmp_path / "library"
    write_sounds(library)
    assert main(["render", str(moved), "-o", str(tmp_path / "out"), "--sounds", str(library)]) == 0
    out = capsys.readouterr().out
    assert "sound file sounds/thunder.wav for cue 'thunder rolls'" in out and "was not found" in out
    cues = json.loads((tmp_path / "out" / "cues.json").read_text())["cues"]
    assert next(c for c in cues if c["kind"] == "sfx")["file"] == str(library / "thunder.wav")


def _render_report(path: Path, out: Path):  # type: ignore[no-untyped-def]
    from engine.export.render import RenderOptions, render_project
    from engine.synth.synthesizer import make_synthesizer
    project = load_project(path)
    return render_project(project, make_synthesizer(path, project.sample_rate), out, RenderOptions(), project_path=path)


@pytest.mark.parametrize("edit", ["clip gain", "lane gain", "file content"])
def test_a_sound_edit_measures_the_master_gain_again(storm: Path, tmp_path: Path, edit: str) -> None:
    """The remembered master gain belongs to the whole programme: an edit to the
    sound design alone (a clip's level, a lane's level, another recording under
    the same file name) is another programme and must be measured again, or the
    mix would be levelled with the old design's gain."""
    first = _render_report(storm, tmp_path / "a")
    assert _render_report(storm, tmp_path / "b").gain_reused  # unchanged: remembered
    project = load_project(storm)
    if edit == "clip gain":
        project.sounds[0].gain_db += 12.0
    elif edit == "lane gain":
        project.sound_lanes[0].gain_db += 12.0
    else:
        rain = tmp_path / "sounds" / "rain-on-glass.wav"
        audio, rate = sf.read(rain)
        sf.write(rain, audio * 4.0, rate)  # the same length: the same layout
    save_project(project, storm)
    again = _render_report(storm, tmp_path / "c")
    assert not again.gain_reused
    assert again.gain_db != first.gain_db
