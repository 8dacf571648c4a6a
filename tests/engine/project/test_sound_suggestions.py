"""Issue 51: an ordinary screenplay describes its sounds in action lines ("Gulls. A diesel
engine idles.", "A kettle. Rain on the window.", "Wind howls around the glass."). They are
offered as suggested cues, matched to the library only where it has that sound, never
spoken; accepting one places a clip where it stands; the project file keeps them; the
`radioplay sounds` verb answers them headless; a render without sound writes no FX or MX
stem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import soundfile as sf

from engine.cli import main
from engine.export.render import render_project
from engine.project.fileformat import load_project, project_from_dict, project_to_dict, save_project
from engine.project.importers.build import import_script
from engine.project.sound_suggestions import answer
from engine.synth.library import VoiceLibrary
from engine.synth.production_import import ImportedProduction, import_production
from engine.synth.sound_library import SoundLibrary, match_suggestions, starter_sound_dir
from tests.support.render import synth_for

SCREENPLAY = """\
Title: The Harbour

EXT. HARBOUR WALL - DAWN

Gulls. A diesel engine idles. FRASER coils a rope.

FRASER
Fetch the bait box, and mind the wet steps.

DANNY
Granny says the glass is falling.

INT. KITCHEN - MORNING

A kettle. Rain on the window. ELSIE pours the tea.

ELSIE
Sit down and drink this while it is hot.

INT. LAMP ROOM - NIGHT

The great lens turns. Wind howls around the glass.

ELSIE
Stornoway, this is Kilbrae. I read you.
"""


@pytest.fixture
def screenplay(tmp_path: Path) -> Path:
    path = tmp_path / "harbour.fountain"
    path.write_text(SCREENPLAY, encoding="utf-8")
    return path


def _imported(script: Path) -> ImportedProduction:
    """The import of `radioplay import` and the studio's Import Script (one function)."""
    return import_production(script, destination=script.with_suffix(".radioplay"), library=VoiceLibrary())


def test_action_lines_become_suggested_cues_matched_to_the_library_and_never_spoken(screenplay):
    project = _imported(screenplay).project
    offered = [(s.text, s.sound, s.lane_kind, s.evidence) for s in project.sound_suggestions]
    assert offered == [
        ("Gulls", "gulls", "ambience", "Gulls."),
        ("A diesel engine idles", "engine", "ambience", "A diesel engine idles."),
        ("A kettle", "kettle", "effects", "A kettle."),
        ("Rain on the window", "rain", "ambience", "Rain on the window."),
        ("Wind howls around the glass", "wind", "ambience", "Wind howls around the glass."),
    ]
    # Each stands before the first line after its action, in its scene.
    lines = {line.id: line for line in project.lines}
    assert [(s.scene, lines[s.line].text[:10]) for s in project.sound_suggestions if s.line] == [
        ("S1", "Fetch the "), ("S1", "Fetch the "), ("S2", "Sit down a"), ("S2", "Sit down a"), ("S3", "Stornoway,")]
    # Matched only where the starter library has that sound: rain and wind; the gulls, the
    # engine and the kettle are shown unmatched, never given the nearest other sound.
    starter = starter_sound_dir()
    files = {s.sound: s.file for s in project.sound_suggestions}
    assert files == {"gulls": "", "engine": "", "kettle": "", "rain": str(starter / "rain.flac"),
                     "wind": str(starter / "wind.flac")}
    # Offered, not placed: no clip, no lane, and nothing of them in any spoken line.
    assert project.sounds == [] and project.sound_lanes == []
    spoken = " ".join(line.text for line in project.lines).lower()
    assert not any(word in spoken for word in ("gull", "diesel", "kettle", "rain", "howl"))
    assert {role.name for role in project.cast} == {"FRASER", "DANNY", "ELSIE"}


def test_accepting_a_suggestion_places_a_clip_where_it_stands(screenplay):
    project = _imported(screenplay).project
    ids = {s.sound: s.id for s in project.sound_suggestions}
    answered = answer(project, accept=[ids["rain"], ids["kettle"], ids["gulls"], ids["engine"]],
                      dismiss=[ids["wind"]])
    answered.apply(project)
    rain = next(c for c in project.sounds if c.cue == "Rain on the window")
    kettle = next(c for c in project.sounds if c.cue == "A kettle")
    assert (rain.anchor, rain.line, rain.file, rain.loop) == ("cue", "L0003", str(starter_sound_dir() / "rain.flac"),
                                                              True)
    assert project.sound_lane(rain.lane).kind == "ambience" and project.sound_lane(kettle.lane).kind == "effects"
    assert kettle.placeholder and kettle.line == "L0003"  # unmatched: a placeholder saying what to find
    # Two beds cued at one place get a lane each (on one lane the first would end where the next starts).
    gulls, engine = (next(c for c in project.sounds if c.cue == cue) for cue in ("Gulls", "A diesel engine idles"))
    assert gulls.line == engine.line == "L0001" and gulls.lane != engine.lane
    states = {s.sound: (s.state, s.clip) for s in project.sound_suggestions}
    assert states["rain"] == ("accepted", rain.id) and states["wind"] == ("dismissed", None)
    with pytest.raises(ValueError, match="accepted already"):
        answer(project, accept=[ids["rain"]])
    with pytest.raises(KeyError, match="no suggested sound 'Q0999'"):
        answer(project, accept=["Q0999"])
    # The project file keeps the suggestions, answered or not, with their span and evidence.
    again = project_from_dict(json.loads(json.dumps(project_to_dict(project))))
    assert again.sound_suggestions == project.sound_suggestions and again.sounds == project.sounds
    # A file written before suggestions existed loads with none.
    old = project_to_dict(project)
    del old["sound_suggestions"]
    assert project_from_dict(old).sound_suggestions == []


def test_radioplay_sounds_lists_accepts_and_dismisses(screenplay, tmp_path, capsys):
    project, _ = import_script(screenplay)
    path = tmp_path / "harbour.radioplay"
    save_project(project, path)
    assert main(["sounds", str(path)]) == 0
    listed = capsys.readouterr().out
    assert "Q0003 'A kettle' (effects, before L0003)" in listed and "\u201cA kettle.\u201d" in listed
    assert main(["sounds", str(path), "--accept", "Q0003", "--dismiss", "Q0001"]) == 0
    assert "Accepted: FX: 'A kettle'" in capsys.readouterr().out
    saved = load_project(path)
    assert [c.cue for c in saved.sounds] == ["A kettle"]
    assert [s.state for s in saved.sound_suggestions][:3] == ["dismissed", "suggested", "accepted"]
    assert main(["sounds", str(path), "--accept", "all"]) == 0
    assert all(not s.open for s in load_project(path).sound_suggestions)
    assert main(["sounds", str(path), "--accept", "Q0003"]) == 1
    assert "Q0003 ('A kettle') is accepted already" in capsys.readouterr().err


def test_no_fx_or_mx_stem_without_sound_and_fx_with_an_accepted_sound(screenplay, tmp_path):
    project, _ = import_script(screenplay)
    path = tmp_path / "harbour.radioplay"
    save_project(project, path)
    synth = synth_for(path)
    bare = render_project(project, synth, tmp_path / "bare", project_path=path)
    assert sorted(p.name for p in (bare.outdir / "dme").iterdir()) == ["DX.wav"]
    assert not any("FX" in str(f) or "MX" in str(f) for f in bare.files)
    match_suggestions(project, SoundLibrary.for_project(path))
    rain = next(s.id for s in project.sound_suggestions if s.sound == "rain")
    answer(project, accept=[rain]).apply(project)
    scored = render_project(project, synth, tmp_path / "scored", project_path=path)
    assert sorted(p.name for p in (scored.outdir / "dme").iterdir()) == ["DX.wav", "FX.wav"]
    fx, _ = sf.read(scored.outdir / "dme" / "FX.wav", dtype="float32")
    assert float(abs(fx).max()) > 0.01  # the rain plays on the ambience lane, carried by FX
