"""Voice design presets a producer understands: woman, man, girl, boy, ...

A preset names what a listener should hear; what that takes depends on the
voice it transforms. The speaker presets (woman, man, girl, boy, older
woman, older man) are kept as designs over an adult *male* voice (the
bundled joe) and converted for a female source by removing what makes a man
a woman (:func:`design_for`): "woman" over a female Kokoro style is neutral,
"man" over it lowers the pitch and lengthens the tract. The character
presets (deep, bright, husky, ...) colour any voice the same way.

The figures follow the measured differences between adult male, female and
child speech: F0 about an octave apart between men and women (~110 vs
~210 Hz, 11-12 st), children higher still; formants about 15-20 % higher in
women than in men and 25-35 % in children (a shorter vocal tract); older
voices slower, darker, with a narrower pitch range. Over the bundled joe
(about 88 Hz) a woman is +12 st (176 Hz), a girl +16 (223 Hz), a boy +12;
measured with the recognizer through PSOLA (docs/dev/voice-design.md), none
costs words against the plain voice (word error rate 0.09-0.15 against 0.13
on 16 held-out sentences). They lengthen the tract (formant below 1) only a
little: warping the envelope down cost words fast (0.13 plain, 0.24 at 0.95,
0.54 at 0.9) where warping it up did not. Every field stays adjustable in
Cast > Design Voice.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.engines import engine_named

FEMALE = "female"
MALE = "male"
GENDERS = (FEMALE, MALE)


@dataclass(frozen=True)
class Preset:
    """A named design: ``gender`` / ``age`` are who it makes (``None``: it keeps
    the source's, a colour such as "deep"); ``design`` is over an adult male
    voice for a speaker preset, over any voice for a colour."""

    name: str
    gender: str | None
    age: str | None  # "child", "adult", "older"
    design: VoiceDesign
    description: str
    # Over a female source, where taking the woman out of ``design`` falls short (see design_for).
    over_female: VoiceDesign | None = None


PRESETS: tuple[Preset, ...] = (
    Preset("woman", FEMALE, "adult", VoiceDesign(f0_shift=12.0, formant=1.17, f0_range=1.15, tilt=1.0),
           "an adult woman: an octave higher, a shorter vocal tract"),
    Preset("man", MALE, "adult", NEUTRAL, "an adult man"),
    # The tract stops at 1.22 over a man: at 1.28 the recognizer lost twice the words (0.22
    # against 0.10). Over a woman the same girl is a tract x1.04 only (1.22 / 1.17), which the
    # speaker encoder hears as the woman herself (0.97 over jf_nezumi); a child's formants are
    # 15-25 % above a woman's, and x1.24 over a Kokoro woman kept DNSMOS above 3.0 and set her
    # apart (0.74-0.79 to the plain styles; bench/cast_search.py, docs/dev/voices.md).
    Preset("girl", FEMALE, "child", VoiceDesign(f0_shift=16.0, formant=1.22, f0_range=1.25, tilt=2.0),
           "a girl of about ten: highest pitch, short tract",
           over_female=VoiceDesign(f0_shift=3.0, formant=1.24, f0_range=1.1)),
    Preset("boy", MALE, "child", VoiceDesign(f0_shift=12.0, formant=1.22, f0_range=1.2, tilt=1.0, rate=1.05),
           "a boy of about ten: high pitch, short tract"),
    # The older two add no breath: over a Kokoro style the vocoder's breath cost the words
    # (the older man over jm_kumo: WER 0.342 against 0.184 plain on six lines) where
    # PSOLA's lower, narrower, darker and slower voice does not (docs/dev/voices.md).
    Preset("older woman", FEMALE, "older",
           VoiceDesign(f0_shift=9.0, formant=1.13, f0_range=0.8, tilt=-2.0, rate=0.92),
           "a woman of seventy: lower than a young woman, narrower, darker, slower"),
    Preset("older man", MALE, "older",
           VoiceDesign(f0_shift=-2.5, f0_range=0.75, tilt=-3.0, rate=0.92),
           "a man of seventy: lower, narrower, darker, slower"),
    Preset("deep", None, None, VoiceDesign(f0_shift=-4.0, formant=0.97, tilt=-1.0),
           "lower and larger: a lower pitch, a slightly longer vocal tract"),
    Preset("bright", None, None, VoiceDesign(f0_shift=1.0, tilt=4.0),
           "forward and clear: more upper spectrum"),
    # Over jf_nezumi the one design the speaker encoder heard as a new woman (0.71 at most to
    # the plain styles, joe and jm_kumo as women) with her words kept (WER 0.10 against 0.18
    # as installed): the longer tract alone is the style herself (0.90), the lift with it is not.
    Preset("full", None, None, VoiceDesign(f0_shift=3.0, formant=0.9, tilt=3.0),
           "fuller and rounder: a longer vocal tract, the pitch and the upper spectrum lifted to keep it clear"),
    Preset("husky", None, None, VoiceDesign(f0_shift=-1.0, breathiness=0.35, tilt=-3.0),
           "rough and breathy"),
    Preset("soft", None, None, VoiceDesign(breathiness=0.2, tilt=-4.0, f0_range=0.85, gain=-3.0),
           "gentle and close: breathy, darker, quieter"),
    Preset("lively", None, None, VoiceDesign(f0_range=1.5, rate=1.08, tilt=1.0),
           "animated: a wider pitch range, a little quicker"),
    Preset("flat", None, None, VoiceDesign(f0_range=0.4, rate=0.95),
           "weary or deadpan: a narrow pitch range, a little slower"),
)

_BY_NAME = {p.name: p for p in PRESETS}
PRESET_NAMES = tuple(_BY_NAME)


def preset(name: str) -> Preset:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown voice preset {name!r} (known: {', '.join(PRESET_NAMES)})") from None


def speaker_presets() -> tuple[Preset, ...]:
    """The presets that make a speaker of a gender and age (for casting)."""
    return tuple(p for p in PRESETS if p.gender is not None)


def _without_sex(design: VoiceDesign) -> VoiceDesign:
    """``design`` for a female source: the pitch, tract and range of an adult
    woman over a man (the "woman" preset) taken out, its colour kept."""
    woman = _BY_NAME["woman"].design
    return design.with_changes(
        f0_shift=design.f0_shift - woman.f0_shift,
        formant=design.formant / woman.formant,
        f0_range=design.f0_range / woman.f0_range,
        tilt=design.tilt - woman.tilt,
    ).clamped()


def design_for(name: str, source_gender: str) -> VoiceDesign:
    """The design that makes preset ``name`` from a source voice of
    ``source_gender`` ("male" or "female"; the bundled joe is male, Kokoro's
    jf_* styles female). A colour preset is the same over either."""
    chosen = preset(name)
    if source_gender not in GENDERS:
        raise ValueError(f"unknown source gender {source_gender!r} (known: {', '.join(GENDERS)})")
    if chosen.gender is None or source_gender == MALE:
        return chosen.design
    if chosen.over_female is not None:
        return chosen.over_female
    return _without_sex(chosen.design)


def source_gender(backend: str, voice: str) -> str:
    """The gender a design starts from, as far as the voice's name tells:
    a Kokoro style's second letter (``af_heart``, ``jm_kumo``; a blend by
    its heaviest part), otherwise male (the bundled Piper voice, joe, is an
    adult man; a producer corrects it in Cast > Design Voice)."""
    return engine_named(backend).gender(voice) or MALE


def preset_matching(design: VoiceDesign, gender: str) -> str | None:
    """The preset that is exactly ``design`` over a source of ``gender``, if any
    (what the cast table calls a designed voice)."""
    return next((p.name for p in PRESETS if design_for(p.name, gender) == design), None)
