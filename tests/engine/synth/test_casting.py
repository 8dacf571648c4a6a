"""Suggested casts: distinct voices and speakers before pitch shifts, deterministic."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main
from engine.project.fileformat import load_project
from engine.project.model import DEFAULT_VOICE, Role, VoiceParams
from engine.project.starting_voices import distinct_settings
from engine.synth.casting import ENGLISH_WER_MAX, english_wer, reads_english, suggest_cast
from engine.synth.library import VoiceLibrary
from tests.support.voice_files import install_voice

VARIANTS = [(p, s) for p, s, _ in distinct_settings()]  # (pitch, speed) of the k-th role sharing a voice



def _roles(n: int) -> list[Role]:
    return [Role(name=f"R{i}", voice=VoiceParams(variation=0.7)) for i in range(n)]


def _sound(v: VoiceParams) -> tuple[str, object, float, float]:
    return (v.voice if v.backend == "piper" else f"kokoro:{v.voice}", v.speaker, v.pitch, v.speed)


def _kokoro(library: VoiceLibrary) -> list[tuple[str, object, float, float]]:
    """Kokoro styles an English script may take, cast after every Piper voice, unshifted: English
    ones, and those of another language measured intelligible in English (ENGLISH_WER)."""
    return [(v.id, None, 0.0, 1.0) for v in sorted(library.all(), key=lambda v: v.id)
            if v.backend == "kokoro" and reads_english(v.style)]


def test_one_single_speaker_voice_varies_pitch_and_speed(tmp_path: Path) -> None:
    library = VoiceLibrary(user_dir=tmp_path / "none")
    distinct = [(DEFAULT_VOICE, None, 0.0, 1.0), *_kokoro(library)]
    cast = suggest_cast(_roles(len(distinct) + 2), library)
    sounds = [_sound(v) for v in cast.values()]
    assert sounds[:len(distinct)] == distinct  # every distinct voice before a shift
    n = len(distinct)
    assert sounds[n:] == [(distinct[r % n][0], None, *VARIANTS[r // n]) for r in (n, n + 1)]
    assert all(abs(p) <= 1.5 for p, _ in VARIANTS)  # shifts that keep speech intelligible
    # The distinct voices keep what casting does not decide; roles sharing a voice also differ in variation.
    assert all(v.variation == 0.7 for v in list(cast.values())[:len(distinct)])
    assert [v.variation for v in list(cast.values())[n:]] == [distinct_settings()[r // n][2] for r in (n, n + 1)]


def test_installed_voices_and_speakers_come_before_any_shift(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    user = tmp_path / "voices"
    install_voice(user, tiny_voices["single"], "tiny-single")
    install_voice(user, tiny_voices["multi"], "tiny-multi")
    library = VoiceLibrary(user_dir=user)
    kokoro = _kokoro(library)
    n = 6 + len(kokoro)
    cast = suggest_cast(_roles(n), library)
    assert [_sound(cast[f"R{i}"]) for i in range(n)] == [
        (DEFAULT_VOICE, None, 0.0, 1.0), ("tiny-multi", "alice", 0.0, 1.0), ("tiny-single", None, 0.0, 1.0),
        ("tiny-multi", "bob", 0.0, 1.0), ("tiny-multi", "carol", 0.0, 1.0), *kokoro,
        (DEFAULT_VOICE, None, *VARIANTS[1])]  # Piper sounds, then Kokoro's: only the last role is shifted


def test_leads_choose_first_and_the_result_is_deterministic(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    user = tmp_path / "voices"
    install_voice(user, tiny_voices["single"], "tiny-single")
    extra = len(_kokoro(VoiceLibrary(user_dir=user)))
    roles = _roles(3 + extra)
    lines = {"R0": 1, "R1": 2, "R2": 9} | {f"R{3 + k}": 5 for k in range(extra)}
    first = suggest_cast(roles, VoiceLibrary(user_dir=user), lines)
    assert _sound(first["R2"]) == (DEFAULT_VOICE, None, 0.0, 1.0)  # the lead
    assert _sound(first["R1"]) == ("tiny-single", None, 0.0, 1.0) if not extra else first["R1"].pitch == 0.0
    assert first["R0"].pitch == VARIANTS[1][0]  # the smallest part is the one shifted
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
    assert styles, "the kokoro extra (in the test extra) is not installed"
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



