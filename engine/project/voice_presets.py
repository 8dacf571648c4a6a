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
voices slower, darker, with a narrower and less steady pitch. Over the bundled
joe (about 86 Hz) a woman is +12 st (175 Hz), a girl +17 (232 Hz), a boy +16
(219 Hz), each child with the tract x1.28-1.30. Heard by Whisper base
(bench/ages.py, docs/dev/voice-design.md) none costs words against the plain
voice. They lengthen the tract (formant below 1) only a little: warping the
envelope down cost pocketsphinx's words fast (0.13 plain, 0.24 at 0.95, 0.54
at 0.9). Every field stays adjustable in
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
    # A child of ten: about 220-245 Hz and formants 25-35 % above a man's (a tract a fifth
    # shorter). Heard by Whisper base (bench/ages.py, 16 held-out sentences, docs/dev/voice-design.md)
    # the tract up to x1.35 over joe and jm_kumo costs two words in 160 at most (0.000-0.013
    # against 0.006 plain) where pocketsphinx's general model lost them (x1.28: 0.22 against 0.10 over joe; over a
    # Kokoro style most words at x1.2), so the tract is the child's own at x1.28-1.30. Over a woman
    # the child is her own over_female: a woman's pitch (a Kokoro woman speaks at about 233 Hz)
    # raised a little and her tract a quarter shorter (the child over a man with the woman taken
    # out would be x1.09-1.11 only): over jf_gongitsune x1.26-1.30 puts the mean F2 1.13-1.14
    # times jm_kumo's and costs 0.019-0.038 of the words against 0.006. The boy keeps her rate
    # there: quicker, he lost 0.064.
    Preset("girl", FEMALE, "child", VoiceDesign(f0_shift=17.0, formant=1.3, f0_range=1.25, tilt=2.0),
           "a girl of about ten: highest pitch, short tract",
           over_female=VoiceDesign(f0_shift=2.0, formant=1.3, f0_range=1.1)),
    Preset("boy", MALE, "child", VoiceDesign(f0_shift=16.0, formant=1.28, f0_range=1.2, tilt=1.0, rate=1.05),
           "a boy of about ten: high pitch, short tract",
           over_female=VoiceDesign(f0_shift=1.0, formant=1.26, f0_range=1.05)),
    # Older: narrower (range x0.7), darker, slower and unsteady (jitter 3 %: Praat's local
    # jitter about 1 % above the same design without it). The older woman is lower than a
    # woman and a little breathy (breath takes the vocoder: over joe DNSMOS 2.88 against 2.90
    # without it, over jm_kumo 2.64 where the older woman before, without breath or jitter,
    # had 2.79); the older man keeps PSOLA, without breath: through the vocoder he lost words
    # and DNSMOS over joe (WER 0.051 against 0.013, DNSMOS 2.84 against 3.17). He is 1 st
    # lower only: joe at 86 Hz taken 2.5 st down is creak (DNSMOS 2.42 against 3.20 plain).
    Preset("older woman", FEMALE, "older",
           VoiceDesign(f0_shift=9.0, formant=1.13, f0_range=0.7, breathiness=0.08, jitter=0.03, tilt=-2.0,
                       rate=0.92),
           "a woman of seventy: lower than a young woman, narrower, darker, slower, a little breathy and unsteady"),
    Preset("older man", MALE, "older",
           VoiceDesign(f0_shift=-1.0, f0_range=0.7, jitter=0.03, tilt=-2.0, rate=0.92),
           "a man of seventy: lower, narrower, darker, slower, unsteady"),
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


def over_female_source(design: VoiceDesign) -> VoiceDesign:
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
    return over_female_source(chosen.design)


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
