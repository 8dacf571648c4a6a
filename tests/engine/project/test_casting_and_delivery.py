"""engine.project.casting and engine.project.delivery (issue 16)."""

from __future__ import annotations

import pytest

from engine.project.delivery import split_delivery_note, stage_direction
from engine.project.model import Project, Role, VoiceParams
from engine.project.starting_voices import PANS, distinct_settings, starting_voice, suggest_new_role


@pytest.mark.parametrize(("typed", "note", "words"), [
    ("(out of breath) Wait for me!", "out of breath", "Wait for me!"),
    ("  ( out  of breath )Wait", "out of breath", "Wait"),
    ("(a (small) boat) goes by", "a (small) boat", "goes by"),
    ("(beat)", "beat", ""),
    ("Wait (pants) for me", "", "Wait (pants) for me"),
    ("(unclosed note Wait", "", "(unclosed note Wait"),
    ("", "", ""),
])
def test_split_delivery_note(typed: str, note: str, words: str) -> None:
    assert split_delivery_note(typed) == (note, words)


@pytest.mark.parametrize(("line", "direction"), [
    ("(Foghorn, far off.)", "Foghorn, far off."), ("[Foghorn,  far off.]", "Foghorn, far off."),
    ("(A (small) boat.)", "A (small) boat."), ("()", ""),
    ("(a) b", None), ("[pause] [laughs]", None), ("TOM: (hi)", None), ("(unclosed", None),
])
def test_stage_direction(line: str, direction: str | None) -> None:
    assert stage_direction(line) == direction


def test_distinct_settings_start_neutral_and_stay_intelligible() -> None:
    settings = distinct_settings()
    assert settings[0] == (0.0, 1.0, 1.0)
    assert len(set(settings)) == len(settings) == 105
    assert all(abs(p) <= 1.5 and 0.9 <= s <= 1.1 and 0.8 <= v <= 1.2 for p, s, v in settings)
    voice, pan = starting_voice(1, VoiceParams(voice="x.onnx", speaker=2))
    assert (voice.voice, voice.speaker) == ("x.onnx", 2) and (voice.pitch, voice.speed) != (0.0, 1.0)
    assert pan == PANS[1]


def test_suggest_new_role_differs_from_hand_made_roles() -> None:
    first, second = distinct_settings()[:2]
    project = Project(cast=[
        Role("A", voice=VoiceParams(pitch=first[0], speed=first[1], variation=first[2])),
        Role("B", voice=VoiceParams(pitch=second[0], speed=second[1], variation=second[2]), pan=PANS[0]),
        Role("ROLE 3"),  # the same sound as A: the suggestion must avoid both
    ])
    role = suggest_new_role(project)
    assert role.name == "ROLE 4"
    taken = {(r.voice.pitch, r.voice.speed, r.voice.variation) for r in project.cast}
    assert (role.voice.pitch, role.voice.speed, role.voice.variation) not in taken
    assert role.pan == PANS[1]  # the pan no role uses yet
    assert suggest_new_role(Project(), "NARRATOR").voice == VoiceParams()


def test_suggest_new_role_keeps_the_last_roles_voice_model() -> None:
    project = Project(cast=[Role("A", voice=VoiceParams(voice="other.onnx", speaker="bob"))])
    role = suggest_new_role(project)
    assert (role.voice.voice, role.voice.speaker) == ("other.onnx", "bob")
    assert role.voice != project.cast[0].voice
