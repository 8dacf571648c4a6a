"""Voice presets: named designs relative to the source voice's gender."""

from __future__ import annotations

import pytest

from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.voice_presets import (
    PRESET_NAMES,
    design_for,
    preset,
    source_gender,
    speaker_presets,
)


def test_the_producers_presets_exist_with_who_they_make() -> None:
    for name in ("woman", "man", "girl", "boy", "older woman", "older man", "deep", "bright", "husky"):
        assert name in PRESET_NAMES
    made = {p.name: (p.gender, p.age) for p in speaker_presets()}
    assert made == {"woman": ("female", "adult"), "man": ("male", "adult"), "girl": ("female", "child"),
                    "boy": ("male", "child"), "older woman": ("female", "older"), "older man": ("male", "older")}


def test_woman_over_a_man_raises_pitch_and_formants_and_is_neutral_over_a_woman() -> None:
    over_man = design_for("woman", "male")
    assert 9.0 <= over_man.f0_shift <= 12.0 and 1.15 <= over_man.formant <= 1.2
    assert design_for("woman", "female") == NEUTRAL
    assert design_for("man", "male") == NEUTRAL


def test_man_over_a_woman_is_the_reverse_of_woman_over_a_man() -> None:
    man = design_for("man", "female")
    woman = design_for("woman", "male")
    assert man.f0_shift == pytest.approx(-woman.f0_shift)
    assert man.formant == pytest.approx(1 / woman.formant)


def test_children_are_higher_and_shorter_than_adults_of_either_source() -> None:
    for source in ("male", "female"):
        for child, adult in (("girl", "woman"), ("boy", "man")):
            assert design_for(child, source).f0_shift > design_for(adult, source).f0_shift
            assert design_for(child, source).formant > design_for(adult, source).formant


def test_older_voices_are_slower_lower_darker_narrower_and_unsteady() -> None:
    for source in ("male", "female"):
        for older, adult in (("older woman", "woman"), ("older man", "man")):
            o, a = design_for(older, source), design_for(adult, source)
            assert o.rate < a.rate and o.f0_shift < a.f0_shift and o.tilt < a.tilt and o.f0_range < a.f0_range
            assert o.jitter > a.jitter
    # Breath takes the vocoder: the older woman's cost her no quality, the older man's did (voice_presets).
    assert design_for("older woman", "male").breathiness > 0.0 == design_for("older man", "male").breathiness


def test_a_child_is_a_childs_pitch_and_tract_over_either_source() -> None:
    # Over joe (86 Hz) a child of ten is above 200 Hz with formants a quarter above a man's.
    for child in ("girl", "boy"):
        over_man = design_for(child, "male")
        assert over_man.f0_shift >= 15.0 and over_man.formant >= 1.25
        assert design_for(child, "female").formant >= 1.25  # a quarter above the woman's own


def test_a_colour_preset_is_the_same_over_either_source() -> None:
    for name in ("deep", "bright", "husky"):
        assert design_for(name, "male") == design_for(name, "female") == preset(name).design
        assert preset(name).gender is None
    assert design_for("deep", "male").f0_shift < 0
    assert design_for("bright", "male").tilt > 0
    assert design_for("husky", "male").breathiness > 0


def test_every_preset_stays_adjustable_within_the_design_bounds() -> None:
    for name in PRESET_NAMES:
        for source in ("male", "female"):
            design = design_for(name, source)
            assert design == design.clamped()
            assert isinstance(design.with_changes(f0_shift=design.f0_shift + 1), VoiceDesign)


def test_unknown_preset_or_gender_is_one_line() -> None:
    with pytest.raises(ValueError, match=r"unknown voice preset 'wizard' \(known: woman, man"):
        design_for("wizard", "male")
    with pytest.raises(ValueError, match="unknown source gender 'robot'"):
        design_for("woman", "robot")


@pytest.mark.parametrize(("backend", "voice", "gender"), [
    ("piper", "en_US-joe-medium", "male"),
    ("kokoro", "jf_alpha", "female"),
    ("kokoro", "kokoro:jm_kumo", "male"),
    ("kokoro", "af_heart:0.3+am_adam:0.7", "male"),
    ("kokoro", "af_heart:0.7+am_adam:0.3", "female"),
])
def test_source_gender_from_the_voice_name(backend: str, voice: str, gender: str) -> None:
    assert source_gender(backend, voice) == gender


def test_a_design_is_named_by_the_preset_it_is() -> None:
    from engine.project.voice_presets import preset_matching

    assert preset_matching(design_for("girl", "female"), "female") == "girl"
    assert preset_matching(design_for("woman", "male"), "male") == "woman"
    assert preset_matching(design_for("woman", "male").with_changes(formant=1.3), "male") is None
