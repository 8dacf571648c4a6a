"""The measured cast: gender and age fit, the closest pair as far apart as the
candidates allow, the same cast every time (measured or from the stored embeddings)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.check.candidate_measures import (
    LISTENING,
    REFERENCE,
    Candidate,
    EmbeddingStore,
    Listener,
    ReferenceClips,
    candidate_quality,
)
from engine.check.casting import (
    APART,
    QUALITY_MIN,
    WORD_CHECKS_PER_ROLE,
    WORDS_COST_MAX,
    _clean_picks,
    assign,
    candidates,
    measured_cast,
)
from engine.listen import speaker
from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.model import Character, Role, VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.casting import Casting
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer


def _candidate(n: int, gender: str, age: str = "adult", transformed: int = 0) -> Candidate:
    return Candidate(Casting(f"v{n}"), VoiceDesign(f0_shift=float(n)) if n else NEUTRAL, gender, age, f"v{n}",
                     transformed)


def test_assignment_fits_character_and_keeps_the_closest_pair_apart() -> None:
    pool = [_candidate(0, "male"), _candidate(1, "male"), _candidate(2, "female"), _candidate(3, "female"),
            _candidate(4, "female", "child")]
    sim = np.array([[1.0, 0.9, 0.5, 0.4, 0.3],
                    [0.9, 1.0, 0.6, 0.5, 0.4],
                    [0.5, 0.6, 1.0, 0.7, 0.85],
                    [0.4, 0.5, 0.7, 1.0, 0.6],
                    [0.3, 0.4, 0.85, 0.6, 1.0]])
    roles = [Role("TOM", character=Character("male", "adult")), Role("ANN", character=Character("female", "adult")),
             Role("MEG", character=Character("female", "adult")), Role("KIT", character=Character("", "child"))]
    lines = {"TOM": 9, "ANN": 5, "MEG": 3, "KIT": 1}
    picks = assign(roles, lines, pool, sim)
    assert picks[0] in (0, 1) and picks[3] == 4 and {picks[1], picks[2]} == {2, 3}
    # TOM takes the male voice farther from the women and the child (v0, not v1).
    assert picks[0] == 0
    assert assign(roles, lines, pool, sim) == picks  # deterministic
    # A role with a free choice takes the farthest voice from the others, not the first.
    free = [Role("A", character=Character("male", "adult")), Role("B", character=Character("male", "adult"))]
    assert sorted(assign(free, {}, pool[:2], sim[:2, :2])) == [0, 1]


@pytest.mark.integration
def test_a_measured_cast_from_one_voice_is_the_same_every_time(tmp_path: Path) -> None:
    speaker.weights_path()  # in the test extra: missing is a broken set-up, not a skip
    library = VoiceLibrary(user_dir=tmp_path / "voices")
    joe = [(Casting(library.bundled()[0].id), "male")]
    roles = [Role("MARGARET", character=Character("female", "adult")),
             Role("EDMUND", character=Character("male", "adult")),
             Role("ROSIE", character=Character("female", "child"))]
    store_path = tmp_path / "embeddings.json"
    synth = ClipSynthesizer(library, 24000, ClipCache(tmp_path / "clips"))
    first = measured_cast(roles, library, {}, synth, EmbeddingStore(store_path), sources=joe)
    assert store_path.is_file()
    again = measured_cast(roles, library, {}, ClipSynthesizer(library, 24000, ClipCache(tmp_path / "other")),
                          EmbeddingStore(store_path), sources=joe)
    assert again.voices == first.voices and again.closest == first.closest
    labels = first.labels
    assert labels["EDMUND"].endswith("medium") or "deep" in labels["EDMUND"] or "bright" in labels["EDMUND"]
    assert "as woman" in labels["MARGARET"] and "as girl" in labels["ROSIE"], labels
    assert first.closest is not None and first.summary().startswith("closest: ")
    assert first.voices["ROSIE"].design.f0_shift > first.voices["EDMUND"].design.f0_shift


def test_reference_clips_infer_once_per_source_and_match_the_synthesized_clip(tmp_path: Path) -> None:
    library = VoiceLibrary(user_dir=tmp_path / "voices")
    joe = Casting(library.bundled()[0].id)
    designs = [NEUTRAL, VoiceDesign(f0_shift=4.0, formant=1.1, rate=1.1)]
    cands = [Candidate(joe, d, "male", "adult", f"joe {i}", i) for i, d in enumerate(designs)]
    synth = ClipSynthesizer(library, 24000, ClipCache())
    clips = ReferenceClips(synth)
    shared = [clips.clip(c) for c in cands]
    assert synth.synth_calls == 1  # one inference for both designs of one voice
    alone = ClipSynthesizer(library, 24000, ClipCache())
    for cand, clip in zip(cands, shared, strict=True):
        expected = alone.synthesize(REFERENCE, cand.voice(VoiceParams()))
        assert clip.shape == expected.shape and np.array_equal(clip, expected), cand.label
    assert shared[1].size < shared[0].size  # the design (its rate too) shaped the shared audio
    # Another sentence is another inference: the shared audio is per text (it once was per voice
    # only, so every sentence after the first was the first one again).
    other = clips.clip(cands[1], LISTENING[1])
    assert synth.synth_calls == 2
    expected = alone.synthesize(LISTENING[1], cands[1].voice(VoiceParams()))
    assert np.array_equal(other, expected)


@pytest.mark.integration
def test_a_design_that_loses_a_roles_words_is_not_cast_when_a_fitting_one_keeps_them(tmp_path: Path) -> None:
    """The listener hears joe an octave up through a long tract (+12 st, tract x0.8) lose
    most of a role's words while his quality still passes; a pick that costs the role more
    than WORDS_COST_MAX on its own lines is excluded and the role gets a fitting one."""
    library = VoiceLibrary(user_dir=tmp_path / "voices")
    joe = Casting(library.bundled()[0].id)
    synth = ClipSynthesizer(library, 24000, ClipCache())
    store = EmbeddingStore(tmp_path / "embeddings.json")
    clips = ReferenceClips(synth)
    listener = Listener(clips, store)
    plain = Candidate(joe, NEUTRAL, "male", "adult", "joe", 0)
    mangled = Candidate(joe, VoiceDesign(f0_shift=12.0, formant=0.8), "male", "adult", "joe mangled", 2)
    roles = [Role("A", character=Character("male", "adult")), Role("B", character=Character("male", "adult"))]
    spoken = {"A": ["The tide is coming in, so we should leave the harbour now.",
                    "I left the lantern by the door of the boat house."], "B": []}
    assert listener.cost(plain, roles[0], spoken["A"]) == 0.0
    assert listener.cost(mangled, roles[0], spoken["A"]) > WORDS_COST_MAX  # the words go
    assert listener.cost(mangled, roles[1], spoken["B"]) > WORDS_COST_MAX  # no lines: the held-out sentences
    assert candidate_quality(mangled, clips, store) >= QUALITY_MIN  # words alone exclude it
    assert sum(k.startswith("w:") for k in store.values) == 4  # both voices on both texts, kept
    # In the cast: two fitting candidates, the mangled one farther from the other role.
    lighter = Candidate(joe, VoiceDesign(f0_shift=3.0, formant=1.05), "male", "adult", "joe lighter", 1)
    pool = [plain, mangled, lighter]
    embeddings = np.eye(3, dtype=np.float32)
    embeddings[2] = (embeddings[0] + embeddings[2]) / np.sqrt(2)  # "joe lighter" 0.71 to joe; mangled 0
    picks = _clean_picks(roles, {"A": 2}, pool, embeddings, clips, store, spoken)
    assert 1 not in picks and sorted(picks) == [0, 2]


@pytest.mark.integration
def test_a_role_whose_picks_all_lose_words_takes_the_checked_one_that_lost_fewest(tmp_path: Path) -> None:
    """Five fitting designs that each lose most of the role's words: the casting checks
    WORD_CHECKS_PER_ROLE of them, not all, and the role takes the one that lost fewest."""
    library = VoiceLibrary(user_dir=tmp_path / "voices")
    joe = Casting(library.bundled()[0].id)
    synth = ClipSynthesizer(library, 24000, ClipCache())
    store = EmbeddingStore(tmp_path / "embeddings.json")
    clips = ReferenceClips(synth)
    pool = [Candidate(joe, VoiceDesign(f0_shift=10.0 + i, formant=0.78 + 0.01 * i), "female", "adult",
                      f"joe mangled {i}", 2) for i in range(WORD_CHECKS_PER_ROLE + 1)]
    roles = [Role("ANN", character=Character("female", "adult"))]
    spoken = {"ANN": ["I left the lantern by the door of the boat house."]}
    embeddings = np.eye(len(pool), dtype=np.float32)
    picks = _clean_picks(roles, {"ANN": 1}, pool, embeddings, clips, store, spoken)
    listener = Listener(clips, store)
    checked = {c: listener.cost(pool[c], roles[0], spoken["ANN"]) for c in range(WORD_CHECKS_PER_ROLE)}
    assert all(cost > WORDS_COST_MAX for cost in checked.values())
    assert picks == [min(checked, key=lambda c: (checked[c], c))]
    # The last design was never voiced: its figure is not in the store (own + the plain source's).
    assert sum(k.startswith("w:") for k in store.values) == WORD_CHECKS_PER_ROLE + 1


def test_assignment_finds_the_best_closest_pair_of_all_casts() -> None:
    """Against every possible cast: no greedy order of the leads may leave a closer pair."""
    import itertools

    rng = np.random.default_rng(7)
    for trial in range(20):
        genders = ["male", "female"] * 6
        pool = [_candidate(n, genders[n], "child" if n % 5 == 4 else "adult") for n in range(12)]
        vectors = rng.normal(size=(12, 8)) + 2.0  # similar voices: every pair 0.5-0.95
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        sim = vectors @ vectors.T
        roles = [Role("A", character=Character("female", "adult")), Role("B", character=Character("female", "")),
                 Role("C", character=Character("male", "adult")), Role("D", character=Character("male", "")),
                 Role("E", character=Character("", "child"))]
        lines = {"A": 9, "B": 7, "C": 5, "D": 3, "E": 1}
        picks = assign(roles, lines, pool, sim)
        allowed = [[c for c, cand in enumerate(pool) if (not r.character.gender or cand.gender == r.character.gender)
                    and cand.age == (r.character.age or "adult")] for r in roles]
        best = min(max(sim[a, b] for a, b in itertools.combinations(cast, 2))
                   for cast in itertools.product(*allowed) if len(set(cast)) == len(cast))
        got = max(sim[a, b] for a, b in itertools.combinations(picks, 2))
        # Within TIE of the best of all casts; below APART any cast counts as apart (and the
        # lower sum of similarities decides, every candidate here being untransformed).
        assert got <= max(best, APART) + 0.005, (trial, got, best)
        assert all(p in allowed[i] for i, p in enumerate(picks))


def test_among_casts_told_apart_the_least_transformed_wins() -> None:
    pool = [_candidate(0, "female"), _candidate(1, "female", transformed=2), _candidate(2, "female")]
    # v0 and v2 are 0.72 apart (told apart), v1 (a design) 0.60 from v0: further, but transformed.
    sim = np.array([[1.0, 0.60, 0.72],
                    [0.60, 1.0, 0.65],
                    [0.72, 0.65, 1.0]])
    roles = [Role("ANN", character=Character("female", "adult")), Role("MEG", character=Character("female", "adult"))]
    assert sorted(assign(roles, {"ANN": 3, "MEG": 2}, pool, sim)) == [0, 2]
    # Above APART the closest pair decides again: the design is taken to set them apart.
    crowded = sim.copy()
    crowded[0, 2] = crowded[2, 0] = APART + 0.1
    assert 1 in assign(roles, {"ANN": 3, "MEG": 2}, pool, crowded)


def test_designs_over_a_kokoro_style_shorten_its_tract_only_for_a_child_and_over_joe_move_it() -> None:
    sources = [(Casting("en_US-joe-medium"), "male"), (Casting("jf_nezumi", backend="kokoro"), "female")]
    pool = candidates(sources) + candidates(sources, colours=True)
    kokoro = [c for c in pool if c.casting.backend == "kokoro"]
    joe = [c for c in pool if c.casting.backend == "piper"]
    # A shorter one cost most of the general recognizer's words; a child is not one without it.
    assert kokoro and all(c.design.formant <= 1.0 for c in kokoro if c.age != "child")
    assert all(c.design.formant > 1.1 for c in kokoro if c.age == "child")  # a colour may lengthen it a little
    assert any(c.design.formant < 1.0 for c in kokoro if "as man" in c.label)  # a longer one may stay
    assert any(c.design.f0_shift != 0.0 for c in kokoro)  # the pitch still moves
    girl = next(c for c in joe if c.label.endswith("as girl"))
    assert girl.design.formant > 1.1  # over joe the tract moves as the preset says
