"""Suggesting a cast: a distinct voice or speaker per role before any pitch shift.

Measured on a held-out script with an independent recognizer (issue 12),
the ±3 semitone shifts that once told roles apart raised those roles' word
error rate from 0.12 to 0.36. So a role gets a voice of its own (another
installed model, or another speaker of a multi-speaker one) while there are
any; only roles beyond that share a voice, told apart by mild pitch and
speed offsets. Leads (most lines) choose first, so they get the plain,
unshifted voices. The result depends only on the roles and the installed
voices: the same library gives the same cast.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.project.casting import distinct_settings
from engine.project.defaults import DEFAULT_BACKEND, DEFAULT_VOICE
from engine.project.engines import engine_named, engine_names, style_native_language
from engine.project.model import Role, VoiceParams
from engine.synth.backends.registry import native_language
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.library import VoiceLibrary

# How well Kokoro styles of another language read English, measured per style by
# bench/kokoro_english.py on 8 held-out sentences: (word error rate of the speech check's
# recognizer, pocketsphinx biased to the line as `radioplay check` hears it; word error rate of
# pocketsphinx's general US English model). The biased one hears almost any style say its
# line (jf_alpha 0.09), so a style is offered by the general model's figure, what a listener
# who has not read the line hears (joe, the bundled voice: 0.15 in the same run).
# Shown in the voice picker (app/cast/voices.py).
ENGLISH_WER: dict[str, tuple[float, float]] = {
    "jf_alpha": (0.089, 0.709),
    "jf_gongitsune": (0.013, 0.038),
    "jf_nezumi": (0.038, 0.215),
    "jf_tebukuro": (0.038, 0.658),
    "jm_kumo": (0.038, 0.063),  # 8 sentences, joe 0.152 in the same run (load 14)
}
ENGLISH_WER_MAX = 0.30  # general model; above this a listener misses words often enough to lose the line


def english_wer(style: str) -> float | None:
    """The measured general-model word error rate of a style reading English (None: not measured)."""
    measured = ENGLISH_WER.get(style)
    return measured[1] if measured else None


def reads_english(style: str) -> bool:
    """A style a cast for an English script may take: its own language is English,
    or its English was measured intelligible (ENGLISH_WER)."""
    if style_native_language(style).startswith("en"):
        return True
    wer = english_wer(style)
    return wer is not None and wer <= ENGLISH_WER_MAX


@dataclass(frozen=True)
class Casting:
    """One distinct sound before any shift: a voice, and a speaker of it."""

    voice: str
    speaker: int | str | None = None
    backend: str = DEFAULT_BACKEND


def _family(code: str) -> str:
    return code.replace("-", "_").split("_", 1)[0].lower()


def castings(voices: Sequence[VoiceInfo], language: str | None = None) -> list[Casting]:
    """Every distinct sound the voices offer, in the order roles take them.

    Voices of ``language`` only (a family such as ``en``, or a code), the
    bundled voice first, then the others by id, engine by engine in the table's
    order (engine/project/engines.py: Piper before Kokoro, which costs several times
    Piper's synthesis time: a cast of it pre-renders longer and may not keep up live
    on a small CPU). Round-robin over voices: the
    first speaker of every voice, then every voice's second speaker, and so
    on, so a large multi-speaker model does not crowd the other voices out.
    """
    family = _family(language) if language else None
    order = {name: rank for rank, name in enumerate(engine_names())}

    def offered(v: VoiceInfo) -> bool:
        speaks = native_language(v)  # a Kokoro style's own language, not the one it reads
        if family is None or not speaks or _family(speaks) == family:
            return True
        return family == "en" and bool(v.style) and reads_english(v.style)  # a style measured, not by language

    chosen = [v for v in voices if offered(v)]
    chosen.sort(key=lambda v: (order[v.backend], v.source != "bundled", v.id))
    per_voice = []
    for v in chosen:
        # The voice as a role stores it: a library id without its engine's prefix (a style's name).
        voice = v.id.removeprefix(engine_named(v.backend).prefix)
        if v.num_speakers <= 1:
            per_voice.append([Casting(voice, backend=v.backend)])
        else:
            names = {sid: name for name, sid in v.speakers.items()}
            per_voice.append([Casting(voice, names.get(i, i), v.backend) for i in range(v.num_speakers)])
    result: list[Casting] = []
    for backend in order:  # every Piper sound before the slower engine's
        group = [c for c in per_voice if c[0].backend == backend]
        for rank in range(max((len(c) for c in group), default=0)):
            result.extend(c[rank] for c in group if rank < len(c))
    return result


def suggest_cast(roles: Sequence[Role], library: VoiceLibrary, lines_per_role: Mapping[str, int] | None = None,
                 language: str | None = None) -> dict[str, VoiceParams]:
    """A voice for every role, by role name; other settings (variation) are kept.

    ``language`` defaults to the bundled voice's (English). With no voice
    installed at all the roles get the default voice id, which names what to
    install when it is used.
    """
    voices = library.all()
    if language is None:
        bundled = next((v for v in voices if v.source == "bundled"), None)
        language = bundled.language if bundled is not None and bundled.language else "en"
    sounds = castings(voices, language) or [Casting(DEFAULT_VOICE)]
    lines = lines_per_role or {}
    order = sorted(range(len(roles)), key=lambda i: (-lines.get(roles[i].name, 0), i))
    cast: dict[str, VoiceParams] = {}
    for rank, index in enumerate(order):
        role = roles[index]
        sound = sounds[rank % len(sounds)]
        # Roles beyond the distinct sounds share one, told apart by its settings: the k-th
        # sharer takes the k-th most distinct (engine/project/casting.py, within ±1.5 st).
        settings = distinct_settings()
        pitch, speed, variation = settings[(rank // len(sounds)) % len(settings)]
        changes: dict[str, object] = {"pitch": pitch, "speed": speed}
        if rank >= len(sounds):
            changes["variation"] = variation
        cast[role.name] = role.voice.with_changes(backend=sound.backend, voice=sound.voice, speaker=sound.speaker,
                                                  **changes)
    return cast


def lines_per_role(roles: Sequence[Role], role_of_line: Sequence[str]) -> dict[str, int]:
    counts = {r.name: 0 for r in roles}
    for name in role_of_line:
        if name in counts:
            counts[name] += 1
    return counts
