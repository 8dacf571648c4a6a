"""The engines' table (engine/project/engines.py): what a role's engine name means to the
project floor and the studio, without loading the engine."""

from __future__ import annotations

import pytest

from engine.project.engines import ENGINES, KOKORO, PIPER, engine_named, engine_of_listed, listed_id
from engine.project.fileformat import project_from_dict


@pytest.mark.parametrize(("backend", "voice", "listed"), [
    ("piper", "en_US-joe-medium", "en_US-joe-medium"),
    ("kokoro", "af_heart", "kokoro:af_heart"),
    ("kokoro", "af_heart:0.6+bf_emma:0.4", "kokoro:af_heart:0.6+bf_emma:0.4"),
])
def test_a_voice_is_listed_with_its_engines_prefix_and_picked_back_apart(backend: str, voice: str,
                                                                         listed: str) -> None:
    assert listed_id(backend, voice) == listed
    engine, stored = engine_of_listed(listed)
    assert (engine.name, stored) == (backend, voice)


@pytest.mark.parametrize("path", ["voices/kokoro:odd.onnx", "kokoro:dir/voice", "/home/me/en_GB-alan-low.onnx"])
def test_a_path_is_a_model_file_whatever_its_name(path: str) -> None:
    engine, stored = engine_of_listed(path)
    assert engine.model_files and stored == path


@pytest.mark.parametrize(("backend", "voice", "language", "gender"), [
    ("piper", "en_GB-alan-medium", "en-gb", None),
    ("piper", "voices/de_DE-thorsten-low.onnx", "de-de", None),
    ("piper", "joe", "", None),
    ("kokoro", "bf_emma", "en-gb", "female"),
    ("kokoro", "jm_kumo", "en-us", "male"),  # a Japanese style reads English here
    ("kokoro", "kokoro:jf_alpha", "en-us", "female"),
    ("kokoro", "af_heart:0.3+am_adam:0.7", "en-us", "male"),  # a blend by its heaviest part
    ("kokoro", "af_heart:0.3+", "en-us", None),  # malformed: its name says nothing
])
def test_what_a_voices_name_says(backend: str, voice: str, language: str, gender: str | None) -> None:
    engine = engine_named(backend)
    assert (engine.language(voice), engine.gender(voice)) == (language, gender)


def test_a_name_no_row_has_is_a_stand_in_that_knows_nothing() -> None:
    """A file made by a version with another engine still opens; the engine is named
    where its lines are voiced (engine/synth/backends/registry.py)."""
    vits = engine_named("vits")
    assert not vits.known and vits.label == "vits" and vits.listed("x") == "x"
    assert not (vits.speakers or vits.blends or vits.model_files) and vits.language("en_US-x") == ""
    project = project_from_dict({"format_version": 1, "cast": [
        {"name": "A", "voice": {"backend": "vits", "voice": "x:y+z", "speaker": 3}}]})
    assert (project.cast[0].voice.backend, project.cast[0].voice.voice) == ("vits", "x:y+z")


def test_what_each_engine_lets_a_role_write() -> None:
    assert PIPER.speakers and not PIPER.blends and PIPER.model_files
    assert KOKORO.blends and not KOKORO.speakers and not KOKORO.model_files
    assert KOKORO.check("af_heart", None) is None and PIPER.check("anything", 3) is None
    assert KOKORO.check("af_heart", 0) == ("speaker", "Kokoro voices have no speakers (pick a style vector or "
                                                       "a blend in voice)")
    assert [e.name for e in ENGINES] == ["piper", "kokoro"]  # a suggested cast's order: the cheaper first

