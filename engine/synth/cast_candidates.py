"""What a role can be cast as: every installed sound as it is, under each speaker preset
(woman, girl, older man, ...) and, for more voices of a kind, under each colour (deep,
bright, full); who each candidate makes (gender, age) and which fit a role.

Both castings draw from here: the quick one (engine/synth/casting.py) takes the least
transformed fitting candidate no other role has, the measured one
(engine/check/casting.py) measures them apart. So a woman is cast on a female voice or a
woman's design, a child on a child's design and an older role on an older one, on the
plain install (designs over joe) as with Kokoro's styles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.project.defaults import DEFAULT_BACKEND
from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.engines import listed_id
from engine.project.model import Character, VoiceParams
from engine.project.voice_presets import design_for, source_gender, speaker_presets
from engine.synth.backends.registry import backend_class


@dataclass(frozen=True)
class Casting:
    """One distinct sound before any design: a voice, and a speaker of it."""

    voice: str
    speaker: int | str | None = None
    backend: str = DEFAULT_BACKEND


COLOURS = ("deep", "bright", "full")  # more voices of each kind, when the plain ones are too alike
# A colour over a Kokoro style's design does not take its pitch past this: the man over
# jf_gongitsune (-12 st) kept the narrator's words (WER 0.444, plain 0.454, the sample's six
# narrator lines), deep over him (-16 st) lost seven more of 108 (0.519), at tract x0.83 or x0.85.
KOKORO_COLOUR_F0_LIMIT_ST = 13.0
KOKORO_TRACT_FLOOR = 0.85  # nor its tract past the man's over a woman (x0.855, measured above)
# Over joe a longer tract costs words fast (x0.9: WER 0.54 against 0.13 plain, docs/dev/voice-design.md):
# a colour leaves his tract at most this much longer than his own.
PIPER_TRACT_FLOOR = 0.97


@dataclass(frozen=True)
class Candidate:
    """One sound a role can take: a source voice under a design (neutral: as installed)."""

    casting: Casting
    design: VoiceDesign
    gender: str
    age: str
    label: str  # for a person: "kokoro:jf_alpha as girl" (engines.listed_id)
    transformed: int  # 0 as installed, 1 a colour, 2 a speaker preset: ties go to the least
    source_gender: str = ""  # the installed voice's: a girl over a woman's voice is less of a stretch
    colour: str = ""  # the colour preset over the speaker (deep, bright, full), if any

    def voice(self, base: VoiceParams) -> VoiceParams:
        return base.with_changes(backend=self.casting.backend, voice=self.casting.voice,
                                 speaker=self.casting.speaker, design=self.design, pitch=0.0, speed=1.0)


def named_gender(casting: Casting) -> str:
    """The gender a source is taken for before it is measured: a Kokoro style's name says it
    (af_, jm_); a Piper voice is taken for a man (the bundled joe is one) until its F0 is
    measured (engine/check/casting.py ``source_gender``, kept by the measured cast)."""
    return source_gender(casting.backend, casting.voice)


def candidates(sources: Sequence[tuple[Casting, str]], colours: bool = False) -> list[Candidate]:
    """Every source as installed and under each speaker preset; with ``colours``,
    each of those under each colour (deep, bright, full) instead. Over a Kokoro style an
    adult's or an older design never shortens the vocal tract (formant at most 1): measured
    with the general recognizer, a shorter envelope costs most of a style's words (jf_nezumi:
    WER 0.18 as installed, 0.58 at x1.07, 0.93 at x1.24) where a longer one keeps them (x0.9:
    0.05; the man over jf_gongitsune, x0.855: 0.00 against 0.17 with the tract kept;
    docs/dev/voices.md). A child keeps the tract its preset asks for: without it the boy over
    jm_kumo was a man at a raised pitch (F2 1.03 times the man's), and Whisper base hears
    every word of the child over a Kokoro style (bench/ages.py, docs/dev/voice-design.md)."""
    result: list[Candidate] = []
    for casting, gender in sources:
        keeps_tract = not backend_class(casting.backend).tract_may_shorten  # an adult's, over this engine
        name = listed_id(casting.backend, casting.voice)
        if casting.speaker is not None:
            name += f" speaker {casting.speaker}"
        speakers = [Candidate(casting, NEUTRAL, gender, "adult", name, 0, gender)]
        for p in speaker_presets():
            if p.gender == gender and p.age == "adult":
                continue  # the source as installed already is one
            assert p.gender is not None and p.age is not None
            design = design_for(p.name, gender)
            never_shorter = keeps_tract and p.age != "child"
            speakers.append(Candidate(casting, _no_shorter(design) if never_shorter else design,
                                      p.gender, p.age, f"{name} as {p.name}", 2, gender))
        if not colours:
            result.extend(speakers)
            continue
        for cand in speakers:
            never_shorter = keeps_tract and cand.age != "child"
            for colour in COLOURS:
                design = cand.design.then(design_for(colour, cand.gender))
                if keeps_tract:
                    if never_shorter:
                        design = _no_shorter(design)
                    if (never_shorter and abs(design.f0_shift) > KOKORO_COLOUR_F0_LIMIT_ST
                            or design.formant < KOKORO_TRACT_FLOOR):
                        continue  # deep over the man over a woman's style: the words go (see the constants)
                elif design.formant < PIPER_TRACT_FLOOR:
                    continue
                result.append(Candidate(casting, design, cand.gender, cand.age, f"{cand.label}, {colour}",
                                        cand.transformed + 1, gender, colour))
    return result


def _no_shorter(design: VoiceDesign) -> VoiceDesign:
    return design.with_changes(formant=min(design.formant, 1.0))


def fits(candidate: Candidate, character: Character) -> bool:
    if character.gender and candidate.gender != character.gender:
        return False
    if character.age:
        return candidate.age == character.age
    return candidate.age == "adult"  # unknown age: an adult voice, the least surprising


def preference(candidate: Candidate) -> tuple[int, bool, bool]:
    """Among fitting candidates, the more natural first: the least transformed, then one that
    does not deepen a woman or a child (deep over a woman's design over joe is 140 Hz), then
    one whose source is of the role's gender (a girl from a woman's voice, a boy from a man's)."""
    deepened = candidate.colour == "deep" and (candidate.gender == "female" or candidate.age == "child")
    return candidate.transformed, deepened, candidate.source_gender != candidate.gender
