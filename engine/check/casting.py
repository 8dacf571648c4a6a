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

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from engine.fsutil import atomic_write_text
from engine.listen import quality, speaker
from engine.listen.heard import GeneralRecognizer, words
from engine.listen.recognizer import RecognizerUnavailable
from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.direction import spoken_text
from engine.project.model import Character, Role, VoiceParams
from engine.project.voice_presets import design_for, speaker_presets
from engine.synth.casting import Casting, castings
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer, RawAudio

REFERENCE = ("I never thought the old lighthouse would go dark, but tonight the lamp is out "
             "and the sea is very loud.")
REFERENCE_RATE = 24000
COLOURS = ("deep", "bright", "full")  # more voices of each kind, when the plain ones are too alike
GOAL = 0.75  # the closest pair's similarity a cast aims below (two people usually are)
# Below this the closest pair counts as told apart, and among such casts the least transformed
# wins: every design step costs some words (bench/voices.py, the five-role script: MRS. HALE went
# from jf_gongitsune to her bright colour, +0.125 WER, for a closest pair 0.01 further apart).
APART = 0.75
QUALITY_MIN = 3.0  # DNSMOS OVRL of a candidate's reference clip: a harsher design is not cast
# What a pick is heard to say by a listener who has not read it (engine/listen/heard.py): the
# first WORD_CHECK_LINES of the role's own lines, or, for a role with none, the reference and
# three more sentences (held out: in neither the sample nor bench/five_roles). Four held-out
# sentences were tried as the test of every role: jm_kumo as the older man cost 2 words of 65
# on them and 5 of 38 on CAPTAIN MORROW's six lines (bench/five_roles.fountain): what a design
# costs depends on the words, so it is heard on the words the role says.
LISTENING = (REFERENCE,
             "She left the letter on the kitchen table and walked out into the rain.",
             "We have three hours before the tide comes in, so listen to me carefully.",
             "My father built this boat with his own hands, and he never let anyone sail her.")
WORD_CHECK_LINES = 6
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
    each of those under each colour (deep, bright, full) instead. Over a Kokoro style a
    design never shortens the vocal tract (formant at most 1): measured with the general
    recognizer, a shorter envelope costs most of a style's words (jf_nezumi: WER 0.18 as
    installed, 0.58 at x1.07, 0.93 at x1.24) where a longer one keeps them (x0.9: 0.05;
    the man over jf_gongitsune, x0.855: 0.00 against 0.17 with the tract kept; docs/dev/voices.md)."""
    result: list[Candidate] = []
    for casting, gender in sources:
        never_shorter = casting.backend == "kokoro"
        name = casting.voice if casting.backend == "piper" else f"kokoro:{casting.voice}"
        if casting.speaker is not None:
            name += f" speaker {casting.speaker}"
        speakers = [Candidate(casting, NEUTRAL, gender, "adult", name, 0)]
        for p in speaker_presets():
            if p.gender == gender and p.age == "adult":
                continue  # the source as installed already is one
            assert p.gender is not None and p.age is not None
            design = design_for(p.name, gender)
            speakers.append(Candidate(casting, _no_shorter(design) if never_shorter else design,
                                      p.gender, p.age, f"{name} as {p.name}", 2))
        if not colours:
            result.extend(speakers)
            continue
        for cand in speakers:
            for colour in COLOURS:
                design = cand.design.then(design_for(colour, cand.gender))
                if never_shorter:
                    design = _no_shorter(design)
                    if abs(design.f0_shift) > KOKORO_COLOUR_F0_LIMIT_ST or design.formant < KOKORO_TRACT_FLOOR:
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
    """What the installed voices sound like, measured once per machine. Not in the clip folder:
    it is no clip, and a clip folder may be emptied, shared or pointed elsewhere per project
    (the tests give each test a cold one) without the voices changing."""
    import platformdirs

    return EmbeddingStore(platformdirs.user_cache_path("radioplay", appauthor=False) / EMBEDDINGS_FILE)


class ReferenceClips:
    """The reference sentence as each candidate says it. A design moves WORLD's parts
    after inference (its rate too: time scaling), so every candidate of a source
    shares the model's raw audio: inferred once per source and settings, then shaped
    per design. The same samples as synthesizing each alone, without running Kokoro
    again for each of a style's designs (the dearest part of a cold cast)."""

    def __init__(self, synth: ClipSynthesizer) -> None:
        self.synth = synth
        self._raw: dict[tuple[object, ...], RawAudio] = {}

    def key(self, cand: Candidate) -> str:
        return self.synth.plan(REFERENCE, cand.voice(VoiceParams())).key

    def clip(self, cand: Candidate, text: str = REFERENCE, base: VoiceParams | None = None) -> np.ndarray:
        """``text`` as ``cand`` says it, over the role's other settings ``base`` (default: none)."""
        plan = self.synth.plan(text, cand.voice(base or VoiceParams()))
        cached = self.synth.cache.get(plan.key)
        if cached is not None:
            return cached
        source = (plan.prepared, plan.params.backend, plan.params.voice, plan.params.speaker, plan.settings,
                  plan.phrases)
        raw = self._raw.get(source)
        if raw is None:
            raw = self._raw[source] = self.synth.infer(plan)
        return self.synth.finish(replace(raw, plan=plan, reservation=None))


def embed_candidates(chosen: Sequence[Candidate], clips: ReferenceClips, store: EmbeddingStore,
                     progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """One embedding per candidate, of the reference sentence as the engine voices it.
    Rounded as stored, so a measured run and a cached one decide alike."""
    encoder = speaker.encoder()
    rows = []
    for i, cand in enumerate(chosen):
        key = clips.key(cand)
        embedding = store.get(key)
        if embedding is None:
            store.put(key, encoder.embed(clips.clip(cand), clips.synth.sample_rate))
            store.save()  # each measurement kept at once: an interrupted first import loses none
            embedding = store.get(key)
        assert embedding is not None
        rows.append(embedding)
        if progress:
            progress(i + 1, len(chosen))
    store.save()
    return np.stack(rows) if rows else np.zeros((0, 256), np.float32)


def candidate_quality(cand: Candidate, clips: ReferenceClips, store: EmbeddingStore) -> float:
    """DNSMOS OVRL of a candidate's reference clip (stored; 5 without the quality model:
    then nothing is excluded for it)."""
    key = "q:" + clips.key(cand)
    stored = store.values.get(key)
    if stored is None:
        try:
            stored = [round(quality.quality(clips.clip(cand), clips.synth.sample_rate), 3)]
        except quality.QualityModelUnavailable:
            return 5.0
        store.values[key] = stored
        store.changed = True
        store.save()
    return float(stored[0])


class Listener:
    """What a candidate costs a role in words: engine/listen/heard.py's general recognizer
    on the role's lines (LISTENING for a role with none), said by the candidate and by its
    source as installed; stored beside the embeddings by the clips' keys. Without
    pocketsphinx nothing is excluded for its words."""

    def __init__(self, clips: ReferenceClips, store: EmbeddingStore) -> None:
        self.clips, self.store = clips, store
        self._recognizer: GeneralRecognizer | None = None

    def cost(self, cand: Candidate, role: Role, spoken: Sequence[str] = ()) -> float:
        """Word error rate over the source's as installed on the role's lines ``spoken``
        (the first WORD_CHECK_LINES that have words); 0 for the source itself."""
        if cand.design.is_neutral:
            return 0.0
        texts = [t for t in spoken if words(spoken_text(t))][:WORD_CHECK_LINES] or list(LISTENING)
        own, plain = self.word_error_rates((cand, replace(cand, design=NEUTRAL, transformed=0)), texts, role.voice)
        return 0.0 if own is None or plain is None else own - plain

    def word_error_rates(self, voices: Sequence[Candidate], texts: Sequence[str],
                         base: VoiceParams) -> list[float | None]:
        """Each candidate's word error rate on ``texts`` over the role's settings ``base``
        (None without the recognizer), measured once and stored."""
        synth = self.clips.synth
        keys = ["w:" + hashlib.sha1(" ".join(synth.plan(t, v.voice(base)).key for t in texts).encode()).hexdigest()
                for v in voices]
        missing = [i for i, key in enumerate(keys) if key not in self.store.values]
        if missing:
            try:
                if self._recognizer is None:
                    self._recognizer = GeneralRecognizer()
            except RecognizerUnavailable:
                return [None] * len(voices)
            said = [spoken_text(t) for t in texts]  # directions are performed, never said
            for i in missing:
                clips = [self.clips.clip(voices[i], t, base) for t in texts]
                self.store.values[keys[i]] = [round(self._recognizer.word_error_rate(said, clips, synth.sample_rate), 4)]
            self.store.changed = True
            self.store.save()
        return [float(self.store.values[key][0]) for key in keys]


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
                  sources: Sequence[tuple[Casting, str]] | None = None,
                  spoken: Mapping[str, Sequence[str]] | None = None) -> MeasuredCast:
    """The cast (see the module docstring); raises SpeakerEncoderUnavailable without
    the encoder. The colours (deep, bright) of the voices are measured only when the
    cast without them leaves a pair above GOAL, and only for those roles' kinds.
    ``sources``: the voices to cast from (default: every installed one, with its gender);
    ``spoken``: each role's lines, on which a pick's words are heard (Listener)."""
    speaker.weights_path()
    synth = synth or _reference_synthesizer(library)
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
