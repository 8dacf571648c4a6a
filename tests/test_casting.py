"""Suggested casts: distinct voices and speakers before pitch shifts, deterministic."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.cli import main
from engine.project.fileformat import load_project
from engine.project.model import DEFAULT_VOICE, Role, VoiceParams
from engine.synth.casting import VARIANTS, suggest_cast
from engine.synth.library import VoiceLibrary


def _install(folder: Path, source: Path, name: str, language: str | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, folder / f"{name}.onnx")
    config = json.loads(Path(f"{source}.json").read_text(encoding="utf-8"))
    if language:
        config["language"] = {"code": language}
    (folder / f"{name}.onnx.json").write_text(json.dumps(config), encoding="utf-8")


def _roles(n: int) -> list[Role]:
    return [Role(name=f"R{i}", voice=VoiceParams(variation=0.7)) for i in range(n)]


def _sound(v: VoiceParams) -> tuple[str, object, float, float]:
    return (v.voice, v.speaker, v.pitch, v.speed)


def test_one_single_speaker_voice_varies_pitch_and_speed(tmp_path: Path) -> None:
    cast = suggest_cast(_roles(3), VoiceLibrary(user_dir=tmp_path / "none"))
    assert [_sound(v) for v in cast.values()] == [(DEFAULT_VOICE, None, p, s) for p, s in VARIANTS[:3]]
    assert all(v.variation == 0.7 for v in cast.values())  # what casting does not decide is kept


def test_installed_voices_and_speakers_come_before_any_shift(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    user = tmp_path / "voices"
    _install(user, tiny_voices["single"], "tiny-single")
    _install(user, tiny_voices["multi"], "tiny-multi")
    cast = suggest_cast(_roles(6), VoiceLibrary(user_dir=user))
    assert [_sound(cast[f"R{i}"]) for i in range(6)] == [
        (DEFAULT_VOICE, None, 0.0, 1.0), ("tiny-multi", "alice", 0.0, 1.0), ("tiny-single", None, 0.0, 1.0),
        ("tiny-multi", "bob", 0.0, 1.0), ("tiny-multi", "carol", 0.0, 1.0),
        (DEFAULT_VOICE, None, *VARIANTS[1])]  # five sounds for six roles: only the sixth is shifted


def test_leads_choose_first_and_the_result_is_deterministic(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    user = tmp_path / "voices"
    _install(user, tiny_voices["single"], "tiny-single")
    roles = _roles(3)
    lines = {"R0": 1, "R1": 2, "R2": 9}
    first = suggest_cast(roles, VoiceLibrary(user_dir=user), lines)
    assert _sound(first["R2"]) == (DEFAULT_VOICE, None, 0.0, 1.0)  # the lead
    assert _sound(first["R1"]) == ("tiny-single", None, 0.0, 1.0)
    assert first["R0"].pitch == VARIANTS[1][0]  # the smallest part is the one shifted
    assert suggest_cast(roles, VoiceLibrary(user_dir=user), lines) == first


def test_voices_of_another_language_are_not_offered(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    user = tmp_path / "voices"
    _install(user, tiny_voices["single"], "de-tiny", language="de_DE")
    cast = suggest_cast(_roles(2), VoiceLibrary(user_dir=user))
    assert {v.voice for v in cast.values()} == {DEFAULT_VOICE}
    german = suggest_cast(_roles(2), VoiceLibrary(user_dir=user), language="de")
    assert {v.voice for v in german.values()} == {"de-tiny"}


def test_import_casts_from_the_installed_voices(tmp_path: Path, tiny_voices: dict[str, Path],
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    user = tmp_path / "voices"
    _install(user, tiny_voices["multi"], "tiny-multi")
    monkeypatch.setenv("RADIOPLAY_VOICE_DIR", str(user))
    script = tmp_path / "play.txt"
    script.write_text("ANNA: Hello.\nBEN: Hi.\nANNA: How are you?\nCARL: Fine.\nDORA: Good.\n", encoding="utf-8")
    assert main(["import", str(script), "-o", str(tmp_path / "play.radioplay")]) == 0
    assert "tiny-multi speaker bob, pitch +0 st" in capsys.readouterr().out
    project = load_project(tmp_path / "play.radioplay")
    sounds = [_sound(r.voice) for r in project.cast]
    assert sounds == [(DEFAULT_VOICE, None, 0.0, 1.0), ("tiny-multi", "alice", 0.0, 1.0),
                      ("tiny-multi", "bob", 0.0, 1.0), ("tiny-multi", "carol", 0.0, 1.0)]
