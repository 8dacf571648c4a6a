"""The quick cast: a voice for every role at once, fitting who the script says it is,
without measuring anything (the measured cast, engine/check/casting.py, refines it).

Each role takes, leads first, the most natural candidate (engine/synth/cast_candidates.py)
that fits its gender and age and that no role has yet: a voice as installed, then a colour
of it, then a speaker preset (a woman's design over joe, a girl's over a woman's style).
So a woman is never on an undesigned male voice and a child is on a child's design, on the
plain install as with Kokoro's styles. Only when a kind has more roles than candidates do
roles share one, told apart by small pitch and variation offsets (never speed: a boy is
never slower than the men, a design's rate decides that). The result depends only on the
roles, their lines and the installed voices (and the genders the measured cast heard them
as, where it has): the studio and ``radioplay import`` give the same cast.

Measured on a held-out script with an independent recognizer (issue 12), the ±3 semitone
shifts that once told roles apart raised those roles' word error rate from 0.12 to 0.36: a
role gets a sound of its own while there are any.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.project.defaults import DEFAULT_VOICE
from engine.project.engines import engine_named, engine_names, style_native_language
from engine.project.model import Role, VoiceParams
from engine.project.starting_voices import distinct_settings
from engine.synth.backends.registry import native_language
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.cast_candidates import Candidate, Casting, candidates, fits, named_gender, preference
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
    "jm_kumo": (0.038, 0.063),  # 8 sentences, joe 0.152 in the same run
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


@dataclass
class QuickCast:
    voices: dict[str, VoiceParams] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # "en_US-joe-medium as girl", for the summary


# The offsets of the k-th role sharing a candidate: pitch within ±1.5 semitones and the model's
# variation, most distinct first (engine/project/starting_voices.py); the speed is left alone.
SHARING: tuple[tuple[float, float], ...] = tuple(dict.fromkeys((p, v) for p, s, v in distinct_settings() if s == 1.0))


def installed_sources(library: VoiceLibrary, language: str | None = None,
                      genders: Mapping[Casting, str] | None = None) -> list[tuple[Casting, str]]:
    """The installed sounds a cast draws from, each with the gender it is taken for: the one
    measured (``genders``, the measured cast's), else the one its name says."""
    voices = library.all()
    if language is None:
        bundled = next((v for v in voices if v.source == "bundled"), None)
        language = bundled.language if bundled is not None and bundled.language else "en"
    sounds = castings(voices, language) or [Casting(DEFAULT_VOICE)]
    return [(c, (genders or {}).get(c) or named_gender(c)) for c in sounds]


def quick_cast(roles: Sequence[Role], library: VoiceLibrary, lines: Mapping[str, int] | None = None,
               language: str | None = None, genders: Mapping[Casting, str] | None = None,
               sources: Sequence[tuple[Casting, str]] | None = None) -> QuickCast:
    """A voice for every role (see the module docstring). ``language`` defaults to the bundled
    voice's (English). With no voice installed at all the roles get designs of the default
    voice id, which names what to install when it is used. ``sources``: the voices to cast
    from, with their genders (default: the installed ones, ``installed_sources``)."""
    sources = list(sources) if sources is not None else installed_sources(library, language, genders)
    pool = candidates(sources) + candidates(sources, colours=True)
    return share_out(roles, lines or {}, pool, [c for c, _ in sources])


def share_out(roles: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate],
              order: Sequence[Casting] = (), taken: Mapping[int, int] | None = None) -> QuickCast:
    """Leads first, each role the most natural fitting candidate of ``pool`` used least
    (``taken``: how many roles already have each); a candidate's k-th role takes SHARING[k].
    ``order``: the sources by preference (Piper before the slower Kokoro)."""
    rank = {c: i for i, c in enumerate(order)}
    uses = Counter(taken or {})
    by_kind: dict[tuple[str, str], list[int]] = {}
    result = QuickCast()
    for i in sorted(range(len(roles)), key=lambda i: (-lines.get(roles[i].name, 0), i)):
        role = roles[i]
        kind = (role.character.gender, role.character.age)
        if kind not in by_kind:
            fitting = [c for c, cand in enumerate(pool) if fits(cand, role.character)] or list(range(len(pool)))
            by_kind[kind] = sorted(fitting, key=lambda c: (*preference(pool[c]), rank.get(pool[c].casting, 0), c))
        pick = min(by_kind[kind], key=lambda c: uses[c])  # stable: the most natural of the least used
        result.voices[role.name], result.labels[role.name] = shared_voice(pool[pick], role.voice, uses[pick])
        uses[pick] += 1
    return result


def shared_voice(cand: Candidate, base: VoiceParams, sharer: int) -> tuple[VoiceParams, str]:
    """``cand`` over the role's other settings ``base``, with the offsets of its ``sharer``-th
    role (0: none), and the label that says so."""
    voice = cand.voice(base)
    if not sharer:
        return voice, cand.label
    pitch, variation = SHARING[sharer % len(SHARING)]
    return (voice.with_changes(pitch=pitch, variation=variation),
            f"{cand.label}, pitch {pitch:+g} st, variation {variation:g}")


def suggest_cast(roles: Sequence[Role], library: VoiceLibrary, lines_per_role: Mapping[str, int] | None = None,
                 language: str | None = None) -> dict[str, VoiceParams]:
    """The quick cast's voices by role name (what an import without measuring gives)."""
    return quick_cast(roles, library, lines_per_role, language).voices


def lines_per_role(roles: Sequence[Role], role_of_line: Sequence[str]) -> dict[str, int]:
    counts = {r.name: 0 for r in roles}
    for name in role_of_line:
        if name in counts:
            counts[name] += 1
    return counts
