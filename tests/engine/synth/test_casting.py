"""Suggested casts: distinct voices and speakers before pitch shifts, deterministic."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main
from engine.project.fileformat import load_project
from engine.project.model import DEFAULT_VOICE, Role, VoiceParams
from engine.synth.cast_candidates import candidates
from engine.synth.casting import (
    ENGLISH_WER_MAX,
    SHARING,
    english_wer,
    installed_sources,
    reads_english,
    suggest_cast,
)
from engine.synth.library import VoiceLibrary
from tests.support.voice_files import install_voice


def _roles(n: int) -> list[Role]:
    return [Role(name=f"R{i}", voice=VoiceParams(variation=0.7)) for i in range(n)]


def _sound(v: VoiceParams) -> tuple[str, object, float, float]:
    return (v.voice if v.backend == "piper" else f"kokoro:{v.voice}", v.speaker, v.pitch, v.speed)


def _kokoro(library: VoiceLibrary) -> list[tuple[str, object, float, float]]:
    """Kokoro styles an English script may take, cast after every Piper voice, unshifted: English
    ones, and those of another language measured intelligible in English (ENGLISH_WER)."""
    return [(v.id, None, 0.0, 1.0) for v in sorted(library.all(), key=lambda v: v.id)
            if v.backend == "kokoro" and reads_english(v.style)]


def test_every_sound_is_taken_before_two_roles_share_one(tmp_path: Path) -> None:
    library = VoiceLibrary(user_dir=tmp_path / "none")
    sources = installed_sources(library)
    fitting = [c for c in candidates(sources) + candidates(sources, colours=True) if c.age == "adult"]
    n = len(fitting)
    cast = suggest_cast(_roles(n + 2), library)  # nothing known of the roles: any adult voice fits
    sounds = [(v.backend, v.voice, v.design) for v in cast.values()]
    assert len(set(sounds[:n])) == n  # every distinct sound before one is shared
    installed = [(v.backend, v.voice) for v in list(cast.values())[:len(sources)]]
    assert installed == [(c.backend, c.voice) for c, _ in sources]  # as installed first, Piper before Kokoro
    assert all(v.design.is_neutral for v in list(cast.values())[:len(sources)])
    shared = list(cast.values())[n:]
    assert [(v.pitch, v.variation) for v in shared] == [SHARING[1], SHARING[1]]  # the two sharers, told apart
    assert all(0 < abs(v.pitch) <= 1.5 and v.speed == 1.0 for v in shared)  # shifts that keep speech intelligible
    assert all(v.variation == 0.7 and v.pitch == 0.0 for v in list(cast.values())[:n])  # what casting does not decide


def test_installed_voices_and_speakers_come_before_any_design(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    user = tmp_path / "voices"
    install_voice(user, tiny_voices["single"], "tiny-single")
    install_voice(user, tiny_voices["multi"], "tiny-multi")
    library = VoiceLibrary(user_dir=user)
    kokoro = _kokoro(library)
    n = 6 + len(kokoro)
    cast = suggest_cast(_roles(n), library)
    assert [_sound(cast[f"R{i}"]) for i in range(n - 1)] == [
        (DEFAULT_VOICE, None, 0.0, 1.0), ("tiny-multi", "alice", 0.0, 1.0), ("tiny-single", None, 0.0, 1.0),
        ("tiny-multi", "bob", 0.0, 1.0), ("tiny-multi", "carol", 0.0, 1.0), *kokoro]  # Piper, then Kokoro
    assert all(cast[f"R{i}"].design.is_neutral for i in range(n - 1))
    last = cast[f"R{n - 1}"]  # no installed sound left: a colour of the first, not a pitch shift
    assert (last.voice, last.pitch) == (DEFAULT_VOICE, 0.0) and not last.design.is_neutral


def test_leads_choose_first_and_the_result_is_deterministic(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    user = tmp_path / "voices"
    install_voice(user, tiny_voices["single"], "tiny-single")
    extra = len(_kokoro(VoiceLibrary(user_dir=user)))
    roles = _roles(3 + extra)
    lines = {"R0": 1, "R1": 2, "R2": 9} | {f"R{3 + k}": 5 for k in range(extra)}
    first = suggest_cast(roles, VoiceLibrary(user_dir=user), lines)
    assert _sound(first["R2"]) == (DEFAULT_VOICE, None, 0.0, 1.0) and first["R2"].design.is_neutral  # the lead
    assert first["R1"].design.is_neutral
    assert not first["R0"].design.is_neutral  # the smallest part is the one designed
    assert suggest_cast(roles, VoiceLibrary(user_dir=user), lines) == first


def test_voices_of_another_language_are_not_offered(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    user = tmp_path / "voices"
    install_voice(user, tiny_voices["single"], "de-tiny", language="de_DE")
    cast = suggest_cast(_roles(2), VoiceLibrary(user_dir=user))
    assert "de-tiny" not in {v.voice for v in cast.values()}
    german = suggest_cast(_roles(2), VoiceLibrary(user_dir=user), language="de")
    assert {v.voice for v in german.values()} == {"de-tiny"}


def test_kokoro_styles_of_another_language_are_offered_by_their_measured_english(tmp_path: Path) -> None:
    library = VoiceLibrary(user_dir=tmp_path / "none")
    styles = [v.style for v in library.bundled() if v.backend == "kokoro"]
    assert styles, "the bundled Kokoro voices (a default dependency) are not installed"
    intelligible = sorted(s for s in styles if (english_wer(s) or 1.0) <= ENGLISH_WER_MAX)
    assert "jf_gongitsune" in intelligible and "jf_alpha" not in intelligible  # 0.04 and 0.71, measured
    english = suggest_cast(_roles(1 + len(intelligible)), library)
    assert sorted(v.voice for v in english.values() if v.backend == "kokoro") == intelligible
    japanese = suggest_cast(_roles(len(styles)), library, language="ja")
    assert sorted(v.voice for v in japanese.values()) == sorted(styles)
    assert all(v.backend == "kokoro" and v.pitch == 0.0 for v in japanese.values())


@pytest.mark.integration
def test_import_casts_from_the_installed_voices(tmp_path: Path, tiny_voices: dict[str, Path],
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    user = tmp_path / "voices"
    install_voice(user, tiny_voices["multi"], "tiny-multi")
    monkeypatch.setenv("RADIOPLAY_VOICE_DIR", str(user))
    script = tmp_path / "play.txt"
    script.write_text("ANNA: Hello.\nBEN: Hi.\nANNA: How are you?\nCARL: Fine.\nDORA: Good.\n", encoding="utf-8")
    assert main(["import", str(script), "-o", str(tmp_path / "play.radioplay")]) == 0
    out = capsys.readouterr().out
    project = load_project(tmp_path / "play.radioplay")
    assert [(r.name, r.character.gender) for r in project.cast] == [
        ("ANNA", "female"), ("BEN", "male"), ("CARL", "male"), ("DORA", "female")]  # first names
    assert "female/?" in out and "gender-guesser" in out  # each role's character and its evidence
    sounds = {(r.voice.backend, r.voice.voice, r.voice.speaker, r.voice.design) for r in project.cast}
    assert len(sounds) == 4 and all(r.voice.pitch == 0.0 for r in project.cast)
    if "closest: " not in out:  # measured only with the speaker encoder (the voices extra)
        from engine.listen import speaker

        with pytest.raises(speaker.SpeakerEncoderUnavailable):
            speaker.weights_path()



