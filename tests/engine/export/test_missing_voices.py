"""A production cast on voices this machine does not have: said once, grouped by voice, with
how to get them; `radioplay render` refuses rather than render a drama without part of its cast."""

from __future__ import annotations

import pytest

from engine.cli import main
from engine.export.render import render_project
from engine.project.fileformat import load_project, save_project
from engine.project.model import VoiceParams
from engine.synth.library import VoiceLibrary
from engine.synth.missing_voices import missing_voices
from engine.synth.pipeline import LineErrors, VoicesNotInstalled
from tests.support.projects import tiny_project
from tests.support.render import synth_for


@pytest.fixture
def uncast(tmp_path, tiny_voices):
    """The tiny production (ROLE0..2, two lines each) with ROLE0 and ROLE2 cast on a Piper
    voice id that no machine has."""
    project = tiny_project(tiny_voices["single"])
    for role in (project.cast[0], project.cast[2]):
        role.voice = VoiceParams(voice="xx_XX-nobody-medium")
    path = tmp_path / "uncast.radioplay"
    save_project(project, path)
    return path


def test_a_voice_not_installed_is_one_problem_naming_its_roles_and_how_to_get_it(tmp_path, uncast):
    project = load_project(uncast)
    with pytest.raises(VoicesNotInstalled) as caught:
        render_project(project, synth_for(uncast), tmp_path / "out")
    (missing,) = caught.value.missing
    assert missing.voice == "xx_XX-nobody-medium" and missing.roles == ("ROLE0", "ROLE2")
    assert len(missing.line_ids) == 4
    assert caught.value.problems == [str(caught.value)]  # one line, not one per role or line
    assert str(caught.value).startswith("1 voice the cast needs is not installed, so 4 lines cannot be voiced; "
                                        "get it with Voices > Get Voices or `radioplay voices --download "
                                        "xx_XX-nobody-medium`")
    assert str(caught.value).endswith("Not installed: xx_XX-nobody-medium (ROLE0, ROLE2)")
    assert not (tmp_path / "out").exists()


def test_radioplay_render_refuses_in_one_line(tmp_path, uncast, capsys):
    assert main(["render", str(uncast), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"radioplay: error: {uncast}: 1 voice the cast needs is not installed, so 4 lines")
    assert "xx_XX-nobody-medium (ROLE0, ROLE2)" in err[0] and "cannot be voiced:\n" not in err[0]
    assert not (tmp_path / "out").exists()


def test_with_other_problems_the_missing_voices_come_first_and_once(tmp_path, uncast):
    project = load_project(uncast)
    project.lines[1].text = "   "  # ROLE1's first line: a problem of its own
    with pytest.raises(LineErrors) as caught:
        render_project(project, synth_for(uncast), tmp_path / "out")
    assert not isinstance(caught.value, VoicesNotInstalled)
    assert len(caught.value.problems) == 2
    assert "xx_XX-nobody-medium (ROLE0, ROLE2)" in caught.value.problems[0]
    assert caught.value.problems[1] == "line 2 (L0002, role ROLE1): text is empty"


def test_a_line_locked_to_a_missing_voice_is_counted_under_that_voice(uncast, tiny_voices):
    project = load_project(uncast)
    project.cast[0].voice = VoiceParams(voice=str(tiny_voices["single"]))  # ROLE0 recast: it speaks
    project.lines[0].locked = VoiceParams(voice="xx_XX-gone-low")  # one of its lines kept the old voice
    found = missing_voices(project, VoiceLibrary(base_dir=uncast.parent).resolve)
    assert [(m.voice, m.roles, len(m.line_ids)) for m in found] == [
        ("xx_XX-nobody-medium", ("ROLE2",), 2), ("xx_XX-gone-low", ("ROLE0",), 1)]


def test_a_kokoro_style_not_installed_says_where_kokoro_voices_go(tmp_path, uncast):
    """The bundled Kokoro voices are in the default install: a style they lack comes from a
    Kokoro voices file in the user folder, which the message names."""
    project = load_project(uncast)
    project.cast[1].voice = VoiceParams(backend="kokoro", voice="zz_nobody")
    voices = tmp_path / "my-voices"
    found = missing_voices(project, VoiceLibrary(user_dir=voices).resolve)
    kokoro = next(m for m in found if m.voice == "kokoro:zz_nobody")
    assert kokoro.roles == ("ROLE1",)
    assert "voices-v1.0.bin" in kokoro.how and str(voices) in kokoro.how and "Get Voices" in kokoro.how
