"""The measured cast: gender and age fit, the closest pair as far apart as the
candidates allow, the same cast every time (measured or from the stored embeddings)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.check.casting import Candidate, EmbeddingStore, assign, measured_cast
from engine.listen import speaker
from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.model import Character, Role
from engine.synth.cache import ClipCache
from engine.synth.casting import Casting
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer


def _candidate(n: int, gender: str, age: str = "adult", transformed: int = 0) -> Candidate:
    return Candidate(Casting(f"v{n}"), VoiceDesign(f0_shift=float(n)) if n else NEUTRAL, gender, age, f"v{n}",
                     transformed)


def test_assignment_fits_character_and_keeps_the_closest_pair_apart() -> None:
    pool = [_candidate(0, "male"), _candidate(1, "male"), _candidate(2, "female"), _candidate(3, "female"),
            _candidate(4, "female", "child")]
    sim = np.array([[1.0, 0.9, 0.5, 0.4, 0.3],
                    [0.9, 1.0, 0.6, 0.5, 0.4],
                    [0.5, 0.6, 1.0, 0.7, 0.85],
                    [0.4, 0.5, 0.7, 1.0, 0.6],
                    [0.3, 0.4, 0.85, 0.6, 1.0]])
    roles = [Role("TOM", character=Character("male", "adult")), Role("ANN", character=Character("female", "adult")),
             Role("MEG", character=Character("female", "adult")), Role("KIT", character=Character("", "child"))]
    lines = {"TOM": 9, "ANN": 5, "MEG": 3, "KIT": 1}
    picks = assign(roles, lines, pool, sim)
    assert picks[0] in (0, 1) and picks[3] == 4 and {picks[1], picks[2]} == {2, 3}
    # TOM takes the male voice farther from the women and the child (v0, not v1).
    assert picks[0] == 0
    assert assign(roles, lines, pool, sim) == picks  # deterministic
    # A role with a free choice takes the farthest voice from the others, not the first.
    free = [Role("A", character=Character("male", "adult")), Role("B", character=Character("male", "adult"))]
    assert sorted(assign(free, {}, pool[:2], sim[:2, :2])) == [0, 1]


@pytest.mark.integration
def test_a_measured_cast_from_one_voice_is_the_same_every_time(tmp_path: Path) -> None:
    try:
        speaker.weights_path()
    except speaker.SpeakerEncoderUnavailable as exc:
        pytest.skip(str(exc))
    library = VoiceLibrary(user_dir=tmp_path / "voices")
    joe = [(Casting(library.bundled()[0].id), "male")]
    roles = [Role("MARGARET", character=Character("female", "adult")),
             Role("EDMUND", character=Character("male", "adult")),
             Role("ROSIE", character=Character("female", "child"))]
    store_path = tmp_path / "embeddings.json"
    synth = ClipSynthesizer(library, 24000, ClipCache(tmp_path / "clips"))
    first = measured_cast(roles, library, {}, synth, EmbeddingStore(store_path), sources=joe)
    assert store_path.is_file()
    again = measured_cast(roles, library, {}, ClipSynthesizer(library, 24000, ClipCache(tmp_path / "other")),
                          EmbeddingStore(store_path), sources=joe)
    assert again.voices == first.voices and again.closest == first.closest
    labels = first.labels
    assert labels["EDMUND"].endswith("medium") or "deep" in labels["EDMUND"] or "bright" in labels["EDMUND"]
    assert "as woman" in labels["MARGARET"] and "as girl" in labels["ROSIE"], labels
    assert first.closest is not None and first.summary().startswith("closest: ")
    assert first.voices["ROSIE"].design.f0_shift > first.voices["EDMUND"].design.f0_shift
