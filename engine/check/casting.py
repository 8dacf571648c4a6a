"""A cast a listener can tell apart, measured: voices, speakers, Kokoro styles and
designs assigned so that each role's gender and age fit and the closest pair of
roles is as far apart as a speaker encoder can tell.

Every candidate (an installed voice or speaker as it is, or under a design
preset: "woman" over joe, "girl" over a Kokoro style, ...) speaks one
reference sentence through the real synthesis path (design and shaping
included) and is embedded by the GE2E speaker encoder (engine/listen/speaker.py).
The embeddings are kept on disk by the key of the reference clip, which names
the voice, speaker, design and engine version, so a second import measures
nothing again. Roles take candidates leads first, each the one farthest from
the roles already cast, then the closest pair is improved while a swap helps.
The result depends only on the roles and the installed voices.

Without the speaker encoder (the ``voices`` extra) the measured part is
skipped: engine/synth/casting.py's cast, no closest pair.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.fsutil import atomic_write_text
from engine.listen import quality, speaker
from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.model import Character, Role, VoiceParams
from engine.project.voice_presets import design_for, speaker_presets
from engine.synth.casting import Casting, castings
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

REFERENCE = ("I never thought the old lighthouse would go dark, but tonight the lamp is out "
             "and the sea is very loud.")
REFERENCE_RATE = 24000
COLOURS = ("deep", "bright")  # more voices of each kind, when the plain ones are too alike
GOAL = 0.75  # the closest pair's similarity a cast aims below (two people usually are)
QUALITY_MIN = 3.0  # DNSMOS OVRL of a candidate's reference clip: a harsher design is not cast
TIE = 0.005  # similarities this close count as equal: then the less transformed voice wins
EMBEDDINGS_FILE = "speaker-embeddings.json"


@dataclass(frozen=True)
class Candidate:
    """One sound a role can take: a source voice under a design (neutral: as installed)."""

    casting: Casting
    design: VoiceDesign
    gender: str
    age: str
    label: str  # for a person: "kokoro:jf_alpha as girl"
    transformed: int  # 0 as installed, 1 a colour, 2 a speaker preset: ties go to the least

    def voice(self, base: VoiceParams) -> VoiceParams:
        return base.with_changes(backend=self.casting.backend, voice=self.casting.voice,
                                 speaker=self.casting.speaker, design=self.design, pitch=0.0, speed=1.0)


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
    each of those under each colour (deep, bright) instead."""
    result: list[Candidate] = []
    for casting, gender in sources:
        name = casting.voice if casting.backend == "piper" else f"kokoro:{casting.voice}"
        if casting.speaker is not None:
            name += f" speaker {casting.speaker}"
        speakers = [Candidate(casting, NEUTRAL, gender, "adult", name, 0)]
        for p in speaker_presets():
            if p.gender == gender and p.age == "adult":
                continue  # the source as installed already is one
            assert p.gender is not None and p.age is not None
            speakers.append(Candidate(casting, design_for(p.name, gender), p.gender, p.age, f"{name} as {p.name}", 2))
        if not colours:
            result.extend(speakers)
            continue
        for cand in speakers:
            for colour in COLOURS:
                design = cand.design.then(design_for(colour, cand.gender))
                result.append(Candidate(casting, design, cand.gender, cand.age, f"{cand.label}, {colour}",
                                        cand.transformed + 1))
    return result


def fits(candidate: Candidate, character: Character) -> bool:
    if character.gender and candidate.gender != character.gender:
        return False
    if character.age:
        return candidate.age == character.age
    return candidate.age == "adult"  # unknown age: an adult voice, the least surprising


class EmbeddingStore:
    """Embeddings of reference clips by clip key, in one JSON file (atomic writes)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.values: dict[str, list[float]] = {}
        self.changed = False
        if path is not None and path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                self.values = {k: v for k, v in data.items() if isinstance(v, list)}
            except (OSError, ValueError, AttributeError):
                self.values = {}  # a damaged cache only means measuring again

    def get(self, key: str) -> np.ndarray | None:
        value = self.values.get(key)
        return None if value is None else np.asarray(value, dtype=np.float32)

    def put(self, key: str, embedding: np.ndarray) -> None:
        self.values[key] = [round(float(x), 6) for x in embedding]
        self.changed = True

    def save(self) -> None:
        if self.path is not None and self.changed:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(self.path, json.dumps(self.values))
                self.changed = False
            except OSError:
                pass  # best effort, as the clip cache


def default_store() -> EmbeddingStore:
    from engine.synth.clipfolder import user_cache_dir

    return EmbeddingStore(user_cache_dir() / EMBEDDINGS_FILE)


def embed_candidates(chosen: Sequence[Candidate], synth: ClipSynthesizer, store: EmbeddingStore,
                     progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """One embedding per candidate, of the reference sentence as the engine voices it.
    Rounded as stored, so a measured run and a cached one decide alike."""
    encoder = speaker.encoder()
    rows = []
    for i, cand in enumerate(chosen):
        plan = synth.plan(REFERENCE, cand.voice(VoiceParams()))
        embedding = store.get(plan.key)
        if embedding is None:
            clip = synth.synthesize(REFERENCE, cand.voice(VoiceParams()))
            store.put(plan.key, encoder.embed(clip, synth.sample_rate))
            store.save()  # each measurement kept at once: an interrupted first import loses none
            embedding = store.get(plan.key)
        assert embedding is not None
        rows.append(embedding)
        if progress:
            progress(i + 1, len(chosen))
    store.save()
    return np.stack(rows) if rows else np.zeros((0, 256), np.float32)


def candidate_quality(cand: Candidate, synth: ClipSynthesizer, store: EmbeddingStore) -> float:
    """DNSMOS OVRL of a candidate's reference clip (stored; 5 without the quality model:
    then nothing is excluded for it)."""
    key = "q:" + synth.plan(REFERENCE, cand.voice(VoiceParams())).key
    stored = store.values.get(key)
    if stored is None:
        try:
            clip = synth.synthesize(REFERENCE, cand.voice(VoiceParams()))
            stored = [round(quality.quality(clip, synth.sample_rate), 3)]
        except quality.QualityModelUnavailable:
            return 5.0
        store.values[key] = stored
        store.changed = True
        store.save()
    return float(stored[0])


def assign(roles: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate],
           similarity: np.ndarray, scores: np.ndarray | None = None) -> list[int]:
    """A candidate index per role (in ``roles`` order): every role one that fits
    its character (any when none fits) and sounds clean (DNSMOS ``scores`` at
    least QUALITY_MIN, when any fitting one does), distinct where possible,
    maximizing the distance of the closest pair. Leads choose first; deterministic."""
    order = sorted(range(len(roles)), key=lambda i: (-lines.get(roles[i].name, 0), i))
    allowed = []
    for each in roles:
        ok = [c for c, cand in enumerate(pool) if fits(cand, each.character)] or list(range(len(pool)))
        clean = [c for c in ok if scores is None or scores[c] >= QUALITY_MIN]
        allowed.append(clean or ok)
    chosen: dict[int, int] = {}

    def worst(role: int, cand: int, others: Mapping[int, int]) -> float:
        taken = [c for r, c in others.items() if r != role]
        if cand in taken:
            return 2.0  # the very same sound: only when nothing else is left
        return max((float(similarity[cand, c]) for c in taken), default=-1.0)

    def rank(role: int, cand: int, others: Mapping[int, int]) -> tuple[int, int, int]:
        return (round(worst(role, cand, others) / TIE), pool[cand].transformed, cand)

    for index in order:
        chosen[index] = min(allowed[index], key=lambda c: rank(index, c, chosen))
    for _ in range(4 * len(roles)):  # improve the closest pair while a change of one of its roles helps
        pair = _closest(chosen, similarity)
        if pair is None:
            break
        current = float(similarity[chosen[pair[0]], chosen[pair[1]]])
        best: tuple[tuple[int, int, int], int, int] | None = None
        for index in pair:
            for cand in allowed[index]:
                if cand in [c for r, c in chosen.items() if r != index]:
                    continue
                trial = dict(chosen)
                trial[index] = cand
                p = _closest(trial, similarity)
                value = float(similarity[trial[p[0]], trial[p[1]]]) if p else -1.0
                if value < current - TIE:
                    key = (round(value / TIE), pool[cand].transformed, cand)
                    if best is None or key < best[0]:
                        best = (key, index, cand)
        if best is None:
            break
        chosen[best[1]] = best[2]
    return [chosen[i] for i in range(len(roles))]


def _closest(chosen: Mapping[int, int], similarity: np.ndarray) -> tuple[int, int] | None:
    roles = sorted(chosen)
    best: tuple[float, int, int] | None = None
    for i, a in enumerate(roles):
        for b in roles[i + 1:]:
            value = float(similarity[chosen[a], chosen[b]])
            if best is None or value > best[0]:
                best = (value, a, b)
    return None if best is None else (best[1], best[2])


MALE_BELOW_HZ = 165.0  # median F0 of the reference sentence: men ~85-155 Hz, women ~165-255 Hz


def source_gender(casting: Casting, synth: ClipSynthesizer, store: EmbeddingStore) -> str:
    """The gender a source voice is heard as: a Kokoro style says it in its name
    (af_, jm_: the second letter); a Piper voice's median F0, measured on the reference
    sentence (and kept in the store), says it for the others."""
    if casting.backend == "kokoro" and len(casting.voice) > 1 and casting.voice[1] in "fm":
        return "female" if casting.voice[1] == "f" else "male"
    voice = VoiceParams(backend=casting.backend, voice=casting.voice, speaker=casting.speaker)
    key = "f0:" + synth.plan(REFERENCE, voice).key
    stored = store.values.get(key)
    if stored is None:
        from engine.synth.world import _pyworld

        clip = synth.synthesize(REFERENCE, voice).astype(np.float64)
        f0, _ = _pyworld().harvest(clip, synth.sample_rate, frame_period=10.0)
        voiced = f0[f0 > 0]
        stored = [float(np.median(voiced)) if voiced.size else 0.0]
        store.values[key] = stored
        store.changed = True
    return "male" if 0 < stored[0] < MALE_BELOW_HZ else "female"


def sources_of(library: VoiceLibrary, synth: ClipSynthesizer, store: EmbeddingStore,
               language: str | None = None) -> list[tuple[Casting, str]]:
    """The installed sounds and the gender each is heard as."""
    return [(c, source_gender(c, synth, store)) for c in castings(library.all(), language or "en")]


def measured_cast(roles: Sequence[Role], library: VoiceLibrary, lines: Mapping[str, int] | None = None,
                  synth: ClipSynthesizer | None = None, store: EmbeddingStore | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  sources: Sequence[tuple[Casting, str]] | None = None) -> MeasuredCast:
    """The cast (see the module docstring); raises SpeakerEncoderUnavailable without
    the encoder. The colours (deep, bright) of the voices are measured only when the
    cast without them leaves a pair above GOAL, and only for those roles' kinds.
    ``sources``: the voices to cast from (default: every installed one, with its gender)."""
    speaker.weights_path()
    synth = synth or _reference_synthesizer(library)
    store = store if store is not None else default_store()
    sources = sources if sources is not None else sources_of(library, synth, store)
    pool = [c for c in candidates(sources) if any(fits(c, r.character) for r in roles)] or candidates(sources)
    embeddings = embed_candidates(pool, synth, store, progress)
    picks = _clean_picks(roles, lines or {}, pool, embeddings, synth, store)
    crowded = {i for i, j in _pairs_above(picks, embeddings, GOAL) for i in (i, j)}
    if crowded:
        more = [c for c in candidates(sources, colours=True) if any(fits(c, roles[i].character) for i in crowded)]
        pool = pool + more
        embeddings = np.concatenate([embeddings, embed_candidates(more, synth, store, progress)])
        picks = _clean_picks(roles, lines or {}, pool, embeddings, synth, store)
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


def _reference_synthesizer(library: VoiceLibrary) -> ClipSynthesizer:
    """Reference clips kept in the user's clip cache (a candidate's quality is measured
    later than its embedding), in memory where that folder is unusable."""
    from engine.synth.cache import ClipCache
    from engine.synth.clipfolder import cache_limit_bytes, user_cache_dir

    try:
        cache = ClipCache(user_cache_dir(), disk_limit_bytes=cache_limit_bytes())
    except Exception:  # CacheFolderError and OS errors: measuring still works, only slower next time
        cache = ClipCache()
    return ClipSynthesizer(library, REFERENCE_RATE, cache)


def _clean_picks(roles: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate], embeddings: np.ndarray,
                 synth: ClipSynthesizer, store: EmbeddingStore) -> list[int]:
    """The assignment over candidates that sound clean: the quality of a pick is
    measured when it is first picked (not of every candidate), and a pick below
    QUALITY_MIN is excluded and the cast assigned again."""
    scores = np.full(len(pool), np.inf)
    similarity = embeddings @ embeddings.T
    while True:
        picks = assign(roles, lines, pool, similarity, scores)
        unmeasured = [p for p in dict.fromkeys(picks) if scores[p] == np.inf]
        for p in unmeasured:
            scores[p] = candidate_quality(pool[p], synth, store)
        if not any(scores[p] < QUALITY_MIN for p in unmeasured):
            return picks


def _pairs_above(picks: Sequence[int], embeddings: np.ndarray, limit: float) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(picks)) for j in range(i + 1, len(picks))
            if float(embeddings[picks[i]] @ embeddings[picks[j]]) > limit]


def cast_roles(roles: Sequence[Role], library: VoiceLibrary, lines: Mapping[str, int] | None = None,
               progress: Callable[[int, int], None] | None = None) -> MeasuredCast:
    """What ``radioplay import`` and Suggest Cast use: the measured cast, or without
    the speaker encoder engine/synth/casting.py's (distinct voices, no measurement)."""
    try:
        return measured_cast(roles, library, lines, progress=progress)
    except speaker.SpeakerEncoderUnavailable:
        from engine.synth.casting import suggest_cast

        return MeasuredCast(voices=suggest_cast(roles, library, lines))
