"""The delivery vocabulary: what a writer's direction does to the voice.

Each delivery a writer puts in parentheses ("whispering", "sad", "slowly")
maps to a :class:`Performance`: a :class:`~engine.project.design.VoiceDesign`
delta (F0 level, range and contour, formants, tilt, rate, level), the
model's own noise (Piper's noise_scale / noise_w: a nervous voice wavers),
breath (aspiration above the first formants, up to a whisper:
engine/synth/breath.py), a sound performed with the words (a sigh, a light
laugh) and silence added between the phrases of the part it directs (a
hesitant speaker stops and starts). The rate goes to the model's length
control on both backends (Piper's length_scale, Kokoro's speed), the rest to
shaping.

A delivery's breath is not its design's ``breathiness``: WORLD's breathiness
puts noise at every frequency, which the quality score and the speaker
encoder hear as damage (a whispered line scored DNSMOS 1.7, a tearful one
2.3-2.7); the breath stage keeps the voice below the crossover
(docs/dev/direction.md, "Breath that keeps the voice").

The numbers were set by ear and checked by measurement: ``bench/direction.py``
renders every delivery against the same line said plainly and measures the
change with praat-parselmouth (the table is in docs/dev/direction.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.project.defaults import LINE_BOUNDS
from engine.project.design import NEUTRAL, VoiceDesign

# How much of a delivery an intensity word asks for ("a little sad", "very quietly").
INTENSITIES: dict[str, float] = {"light": 0.5, "default": 1.0, "strong": 1.6}
_LIGHT_WORDS = ("a little", "a bit", "a touch", "slightly", "somewhat", "faintly", "mildly", "half", "almost",
                "rather", "quite", "gently")
_STRONG_WORDS = ("very", "really", "extremely", "so", "utterly", "completely", "totally", "terribly", "deeply",
                 "incredibly", "increasingly", "absolutely", "most")


# The model's noise a performance may scale by: past the strongest single direction
# (a very tearful line, 1.3 ** 1.6) the voice only garbles.
NOISE_LIMITS = (0.4, 2.0)


@dataclass(frozen=True)
class Performance:
    """How a direction moves a voice: all fields at their defaults change nothing.

    ``noise`` scales the model's noise (Piper's noise_scale and noise_w; Kokoro
    has none); ``phrase_pause`` is seconds of silence added after each
    sentence or clause the direction covers; ``breath`` (0..1) is the breath
    stage's aspiration, 1 a whisper; ``sound`` a sound performed before the
    words (one of :data:`SOUNDS`)."""

    design: VoiceDesign = NEUTRAL
    noise: float = 1.0
    phrase_pause: float = 0.0
    breath: float = 0.0
    sound: str = ""

    @property
    def is_neutral(self) -> bool:
        return (self.design.is_neutral and self.noise == 1.0 and self.phrase_pause == 0.0
                and self.breath == 0.0 and not self.sound)

    def then(self, other: Performance) -> Performance:
        """Both at once (``(angry, quietly)``); like a design, clamped: a group of a hundred
        directions must not ask for a noise or a silence after every sentence no voice makes.
        Breath combines as independent shares; the later sound wins."""
        return Performance(self.design.then(other.design),
                           min(max(self.noise * other.noise, NOISE_LIMITS[0]), NOISE_LIMITS[1]),
                           min(self.phrase_pause + other.phrase_pause, LINE_BOUNDS.phrase_pause_s),
                           min(1.0, 1.0 - (1.0 - self.breath) * (1.0 - other.breath)), other.sound or self.sound)

    def scaled(self, amount: float) -> Performance:
        return Performance(self.design.scaled(amount), self.noise ** amount, self.phrase_pause * amount,
                           min(1.0, self.breath * amount), self.sound if amount > 0 else "")


NEUTRAL_PERFORMANCE = Performance()
# The sounds a delivery may perform before its words (engine/synth/breath.py makes them).
SOUNDS = ("sigh", "laugh")


@dataclass(frozen=True)
class Delivery:
    """A direction's performance. ``levelled``: its level change is levelled as the role's
    plain lines are (engine/mixdown/dialogue.py ``intended_db`` leaves it out), not kept
    as an offset over them."""

    name: str
    synonyms: tuple[str, ...]
    performance: Performance
    levelled: bool = False


def _d(name: str, synonyms: str, noise: float = 1.0, phrase_pause: float = 0.0, breath: float = 0.0,
       sound: str = "", levelled: bool = False, **design: float) -> Delivery:
    words = tuple(s.strip() for s in synonyms.split(",") if s.strip())
    return Delivery(name, words, Performance(VoiceDesign(**design).clamped(), noise, phrase_pause, breath, sound),
                    levelled)


# name, the words writers use for it, then its performance.
VOCABULARY: tuple[Delivery, ...] = (
    _d("whispering", "whisper, whispers, whispered, in a whisper, under his breath, under her breath, "
       "under their breath, sotto voce", breath=1.0, gain=-9.0, rate=0.95),
    _d("quietly", "quiet, softly, soft, low, hushed, murmuring, murmurs, murmured, gently",
       breath=0.35, gain=-6.0, tilt=-2.0, f0_shift=-1.5, f0_range=0.8),
    _d("shouting", "shout, shouts, shouted, yelling, yells, yelled, loud, loudly, bellowing, screaming, "
       "screams, calling out, calls out, calling", gain=8.0, f0_shift=4.0, f0_range=1.3, tilt=4.0, noise=1.1),
    # A voice raised over loud surroundings (the Lombard effect): louder, higher and brighter, a
    # little slower. The importer writes "over the storm" on the lines of a scene outside in
    # loud weather (engine/project/weather.py); levelled as the role's plain lines are
    # (``levelled``): its loudness is the speaker's in that place, not an offset over them.
    _d("raised", "raised voice, raising his voice, raising her voice, raising their voice, voice raised, "
       "over the storm, over the wind, over the rain, over the sea, over the waves, over the noise, "
       "over the engine, above the storm, above the wind, above the noise", levelled=True,
       gain=3.0, f0_shift=2.0, f0_range=1.1, tilt=3.0, rate=0.95),
    _d("angry", "angrily, anger, annoyed, irritated, cross, snapping, snaps, heated",
       gain=4.0, f0_shift=2.0, f0_range=1.3, tilt=3.0, rate=1.12),
    _d("furious", "furiously, enraged, raging, livid, seething", gain=7.0, f0_shift=3.5, f0_range=1.5, tilt=5.0,
       rate=1.12),
    _d("sad", "sadly, sorrowful, mournful, glum, downcast, heartbroken, grieving",
       f0_shift=-2.0, f0_range=0.6, f0_slope=-1.5, rate=0.75, gain=-3.0, tilt=-2.0),
    _d("tearful", "tearfully, crying, cries, in tears, sobbing, sobs, choked, choking up, weeping",
       f0_shift=1.0, f0_range=1.3, breath=0.35, rate=0.85, gain=-3.0, noise=1.3),
    _d("excited", "excitedly, thrilled, delighted, eager, eagerly, elated, overjoyed",
       f0_shift=3.0, f0_range=1.5, rate=1.15, gain=3.0, tilt=2.0),
    _d("nervous", "nervously, anxious, anxiously, uneasy, worried, jittery, on edge",
       f0_shift=1.5, rate=1.2, breath=0.2, noise=1.3, phrase_pause=0.15),
    _d("frightened", "scared, afraid, terrified, fearful, fearfully, panicked, panicking",
       f0_shift=3.0, f0_range=1.2, breath=0.3, rate=1.12, noise=1.3),
    _d("tired", "tiredly, weary, wearily, exhausted, sleepy, sleepily, drowsy",
       f0_shift=-1.5, f0_range=0.6, rate=0.8, gain=-3.0, breath=0.2, tilt=-2.0),
    _d("cold", "coldly, icy, icily, flat, flatly, detached, curt, curtly", f0_range=0.5, f0_shift=-1.0,
       rate=0.95, noise=0.6),
    _d("warm", "warmly, kindly, tender, tenderly, affectionate, affectionately, fond, fondly",
       f0_range=1.25, tilt=-2.0, rate=0.95, breath=0.1, f0_shift=-0.5),
    _d("sarcastic", "sarcastically, mocking, mockingly, wry, wryly, ironic, ironically",
       f0_range=1.4, rate=0.75, f0_slope=1.0),
    # Dry is understated, not sarcastic: flat, a touch low, a little quicker, never drawn out.
    _d("dry", "drily, dryly, deadpan, deadpanned, laconic, laconically, matter-of-fact, matter-of-factly",
       f0_range=0.7, f0_shift=-0.5, rate=1.04, noise=0.8),
    # A laugh performed before the words, then a smile in them (formants up: spread lips).
    _d("laughing", "laughs, laughingly, chuckling, chuckles, giggling, giggles, through laughter",
       sound="laugh", f0_shift=2.0, f0_range=1.4, formant=1.04, breath=0.3, rate=1.05, noise=1.4),
    _d("amused", "amusedly, wry smile, smiling, smiles, playful, playfully, teasing, teasingly",
       f0_shift=1.0, f0_range=1.3, formant=1.05, tilt=1.0, breath=0.1),
    # An exhaled breath before the words, then a falling, breathier line.
    _d("sighing", "sigh, sighs, sighed, with a sigh, heavy sigh, sighing heavily",
       sound="sigh", breath=0.3, f0_shift=-1.0, f0_slope=-2.0, rate=0.92, gain=-2.0),
    _d("urgent", "urgently, hurried, hurriedly, insistent, insistently, pressing",
       rate=1.3, gain=3.0, f0_shift=1.5, tilt=2.0),
    _d("slowly", "slow, slower, deliberately, deliberate, measured, drawn out", rate=0.75),
    _d("quickly", "quick, fast, rapidly, rapid, faster, rushed, in a rush, gabbling", rate=1.3),
    _d("hesitant", "hesitantly, hesitating, hesitates, haltingly, halting, unsure, uncertain, faltering",
       rate=0.8, phrase_pause=0.25, f0_range=0.85),
    _d("breathless", "breathlessly, out of breath, panting, pants, gasping, winded",
       breath=0.6, rate=1.15, phrase_pause=0.15, gain=-1.0),
    _d("calm", "calmly, evenly, steady, steadily, soothing, soothingly, reassuring, reassuringly",
       f0_range=0.8, rate=0.92),
    _d("firm", "firmly, stern, sternly, commanding, authoritative, resolute", gain=2.0, f0_range=0.9,
       f0_slope=-1.5, tilt=1.0),
    _d("pleading", "pleads, begging, begs, imploring, desperate, desperately", f0_shift=2.0, f0_range=1.3,
       rate=0.92, breath=0.15),
    _d("menacing", "menacingly, threatening, threateningly, sinister, dangerous", f0_shift=-2.0, rate=0.75,
       gain=-1.0, tilt=-2.0, breath=0.15),
    _d("surprised", "surprise, astonished, amazed, shocked, startled", f0_shift=3.0, f0_range=1.4, gain=1.0),
    _d("puzzled", "confused, puzzling, bewildered, baffled, questioning", f0_slope=2.5, rate=0.95),
)

_BY_NAME = {d.name: d for d in VOCABULARY}
_BY_WORD: dict[str, Delivery] = {}
for _delivery in VOCABULARY:
    for _word in (_delivery.name, *_delivery.synonyms):
        _BY_WORD.setdefault(_word, _delivery)
_LONGEST_FIRST = sorted(_BY_WORD, key=len, reverse=True)
LONGEST_DELIVERY_CHARS = len(_LONGEST_FIRST[0])  # all match_leading_delivery needs to see of a text
_BY_INITIAL: dict[str, list[str]] = {}  # a line of unclosed brackets asks once per bracket
for _word in _LONGEST_FIRST:
    _BY_INITIAL.setdefault(_word[:1], []).append(_word)
_SPACES = re.compile(r"\s+")
_EDGE_PUNCT = " .,;:!?-—–'\"“”‘’"


def delivery(name: str) -> Delivery:
    """A delivery by its name; KeyError names the known ones."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown delivery {name!r} (known: {', '.join(_BY_NAME)})") from None


def delivery_names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def _normal(text: str) -> str:
    return _SPACES.sub(" ", text.lower()).strip(_EDGE_PUNCT)


def match_delivery(term: str) -> tuple[Delivery, str] | None:
    """``"very quietly"`` -> (quietly, "strong"); ``"a little sad"`` -> (sad, "light");
    None when no vocabulary word is the whole term after its intensity word."""
    text = _normal(term)
    intensity = "default"
    for words, level in ((_STRONG_WORDS, "strong"), (_LIGHT_WORDS, "light")):
        for word in words:
            if text.startswith(word + " "):
                text, intensity = text[len(word) + 1:].strip(), level
                break
        if intensity != "default":
            break
    found = _BY_WORD.get(text)
    return (found, intensity) if found is not None else None


def match_leading_delivery(text: str) -> tuple[Delivery, str, int] | None:
    """A vocabulary word at the start of ``text`` (for an unclosed parenthesis:
    ``quietly She has...``): (delivery, intensity, characters it covers)."""
    lower = text.lower()
    for word in _BY_INITIAL.get(lower[:1], ()):
        if lower.startswith(word) and (len(lower) == len(word) or not lower[len(word)].isalnum()):
            return _BY_WORD[word], "default", len(word)
    return None
