"""The voice engines a role can name, and what the floors know of each without loading it.

A role names its engine by name (the file's ``"backend"``: ``"piper"``, ``"kokoro"``)
and a voice of it. How an engine speaks lives in its folder under
engine/synth/backends/, found by name through that folder's registry; what the
project floor, the studio and the casting need to know of an engine without loading
it lives here, one row per engine: its name and label, how its voices are written
and listed, what a voice's name says (language, gender), which files a download
installs, and how a role's voice is checked when a file is read. No other module
compares an engine's name (tests/contracts/test_engine_names.py): each asks this
table or the registry, so a new engine is its folder, its registry line and its row
here (docs/dev/voices.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.project.blend import BlendError, parse_blend


def _no_problem(voice: str, speaker: object) -> tuple[str, str] | None:
    return None


def _unsaid(voice: str) -> str:
    return ""


def _no_gender(voice: str) -> str | None:
    return None


@dataclass(frozen=True)
class VoiceEngine:
    """One engine's row. ``prefix``: a voice of it is listed and picked as
    ``prefix + voice`` (``kokoro:af_heart``; ``radioplay voices``, the studio's picker)
    while a role stores the voice without it; empty: the id as it is."""

    name: str  # the file's "backend", the registry's key
    label: str  # how the studio names it
    prefix: str = ""
    speakers: bool = False  # a voice may hold several speakers (a role's "speaker")
    blends: bool = False  # a role's voice may mix several of its voices (engine/project/blend.py)
    model_files: bool = False  # a voice is a model file with its config; a role may name one by path
    installs: tuple[str, ...] = ()  # the file name endings a catalogue download installs
    language: Callable[[str], str] = _unsaid  # the espeak-ng language a voice's name says ("": not said)
    gender: Callable[[str], str | None] = _no_gender  # the gender a voice's name says
    # (field, one-line problem) of a role's voice and speaker as a project file states them
    check: Callable[[str, object], tuple[str, str] | None] = _no_problem
    known: bool = True  # False: the stand-in for a name no row has (engine_named)

    def listed(self, voice: str) -> str:
        """The id a role's voice is listed and picked by."""
        return self.prefix + voice

    def called(self, voice: str) -> str:
        """A role's voice as prose names it: a model file by its name, without folder or suffix."""
        if self.model_files and ("/" in voice or voice.endswith(".onnx")):
            return voice.rsplit("/", 1)[-1].removesuffix(".onnx")
        return voice


# ---- Piper: a voice is a model file; its id starts with its language (en_US-joe-medium)
_PIPER_LANGUAGE = re.compile(r"^([a-z]{2,3})[_-]([A-Za-z]{2})\b")


def _piper_language(voice: str) -> str:
    m = _PIPER_LANGUAGE.match(voice.rsplit("/", 1)[-1])
    return f"{m.group(1)}-{m.group(2).lower()}" if m else ""


# ---- Kokoro: a voice is a style vector of a voices file, or a blend of several. A style's
# first letter is its language (Kokoro's VOICES.md): af_heart = American English female,
# bm_george = British male, ... Japanese (j) and Mandarin (z) styles read English here:
# espeak-ng cannot phonemize those languages for Kokoro (that takes pyopenjtalk or jieba +
# misaki), and for English text it spells Latin letters out one by one.
STYLE_LANGUAGES = {"a": "en-us", "b": "en-gb", "e": "es", "f": "fr-fr", "h": "hi", "i": "it", "p": "pt-br"}
# The language a style was trained to speak (its accent), for casting: a Japanese style
# reads English here, but with a Japanese accent.
STYLE_NATIVE = STYLE_LANGUAGES | {"j": "ja", "z": "zh"}


def style_language(style: str) -> str:
    """The espeak-ng language a style (or a blend, by its first) speaks (American English if unknown)."""
    return STYLE_LANGUAGES.get(style[:1].lower(), "en-us")


def style_native_language(style: str) -> str:
    """The language a style was trained on ("" if its letter says none)."""
    return STYLE_NATIVE.get(style[:1].lower(), "")


def _style_gender(voice: str) -> str | None:
    """A style's second letter (``af_heart``, ``jm_kumo``; listed as ``kokoro:jm_kumo`` too); a
    blend's by its heaviest part."""
    try:
        parts = parse_blend(voice.removeprefix(KOKORO.prefix))
    except BlendError:
        return None
    name = max(parts, key=lambda part: part[1])[0]
    if len(name) > 2 and name[2] == "_" and name[1] in "fm":
        return "female" if name[1] == "f" else "male"
    return None


def _style_check(voice: str, speaker: object) -> tuple[str, str] | None:
    """A style name or a blend of them: a malformed one fails when the file is read, not at play."""
    try:
        parse_blend(voice)
    except BlendError as exc:
        return "voice", str(exc)
    if speaker is not None:
        return "speaker", "Kokoro voices have no speakers (pick a style vector or a blend in voice)"
    return None


PIPER = VoiceEngine(name="piper", label="Piper", speakers=True, model_files=True, installs=(".onnx", ".onnx.json"),
                    language=_piper_language)
KOKORO = VoiceEngine(name="kokoro", label="Kokoro", prefix="kokoro:", blends=True,
                     installs=(".onnx", ".bin", ".json"), language=style_language, gender=_style_gender,
                     check=_style_check)

# Every engine, in the order a suggested cast and the voice picker take them: the
# cheapest to voice first (Kokoro costs several times Piper's synthesis time).
ENGINES = (PIPER, KOKORO)
DEFAULT_ENGINE = PIPER  # a role that names none: the bundled voice's


def engine_names() -> tuple[str, ...]:
    return tuple(e.name for e in ENGINES)


def engine_named(name: str) -> VoiceEngine:
    """The row of ``name``; for a name no row has, a stand-in that knows nothing of it
    (``known`` False: its voices are not checked, listed or blended), so a file naming
    an engine this version lacks still opens and says so where it is voiced."""
    for engine in ENGINES:
        if engine.name == name:
            return engine
    return VoiceEngine(name=name, label=name, known=False)


def listed_id(backend: str, voice: str) -> str:
    """A role's voice as ``radioplay voices`` lists it and the picker shows it: ``kokoro:af_heart``."""
    return engine_named(backend).listed(voice)


def engine_of_listed(voice_id: str) -> tuple[VoiceEngine, str]:
    """The engine a listed or picked id is of, and the voice a role stores for it.
    A path (a slash, or ``.onnx`` at the end) is a model file whatever its name."""
    if "/" not in voice_id and not voice_id.endswith(".onnx"):
        for engine in ENGINES:
            if engine.prefix and voice_id.startswith(engine.prefix):
                return engine, voice_id.removeprefix(engine.prefix)
    return next(e for e in ENGINES if e.model_files), voice_id


def blend_engine() -> VoiceEngine:
    """The engine whose voices a role may blend (the studio's blend designer makes its voices)."""
    return next(e for e in ENGINES if e.blends)
