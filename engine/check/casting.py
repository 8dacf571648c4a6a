"""A cast a listener can tell apart, measured: voices, speakers, Kokoro styles and
designs assigned so that each role's gender and age fit and the closest pair of
roles is as far apart as a speaker encoder can tell.

Every candidate (an installed voice or speaker as it is, or under a design
preset: "woman" over joe, "girl" over a Kokoro style, ...) speaks one
reference sentence through the real synthesis path (design and shaping
included) and is embedded by the GE2E speaker encoder (engine/listen/speaker.py).
The embeddings are kept on disk by the key of the reference clip, which names
the voice, speaker, design and engine version, so a second import measures
nothing again. The roles take the assignment whose closest pair is farthest
apart (an exhaustive search, ``assign``). Each pick is then heard: a harsh one
(DNSMOS) or a design that loses the role's words on its own lines (Listener) is
excluded and the cast assigned again.
The result depends only on the roles, their lines and the installed voices.

Without the speaker encoder (the ``voices`` extra) the measured part is
skipped: engine/synth/casting.py's cast, no closest pair.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.check.candidate_measures import (
    REFERENCE,
    Candidate,
    EmbeddingStore,
    Listener,
    ReferenceClips,
    candidate_quality,
    default_store,
    embed_candidates,
    reference_synthesizer,
)
from engine.listen import speaker
from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.engines import engine_named, listed_id
from engine.project.model import Character, Role, VoiceParams
from engine.project.voice_presets import design_for, speaker_presets
from engine.synth.backends.registry import backend_class
from engine.synth.casting import Casting, castings
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

COLOURS = ("deep", "bright", "full")  # more voices of each kind, when the plain ones are too alike
GOAL = 0.75  # the closest pair's similarity a cast aims below (two people usually are)
# Below this the closest pair counts as told apart, and among such casts the least transformed
# wins: every design step costs some words (bench/voices.py, the five-role script: MRS. HALE went
# from jf_gongitsune to her bright colour, +0.125 WER, for a closest pair 0.01 further apart).
APART = 0.75
QUALITY_MIN = 3.0  # DNSMOS OVRL of a candidate's reference clip: a harsher design is not cast
# A role whose picks keep losing words is not checked without end (a check is about 25 s of
# voicing and hearing on two cores): after this many it takes the checked pick that lost fewest.
WORD_CHECKS_PER_ROLE = 4
# A design may cost at most this much more word error rate than its source as installed on
# the same lines (the bar of bench/voices.py and of the issue that asked for designs).
WORDS_COST_MAX = 0.05
# A colour over a Kokoro style's design does not take its pitch past this: the man over
# jf_gongitsune (-12 st) kept the narrator's words (WER 0.444, plain 0.454, the sample's six
# narrator lines), deep over him (-16 st) lost seven more of 108 (0.519), at tract x0.83 or x0.85.
KOKORO_COLOUR_F0_LIMIT_ST = 13.0
KOKORO_TRACT_FLOOR = 0.85  # nor its tract past the man's over a woman (x0.855, measured above)
# Over joe a longer tract costs words fast (x0.9: WER 0.54 against 0.13 plain, docs/dev/voice-design.md):
# a colour leaves his tract at most this much longer than his own.
PIPER_TRACT_FLOOR = 0.97
TIE = 0.005  # similarities this close count as equal: then the less transformed voice wins


@dataclass
class MeasuredCast:
    voices: dict[str, VoiceParams] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    closest: tuple[str, str, float] | None = None
    similarity: dict[tuple[str, str], float] = field(default_factory=dict)

    def summary(self) -> str:
        if self.closest is None:
            return ""
        a, b, value = self.closest
        return f"closest: {a} and {b}, {value:.2f}"


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
        speakers = [Candidate(casting, NEUTRAL, gender, "adult", name, 0)]
        for p in speaker_presets():
            if p.gender == gender and p.age == "adult":
                continue  # the source as installed already is one
            assert p.gender is not None and p.age is not None
            design = design_for(p.name, gender)
            never_shorter = keeps_tract and p.age != "child"
            speakers.append(Candidate(casting, _no_shorter(design) if never_shorter else design,
                                      p.gender, p.age, f"{name} as {p.name}", 2))
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
                                        cand.transformed + 1))
    return result


def _no_shorter(design: VoiceDesign) -> VoiceDesign:
    return design.with_changes(formant=min(design.formant, 1.0))


def fits(candidate: Candidate, character: Character) -> bool:
    if character.gender and candidate.gender != character.gender:
        return False
    if character.age:
        return candidate.age == character.age
    return candidate.age == "adult"  # unknown age: an adult voice, the least surprising


def assign(roles: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate],
           similarity: np.ndarray, usable: np.ndarray | None = None) -> list[int]:
    """A candidate index per role (in ``roles`` order): every role one that fits
    its character (any when none fits) and is usable (``usable[role, candidate]``: it
    sounds clean and keeps the role's words, when any fitting one does), the closest pair as far apart
    as any assignment allows: an exhaustive search (branch and bound), so a cast
    is not stuck where a greedy choice of the leads put it. Among casts whose
    closest pairs are within TIE, or all below APART, the least transformed wins
    (leads' voices counting by their lines), then the lower sum of similarities.
    Deterministic."""
    allowed = []
    for r, each in enumerate(roles):
        ok = [c for c, cand in enumerate(pool) if fits(cand, each.character)] or list(range(len(pool)))
        clean = [c for c in ok if usable is None or usable[r, c]]
        allowed.append(sorted(clean or ok, key=lambda c: (pool[c].transformed, c)))
    # The most constrained roles first: the bound prunes sooner; then leads, then file order.
    order = sorted(range(len(roles)), key=lambda i: (len(allowed[i]), -lines.get(roles[i].name, 0), i))
    weight = [1 + lines.get(roles[i].name, 0) for i in order]
    best_key: tuple[int, int, float] | None = None
    best_picks: list[int] = []
    budget = SEARCH_NODES
    apart = round(APART / TIE)

    def walk(depth: int, chosen: list[int], worst: float, transformed: int, total: float) -> None:
        nonlocal best_key, best_picks, budget
        key = (max(round(worst / TIE), apart), transformed, total)
        if best_key is not None and key[:2] > best_key[:2]:
            return  # the closest pair and the transformation only grow deeper down
        if depth == len(order):
            if best_key is None or key < best_key:
                best_key, best_picks = key, list(chosen)
            return
        for cand in allowed[order[depth]]:
            if budget <= 0:
                return  # a huge pool: the best found so far (still the same every time)
            budget -= 1
            values = [2.0 if cand == other else float(similarity[cand, other]) for other in chosen]
            walk(depth + 1, chosen + [cand], max([worst, *values]),
                 transformed + pool[cand].transformed * weight[depth], total + sum(values))

    walk(0, [], -1.0, 0, 0.0)
    picks = best_picks
    by_role = dict(zip(order, picks, strict=True))
    return [by_role[i] for i in range(len(roles))]


SEARCH_NODES = 400_000  # assignments tried at most (seven roles over the measured pool take far fewer)


MALE_BELOW_HZ = 165.0  # median F0 of the reference sentence: men ~85-155 Hz, women ~165-255 Hz


def source_gender(casting: Casting, synth: ClipSynthesizer, store: EmbeddingStore) -> str:
    """The gender a source voice is heard as: a Kokoro style says it in its name
    (af_, jm_: the second letter); a Piper voice's median F0, measured on the reference
    sentence (and kept in the store), says it for the others."""
    named = engine_named(casting.backend).gender(casting.voice)
    if named is not None:
        return named
    voice = VoiceParams(backend=casting.backend, voice=casting.voice, speaker=casting.speaker)
    key = "f0:" + synth.plan(REFERENCE, voice).key
    stored = store.lookup(key)
    if stored is None:
        from engine.synth.world import _pyworld

        clip = synth.synthesize(REFERENCE, voice).astype(np.float64)
        f0, _ = _pyworld().harvest(clip, synth.sample_rate, frame_period=10.0)
        voiced = f0[f0 > 0]
        stored = [float(np.median(voiced)) if voiced.size else 0.0]
        store.remember(key, stored)
    return "male" if 0 < stored[0] < MALE_BELOW_HZ else "female"


def sources_of(library: VoiceLibrary, synth: ClipSynthesizer, store: EmbeddingStore,
               language: str | None = None) -> list[tuple[Casting, str]]:
    """The installed sounds and the gender each is heard as."""
    return [(c, source_gender(c, synth, store)) for c in castings(library.all(), language or "en")]


def measured_cast(roles: Sequence[Role], library: VoiceLibrary, lines: Mapping[str, int] | None = None,
                  synth: ClipSynthesizer | None = None, store: EmbeddingStore | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  sources: Sequence[tuple[Casting, str]] | None = None,
                  spoken: Mapping[str, Sequence[str]] | None = None) -> MeasuredCast:
    """The cast (see the module docstring); raises SpeakerEncoderUnavailable without
    the encoder. The colours (deep, bright) of the voices are measured only when the
    cast without them leaves a pair above GOAL, and only for those roles' kinds.
    ``sources``: the voices to cast from (default: every installed one, with its gender);
    ``spoken``: each role's lines, on which a pick's words are heard (Listener)."""
    speaker.weights_path()
    synth = synth or reference_synthesizer(library)
    store = store if store is not None else default_store()
    sources = sources if sources is not None else sources_of(library, synth, store)
    clips = ReferenceClips(synth)
    pool = [c for c in candidates(sources) if any(fits(c, r.character) for r in roles)] or candidates(sources)
    embeddings = embed_candidates(pool, clips, store, progress)
    picks = _clean_picks(roles, lines or {}, pool, embeddings, clips, store, spoken)
    crowded = {i for i, j in _pairs_above(picks, embeddings, GOAL) for i in (i, j)}
    if crowded:
        more = [c for c in candidates(sources, colours=True) if any(fits(c, roles[i].character) for i in crowded)]
        pool = pool + more
        embeddings = np.concatenate([embeddings, embed_candidates(more, clips, store, progress)])
        picks = _clean_picks(roles, lines or {}, pool, embeddings, clips, store, spoken)
    similarity = embeddings @ embeddings.T
    result = MeasuredCast()
    for role, pick in zip(roles, picks, strict=True):
        result.voices[role.name] = pool[pick].voice(role.voice)
        result.labels[role.name] = pool[pick].label
    for i, a in enumerate(roles):
        for j in range(i + 1, len(roles)):
            result.similarity[(a.name, roles[j].name)] = round(float(similarity[picks[i], picks[j]]), 3)
    if result.similarity:
        (a_name, b_name), value = max(result.similarity.items(), key=lambda kv: kv[1])
        result.closest = (a_name, b_name, value)
    return result


def _clean_picks(roles: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate], embeddings: np.ndarray,
                 clips: ReferenceClips, store: EmbeddingStore,
                 spoken: Mapping[str, Sequence[str]] | None = None) -> list[int]:
    """The assignment over usable candidates: a pick's quality (DNSMOS at least
    QUALITY_MIN) and its words on the role's lines ``spoken`` (at most WORDS_COST_MAX
    more errors than its source) are measured when it is first picked for a role, not
    for every candidate; a pick that fails either is excluded for that role and the cast
    assigned again."""
    usable = np.ones((len(roles), len(pool)), dtype=bool)
    measured: set[tuple[int, int]] = set()
    costs: list[dict[int, float]] = [{} for _ in roles]  # words lost by each clean pick checked, per role
    listener = Listener(clips, store)
    similarity = embeddings @ embeddings.T
    while True:
        picks = assign(roles, lines, pool, similarity, usable)
        unmeasured = [(r, p) for r, p in enumerate(picks) if (r, p) not in measured]
        for r, p in unmeasured:
            measured.add((r, p))
            if candidate_quality(pool[p], clips, store) < QUALITY_MIN:
                usable[:, p] = False  # harsh for every role
                continue
            costs[r][p] = listener.cost(pool[p], roles[r], (spoken or {}).get(roles[r].name, ()))
            usable[r, p] = costs[r][p] <= WORDS_COST_MAX
            if not usable[r, p] and len(costs[r]) >= WORD_CHECKS_PER_ROLE:
                usable[r, :] = False
                usable[r, min(costs[r], key=lambda c: (costs[r][c], c))] = True  # the least lost, checked
        if all(usable[r, p] for r, p in unmeasured):
            return picks  # (a role with no usable fitting candidate keeps its unusable pick)


def _pairs_above(picks: Sequence[int], embeddings: np.ndarray, limit: float) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(picks)) for j in range(i + 1, len(picks))
            if float(embeddings[picks[i]] @ embeddings[picks[j]]) > limit]


def cast_roles(roles: Sequence[Role], library: VoiceLibrary, lines: Mapping[str, int] | None = None,
               progress: Callable[[int, int], None] | None = None,
               spoken: Mapping[str, Sequence[str]] | None = None) -> MeasuredCast:
    """What ``radioplay import`` and Suggest Cast use: the measured cast, or without
    the speaker encoder engine/synth/casting.py's (distinct voices, no measurement).
    ``spoken``: each role's lines in script order (a design is heard saying them)."""
    try:
        return measured_cast(roles, library, lines, progress=progress, spoken=spoken)
    except speaker.SpeakerEncoderUnavailable:
        from engine.synth.casting import suggest_cast

        return MeasuredCast(voices=suggest_cast(roles, library, lines))
