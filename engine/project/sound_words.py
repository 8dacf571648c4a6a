"""Sounds a screenplay describes in its action lines, read as suggested cues.

An ordinary screenplay does not write ``SFX:``; it writes ``Gulls. A diesel engine
idles.`` or ``Wind howls around the glass.`` in its action. Each sentence of an action
paragraph is looked up in :data:`VOCABULARY` (a sound: the words that name it in a
script, the lane it plays on, the words its file in the library would be named with),
and every sound found becomes one suggestion with the sentence as its evidence
(engine/project/importers/build.py makes them; engine/synth/sound_library.py matches
them to the library). A table, not a model: what it suggests is what a producer can
check by reading it, and a sound nobody listed is simply not suggested. One entry per
sound; a phrase pattern where the bare word is too often something else (a door is
opened silently; a phone that rings is a sound).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SoundWord:
    """A sound a script may describe: ``pattern`` (a regular expression, matched as whole
    words, any case) finds it; ``lane_kind`` is the lane it plays on (a steady sound an
    ambience bed, a single event an effect); ``library`` are the words a library file for
    it is named with (``door-knock.flac`` holds ``knock``)."""

    name: str
    pattern: str
    lane_kind: str
    library: tuple[str, ...]


def _w(name: str, pattern: str, lane_kind: str, library: str = "") -> SoundWord:
    return SoundWord(name, pattern, lane_kind, tuple((library or name).split()))


VOCABULARY: tuple[SoundWord, ...] = (
    _w("gulls", r"(?:sea)?gulls?", "ambience", "gull seagull"),
    _w("birdsong", r"birdsong|birds? (?:sing|sings|singing|call|calls)", "ambience", "bird birdsong"),
    _w("engine", r"(?:diesel |car |boat )?engines?|motors?|outboard", "ambience", "engine motor"),
    _w("rain", r"rain(?:s|ing|fall)?|drizzle|downpour", "ambience", "rain"),
    _w("wind", r"wind|gales?|gusts?", "ambience", "wind gale"),
    _w("storm", r"storm", "ambience", "storm"),
    _w("waves", r"waves? (?:break|breaks|crash|crashes|lap|laps)|surf|breakers", "ambience", "wave surf sea"),
    _w("crowd", r"crowd|murmur(?:s|ing)?|chatter", "ambience", "crowd murmur chatter"),
    _w("fire", r"fire crackles|crackling fire|fire crackling", "ambience", "fire"),
    _w("kettle", r"kettle", "effects", "kettle"),
    _w("thunder", r"thunder(?:s|clap|claps)?", "effects", "thunder"),
    _w("knock", r"knock(?:s|ing|ed)?(?: at| on)?(?: the)? door|knock(?:s|ing)?", "effects", "knock"),
    _w("door", r"doors? (?:slams?|bangs?|creaks?|opens?|closes?|shuts?)|slams? the door", "effects", "door"),
    _w("footsteps", r"footsteps?|footfalls?", "effects", "footstep footfall"),
    _w("phone", r"(?:tele)?phones? (?:rings?|ringing)|ringing (?:tele)?phone", "effects", "phone telephone"),
    _w("bell", r"bells?|chimes?", "effects", "bell chime"),
    _w("clock", r"clocks? (?:ticks?|ticking|strikes?|chimes?)|ticking clock", "effects", "clock tick"),
    _w("dog", r"dogs? (?:barks?|barking|growls?|whines?)|barking", "effects", "dog bark"),
    _w("glass", r"glass (?:breaks|shatters|smashes)|shatter(?:s|ing)", "effects", "glass shatter smash"),
    _w("gunshot", r"gun ?shots?|gunfire|shots? rings? out", "effects", "gunshot shot"),
    _w("siren", r"sirens?", "effects", "siren"),
    _w("horn", r"(?:car )?horns? (?:blares?|honks?|sounds?)|fog ?horn", "effects", "horn foghorn"),
    _w("static", r"static|radio (?:crackles|hisses)", "effects", "static"),
    _w("applause", r"applause|applaud(?:s|ing)?", "effects", "applause"),
    _w("drip", r"drip(?:s|ping)|tap runs|running water", "effects", "drip water"),
    _w("music", r"music (?:plays|playing|swells)|(?:song|tune) plays", "music", "music theme"),
)

_FOUND = re.compile("|".join(f"(?P<s{i}>\\b(?:{w.pattern})\\b)" for i, w in enumerate(VOCABULARY)), re.I)
# A sentence ends at . ! or ? followed by space (or the end); an ellipsis does not end one.
_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+|$)")
MAX_SENTENCE_CHARS = 400  # evidence is quoted in menus and reports: a longer "sentence" is cut


@dataclass(frozen=True)
class FoundSound:
    """A sound read in an action sentence: which, the words that named it, the sentence."""

    sound: SoundWord
    words: str  # as the script wrote them ("Rain", "A diesel engine")
    sentence: str
    alone: bool  # the only sound of its sentence

    @property
    def cue(self) -> str:
        """What the clip is called: the sentence where it names this sound alone ("A diesel
        engine idles"), else the words that named it ("Rain", "wind")."""
        return self.sentence.rstrip(".!? ") if self.alone else self.words


SOUND_WORDS = {w.name: w for w in VOCABULARY}


def sentences(text: str) -> list[str]:
    """An action paragraph's sentences, whitespace collapsed."""
    flat = " ".join(text.split())
    return [s.strip()[:MAX_SENTENCE_CHARS] for s in _SENTENCE.findall(flat) if s.strip()]


def find_sounds(text: str) -> list[FoundSound]:
    """Every sound the action ``text`` describes, in order, once per sentence each."""
    found: list[FoundSound] = []
    for sentence in sentences(text):
        seen: dict[str, tuple[SoundWord, str]] = {}
        for m in _FOUND.finditer(sentence):
            index = int(next(k for k, v in m.groupdict().items() if v is not None)[1:])
            sound = VOCABULARY[index]
            seen.setdefault(sound.name, (sound, m.group()))
        for sound, words in seen.values():
            found.append(FoundSound(sound, words, sentence, len(seen) == 1))
    return found
