"""The measured cast: voices, speakers, Kokoro styles and designs assigned so that each
role's gender and age fit and the closest pair of roles is as far apart as a speaker
encoder can tell. What ``radioplay import`` and the studio's Import Script and Suggest
Cast all end with (``cast_roles``), after the quick cast (engine/synth/casting.py) that
they show first.

Every candidate (engine/synth/cast_candidates.py: an installed voice or speaker as it is, or
under a design preset) speaks one reference sentence through the real synthesis path and is
embedded by the GE2E speaker encoder (engine/listen/speaker.py). The embeddings are kept on
disk by the key of the reference clip (the voice, design and engine version), so another
import, of any script, measures them for nothing. The leads take the assignment whose
closest pair is farthest apart (engine/check/cast_search.py). Then, leads first, each
pick is heard: a harsh one (DNSMOS) or a design that loses the role's words on its own lines
(Listener) is excluded for that role and the unsettled roles are assigned again, the
settled ones kept: a pick is checked once, and a failure moves only the roles not yet
settled. When the closest pair is still above GOAL, colours (deep, bright, full) of the
crowded roles' picks and of the natural voices that fit them are measured and only those
roles are cast again (the cast before stands if that leaves its closest pair closer).

Only the MEASURED_ROLES leads are measured: further roles share the leads' checked voices
(the quick cast's rule, with small offsets), as roles beyond the distinct sounds must.
The result depends only on the roles, their lines and the installed voices.

Without the speaker encoder (the ``voices`` extra) nothing is measured: the quick cast.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.check.candidate_measures import (
    DECIDE_WORDS,
    REFERENCE,
    WORDS_COST_MAX,
    EmbeddingStore,
    Listener,
    ReferenceClips,
    candidate_quality,
    default_store,
    embed_candidates,
    reference_synthesizer,
)
from engine.check.cast_progress import CastProgress, CastWork
from engine.check.cast_search import APART, TIE, assign
from engine.listen import speaker
from engine.project.engines import engine_named
from engine.project.model import Project, Role, VoiceParams
from engine.synth.cast_candidates import Candidate, Casting, candidates, fits
from engine.synth.casting import QuickCast, castings, lines_per_role, quick_cast, share_out, shared_voice
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

__all__ = ["APART", "CastProgress", "MeasuredCast", "assign", "cast_project", "cast_roles", "measured_cast"]

GOAL = 0.75  # the closest pair's similarity a cast aims below (two people usually are)
QUALITY_MIN = 3.0  # DNSMOS OVRL of a design's reference clip: a harsher design is not cast
# A role whose picks keep losing words is not checked without end (a check is a few lines voiced
# and heard): after this many it takes the checked pick that lost fewest.
WORD_CHECKS_PER_ROLE = 3
MEASURED_ROLES = 16  # leads measured and searched; more roles share their voices
# The work of a cast in units of one candidate embedded (its reference clip shaped and embedded),
# weighed as they measure (docs/dev/voices.md): a DNSMOS score about two, a line voiced and heard
# in a design and in its source about eight. Only the progress and its estimate use them.
QUALITY_COST, LINE_COST, SOURCE_COST = 2.0, 8.0, 2.0
CHECK_COST = LINE_COST * (DECIDE_WORDS // 8 + 1)  # a word check, as far as can be told before it
MALE_BELOW_HZ = 165.0  # median F0 of the reference sentence: men ~85-155 Hz, women ~165-255 Hz


@dataclass
class MeasuredCast:
    voices: dict[str, VoiceParams] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    closest: tuple[str, str, float] | None = None
    similarity: dict[tuple[str, str], float] = field(default_factory=dict)
    measured: bool = True  # False: the quick cast (no speaker encoder installed)

    def summary(self) -> str:
        if self.closest is None:
            return ""
        a, b, value = self.closest
        return f"closest: {a} and {b}, {value:.2f}"


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
                  progress: Callable[[CastProgress], None] | None = None,
                  sources: Sequence[tuple[Casting, str]] | None = None,
                  spoken: Mapping[str, Sequence[str]] | None = None,
                  cancel: threading.Event | None = None) -> MeasuredCast:
    """The cast (see the module docstring); raises SpeakerEncoderUnavailable without the
    encoder, CastCancelled when ``cancel`` is set. ``sources``: the voices to cast from
    (default: every installed one, with its gender); ``spoken``: each role's lines, on which a
    pick's words are heard (Listener); ``progress``: after every clip measured."""
    speaker.weights_path()
    lines = lines or {}
    work = CastWork(len(roles), progress, cancel)
    synth = synth or reference_synthesizer(library)
    store = store if store is not None else default_store()
    if sources is None:
        found = castings(library.all(), "en")
        work.expect(SOURCE_COST * len(found))
        sources = []
        for casting in found:
            work.tell(f"hearing whether {casting.voice} is a man's or a woman's voice")
            sources.append((casting, source_gender(casting, synth, store)))
            named = engine_named(casting.backend).gender(casting.voice) is not None  # no F0 measured
            work.did(0 if named else SOURCE_COST, SOURCE_COST)
    ranked = sorted(range(len(roles)), key=lambda i: (-lines.get(roles[i].name, 0), i))
    leads = [roles[i] for i in sorted(ranked[:MEASURED_ROLES])]
    clips = ReferenceClips(synth)
    pool = [c for c in candidates(sources) if any(fits(c, r.character) for r in leads)] or candidates(sources)
    work.plan(len(pool) + len(leads) * (QUALITY_COST + CHECK_COST) / 2)  # about half the leads designed
    embeddings = _embed(pool, clips, store, work)
    settling = _Settling(leads, lines, pool, embeddings, clips, store, spoken or {}, work)
    picks = settling.settle({})
    crowded = {i for pair in _pairs_above(picks, settling.embeddings, GOAL) for i in pair}
    more = _colours_for([(leads[i], settling.pool[picks[i]]) for i in sorted(crowded)], sources)
    if more:
        names = " and ".join(leads[i].name for i in sorted(crowded, key=settling.leads.index))
        work.tell(f"setting {names} further apart: more voices of their kinds")
        work.expect(len(more))
        settling.grow(more, _embed(more, clips, store, work))
        before = picks
        picks = settling.settle({r: p for r, p in enumerate(picks) if r not in crowded})
        if _crowding(picks, settling.embeddings) > _crowding(before, settling.embeddings):
            picks = before  # the words excluded what would have set them apart: the cast before stands
    return _result(roles, leads, lines, settling, picks, sources)


def _colours_for(crowded: Sequence[tuple[Role, Candidate]], sources: Sequence[tuple[Casting, str]]) -> list[Candidate]:
    """More candidates for roles too alike: the colours (deep, bright, full) of their picks and
    of the natural candidates that fit them: the voices as installed where any fits, else (a
    child, an older role) the fitting designs over voices of the role's own gender. Not every
    colour of every design: each is a clip voiced and embedded, and the natural ones' colours
    cost the fewest words."""
    coloured = candidates(sources, colours=True)
    chosen: dict[str, Candidate] = {}
    for role, pick in crowded:
        fitting = [c for c in coloured if fits(c, role.character)]
        own = [c for c in fitting if c.label.startswith(f"{pick.label}, ")]
        kind = [c for c in fitting if c.transformed == 1] or [  # a colour of a voice as installed
            c for c in fitting if c.source_gender == c.gender]  # a girl's from a woman's voice, ...
        chosen.update((c.label, c) for c in own + kind)
    return sorted(chosen.values(), key=lambda c: coloured.index(c))


def _embed(pool: Sequence[Candidate], clips: ReferenceClips, store: EmbeddingStore, work: CastWork) -> np.ndarray:
    work.tell(f"listening to {len(pool)} candidate voices")
    return embed_candidates(pool, clips, store, lambda cand, measured: work.did(
        1 if measured else 0, 1, f"listening to the candidate voices: {cand.label}"))


class _Settling:
    """The leads' picks settled one by one, leads first: a pick found harsh or losing its
    role's words is excluded and the roles not yet settled are assigned again."""

    def __init__(self, roles: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate],
                 embeddings: np.ndarray, clips: ReferenceClips, store: EmbeddingStore,
                 spoken: Mapping[str, Sequence[str]], work: CastWork) -> None:
        self.roles, self.lines, self.pool, self.embeddings = roles, lines, list(pool), embeddings
        self.clips, self.store, self.spoken, self.work = clips, store, spoken, work
        self.usable = np.ones((len(roles), len(pool)), dtype=bool)
        self.costs: list[dict[int, float]] = [{} for _ in roles]  # words lost by each pick checked, per role
        self.clean: dict[int, bool] = {}  # quality checked, per candidate
        self.listener = Listener(clips, store)
        self.leads = sorted(range(len(roles)), key=lambda i: (-lines.get(roles[i].name, 0), i))

    def grow(self, more: Sequence[Candidate], embeddings: np.ndarray) -> None:
        self.pool += more
        self.embeddings = np.concatenate([self.embeddings, embeddings])
        self.usable = np.concatenate([self.usable, np.ones((len(self.roles), len(more)), dtype=bool)], axis=1)

    def settle(self, settled: dict[int, int]) -> list[int]:
        """Every role's pick, ``settled`` kept; each other one checked before it is kept."""
        settled = dict(settled)
        similarity = self.embeddings @ self.embeddings.T
        while True:
            picks = assign(self.roles, self.lines, self.pool, similarity, self.usable, settled)
            self.work.plan(sum(self._expected(r, picks[r]) for r in range(len(self.roles)) if r not in settled))
            for r in (r for r in self.leads if r not in settled):
                if self._keeps(r, picks[r]):
                    settled[r] = picks[r]
                    self.work.tell(f"{self.roles[r].name}: {self.pool[picks[r]].label}", settled=len(settled))
                    continue
                if len(self.costs[r]) >= WORD_CHECKS_PER_ROLE or not self._usable_left(r):
                    # Checked enough, or nothing fitting left: the checked pick that lost fewest.
                    settled[r] = min(self.costs[r], key=lambda c: (self.costs[r][c], c)) if self.costs[r] else picks[r]
                    self.work.tell(settled=len(settled))
                break  # assign the roles not yet settled again
            else:
                return picks

    def _usable_left(self, r: int) -> bool:
        return any(self.usable[r, c] for c, cand in enumerate(self.pool) if fits(cand, self.roles[r].character))

    def _expected(self, r: int, p: int) -> float:
        """The work role ``r`` is expected to cost with pick ``p``: its quality and a word check
        (a voice as installed is neither), less what is known already."""
        quality = 0 if p in self.clean or self.pool[p].design.is_neutral else QUALITY_COST
        words = 0 if self.pool[p].design.is_neutral or p in self.costs[r] else CHECK_COST
        return quality + words

    def _keeps(self, r: int, p: int) -> bool:
        """Whether role ``r`` keeps candidate ``p``: clean (DNSMOS, once per candidate) and
        losing at most WORDS_COST_MAX of the role's words; excluded where not."""
        role, cand = self.roles[r], self.pool[p]
        if p not in self.clean and cand.design.is_neutral:
            self.clean[p] = True  # an installed voice as it is: what the producer installed, not judged here
        if p not in self.clean:
            self.work.tell(f"{role.name}: how clean {cand.label} sounds")
            stored = self.store.lookup("q:" + self.clips.key(cand)) is not None
            self.clean[p] = candidate_quality(cand, self.clips, self.store) >= QUALITY_MIN
            self.work.did(0 if stored else QUALITY_COST, QUALITY_COST)
            if not self.clean[p]:
                self.usable[:, p] = False  # harsh for every role
                return False
        elif not self.clean[p]:
            return False
        if p not in self.costs[r]:
            message = f"{role.name}: hearing {cand.label} say the role's lines"
            self.work.tell(message)
            self.costs[r][p] = self.listener.cost(cand, role, self.spoken.get(role.name, ()),
                                                  on_line=lambda heard: self.work.did(
                                                      LINE_COST if heard else 0, LINE_COST, message))
        if self.costs[r][p] > WORDS_COST_MAX:
            self.usable[r, p] = False
            return False
        return True


def _crowding(picks: Sequence[int], embeddings: np.ndarray) -> tuple[int, int]:
    """How alike a cast's roles are, as the search ranks it: the pairs sharing a candidate, then
    the closest pair of the others (in steps of TIE)."""
    shared = sum(a == b for i, a in enumerate(picks) for b in picks[i + 1:])
    closest = max((float(embeddings[a] @ embeddings[b]) for i, a in enumerate(picks) for b in picks[i + 1:]
                   if a != b), default=-1.0)
    return shared, round(closest / TIE)


def _pairs_above(picks: Sequence[int], embeddings: np.ndarray, limit: float) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(picks)) for j in range(i + 1, len(picks))
            if float(embeddings[picks[i]] @ embeddings[picks[j]]) > limit]


def _result(roles: Sequence[Role], leads: Sequence[Role], lines: Mapping[str, int], settling: _Settling,
            picks: Sequence[int], sources: Sequence[tuple[Casting, str]]) -> MeasuredCast:
    pool, embeddings = settling.pool, settling.embeddings
    result = MeasuredCast()
    uses: Counter[int] = Counter()
    for i in settling.leads:  # two leads on one candidate (too few for them) are told apart as sharers
        role, pick = leads[i], picks[i]
        result.voices[role.name], result.labels[role.name] = shared_voice(pool[pick], role.voice, uses[pick])
        uses[pick] += 1
    others = [r for r in roles if r.name not in result.voices]
    if others:
        shared = _share_the_rest(others, lines, pool, picks, sources)
        result.voices.update(shared.voices)
        result.labels.update(shared.labels)
    result.voices = {r.name: result.voices[r.name] for r in roles}  # in the roles' order
    similarity = embeddings @ embeddings.T
    for i, a in enumerate(leads):
        for j in range(i + 1, len(leads)):
            result.similarity[(a.name, leads[j].name)] = round(float(similarity[picks[i], picks[j]]), 3)
    if result.similarity:
        (a_name, b_name), value = max(result.similarity.items(), key=lambda kv: kv[1])
        result.closest = (a_name, b_name, value)
    return result


def _share_the_rest(others: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate],
                    picks: Sequence[int], sources: Sequence[tuple[Casting, str]]) -> QuickCast:
    """Roles beyond the measured leads share the leads' checked picks of their kind (with
    the offsets of the quick cast); a kind no lead has takes the quick cast's candidates."""
    checked = sorted(set(picks))
    kept = [pool[p] for p in checked]
    taken = Counter({checked.index(p): n for p, n in Counter(picks).items()})
    sharing = [r for r in others if any(fits(c, r.character) for c in kept)]
    result = share_out(sharing, lines, kept, [c for c, _ in sources], taken)
    rest = [r for r in others if r.name not in result.voices]
    if rest:
        fallback = candidates(sources) + candidates(sources, colours=True)
        more = share_out(rest, lines, fallback, [c for c, _ in sources])
        result.voices.update(more.voices)
        result.labels.update(more.labels)
    return result


def cast_project(project: Project, library: VoiceLibrary, progress: Callable[[CastProgress], None] | None = None,
                 cancel: threading.Event | None = None) -> MeasuredCast:
    """The cast of a project's roles as they stand (their characters read or set), with their
    line counts and lines: the one call of ``radioplay import``, the studio's Import Script
    (in the background, after the quick cast it shows at once) and Suggest Cast."""
    lines = lines_per_role(project.cast, [line.role for line in project.lines])
    return cast_roles(project.cast, library, lines, progress, project.spoken_by_role(), cancel)


def cast_roles(roles: Sequence[Role], library: VoiceLibrary, lines: Mapping[str, int] | None = None,
               progress: Callable[[CastProgress], None] | None = None,
               spoken: Mapping[str, Sequence[str]] | None = None,
               cancel: threading.Event | None = None) -> MeasuredCast:
    """The one casting of ``radioplay import``, Import Script and Suggest Cast: the measured
    cast, or without the speaker encoder the quick one (engine/synth/casting.py).
    ``spoken``: each role's lines in script order (a design is heard saying them);
    ``cancel``: set to stop (CastCancelled)."""
    try:
        return measured_cast(roles, library, lines, progress=progress, spoken=spoken, cancel=cancel)
    except speaker.SpeakerEncoderUnavailable:
        quick = quick_cast(roles, library, lines)
        return MeasuredCast(voices=quick.voices, labels=quick.labels, measured=False)
