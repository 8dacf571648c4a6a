"""A scene's weather and exposure, read from its heading and first action lines.

Weather is not part of a room: a storm on a lighthouse's gallery is the gallery
(open air, the lamp room's glass behind: engine/project/staging.py) with a storm
around it. What the weather changes is what is heard over the room: a bed of it
under the scene, and, outside in loud weather, voices raised over it (the
Lombard effect: a speaker in noise talks louder, higher and brighter, a little
slower), which the importer writes into the line's Delivery note as ``over the
storm`` (the ``raised`` delivery, engine/project/deliveries.py): visible in the
script, and removed there by a producer who wants the line said plainly.

One table row per kind of weather (the words that name it, whether voices are
raised over it outside, the sound its bed is), checked against the heading
and the action paragraphs before the scene's first line of dialogue; the
sentences that named it are the evidence shown beside the scene's room.

The beds (:func:`scene_beds`) are suggested sounds of kind ``bed`` (the
action-line suggestions' model, engine/project/sound.py ``SoundSuggestion``):
a bed of each weather the scene's heading or opening names, or, where it
names none, of what an exposed place is heard with (wind on a gallery or a
clifftop, the sea at a harbour wall or a beach), standing before the
scene's first line and lasting the scene once accepted, matched to the
sound library like any suggestion (engine/synth/sound_library.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.project.staging import DEVICE_PERSPECTIVES, Room
from engine.project.staging_rules import OPENING_CHARS

MAX_EVIDENCE_CHARS = 160


@dataclass(frozen=True)
class WeatherWord:
    """A kind of weather: ``name``, the ``pattern`` that finds it (whole words, any case),
    whether a voice outside is ``loud``: raised over it, and the ``bed`` it is heard as (a
    name of engine/project/sound_words.py's vocabulary; "" for an event, not a bed)."""

    name: str
    pattern: str
    loud: bool
    bed: str


WEATHER: tuple[WeatherWord, ...] = (
    WeatherWord("storm", r"storms?|stormy|gales?|hurricane|tempest|blizzard|squalls?", loud=True, bed="storm"),
    WeatherWord("wind", r"wind|winds|windy|gusts?|gusting", loud=True, bed="wind"),
    WeatherWord("rain", r"heavy rain|pouring rain|lashing rain|downpour|rain|raining|rains|drizzle|sleet|hail",
                loud=False, bed="rain"),
    WeatherWord("sea", r"surf|breakers|heavy seas?|waves? (?:crash|crashes|crashing|break|breaks|pound|pounds)",
                loud=True, bed="waves"),
    WeatherWord("thunder", r"thunder|thunderclaps?", loud=False, bed=""),  # claps: effects, cued where they fall
    WeatherWord("gulls", r"(?:sea)?gulls?", loud=False, bed="gulls"),
)
_BEDS = {w.name: w.bed for w in WEATHER}
# What an exposed place is heard with when its scene names no weather (outdoor rooms only).
EXPOSED_BEDS: dict[str, str] = {"gallery": "wind", "open air": "wind", "harbour": "waves", "beach": "waves"}
# Rain raises voices only when it is heavy (named so): a drizzle does not.
_HEAVY_RAIN = re.compile(r"\b(?:heavy|pouring|lashing|driving|torrential)\s+rain\b|\bdownpour\b", re.I)
_PATTERNS = tuple((re.compile(rf"\b(?:{w.pattern})\b", re.I), w) for w in WEATHER)
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


@dataclass(frozen=True)
class SceneWeather:
    """The weather a scene names (``kinds``, in table order), the one voices outside are
    raised over (``loud``: its name, "" for none) and the evidence (the words that said
    so)."""

    kinds: tuple[str, ...]
    loud: str
    evidence: str
    said: tuple[str, ...] = ()  # per kind, the sentence that named it


def scene_weather(heading: str, action: Sequence[str] = ()) -> SceneWeather | None:
    """The weather a scene's heading and first action paragraphs name; None for none."""
    sentences = [heading.strip()] + [s.strip() for s in _SENTENCE.findall(" ".join(action)[:OPENING_CHARS])]
    found: dict[str, str] = {}  # kind -> the first sentence that named it
    loud = ""
    for sentence in sentences:
        for pattern, word in _PATTERNS:
            if word.name in found or not pattern.search(sentence):
                continue
            found[word.name] = sentence
            heavy = word.name == "rain" and _HEAVY_RAIN.search(sentence) is not None
            if not loud and (word.loud or heavy):
                loud = word.name
    if not found:
        return None
    kinds = tuple(w.name for w in WEATHER if w.name in found)
    said: dict[str, list[str]] = {}  # heading / action -> the sentences, quoted
    for sentence in dict.fromkeys(found[kind] for kind in kinds):
        text = sentence if len(sentence) <= MAX_EVIDENCE_CHARS else sentence[:MAX_EVIDENCE_CHARS - 1] + "…"
        said.setdefault("heading" if sentence == sentences[0] else "action", []).append(f"“{text}”")
    where = "; ".join(f"{part} says {' '.join(quotes)}" for part, quotes in said.items())
    return SceneWeather(kinds, loud, f"weather {', '.join(kinds)} ({where})", tuple(found[k] for k in kinds))


def raised_over(weather: SceneWeather | None, room: Room | None, perspective: str) -> str:
    """The Delivery note term a line is raised with (``over the storm``), or "": a voice
    outside in loud weather, in the scene (not one heard through a device or a voice-over,
    which is not out there)."""
    if weather is None or not weather.loud or room is None or not room.outdoor:
        return ""
    if perspective in DEVICE_PERSPECTIVES or perspective == "voice-over":
        return ""
    return f"over the {weather.loud}"


@dataclass(frozen=True)
class Bed:
    """A bed a scene is heard with: ``sound`` (a name of engine/project/sound_words.py's
    vocabulary) and why (``evidence``: the sentence that named it, or the exposed place)."""

    sound: str
    evidence: str


def scene_beds(weather: SceneWeather | None, room: Room | None) -> tuple[Bed, ...]:
    """The beds of a scene: one per weather its heading or opening names (a storm, the wind,
    the rain...), or, naming none, what its exposed outdoor place is heard with."""
    if weather is not None:
        beds = {_BEDS[kind]: said for kind, said in zip(weather.kinds, weather.said, strict=True) if _BEDS[kind]}
        return tuple(Bed(sound, said) for sound, said in beds.items())
    if room is not None and room.outdoor and room.name in EXPOSED_BEDS:
        return (Bed(EXPOSED_BEDS[room.name], f"an exposed place: {room.name}"),)
    return ()
