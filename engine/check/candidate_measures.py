"""What is measured of a casting candidate, and kept: how it sounds to a speaker
encoder (its embedding), how clean it sounds (DNSMOS) and which words a listener
who has not read the script hears it say on a role's lines (Listener). Each is
measured once per machine, on clips voiced through the real synthesis path, and
stored by the clips' keys (engine/check/casting.py decides with them).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.fsutil import atomic_write_text
from engine.listen import quality, speaker
from engine.listen.heard import GeneralRecognizer, edit_distance, words
from engine.listen.recognizer import RecognizerUnavailable
from engine.project.design import NEUTRAL
from engine.project.direction import spoken_text
from engine.project.model import Role, VoiceParams
from engine.synth.cast_candidates import Candidate
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer, RawAudio

REFERENCE = ("I never thought the old lighthouse would go dark, but tonight the lamp is out "
             "and the sea is very loud.")
REFERENCE_RATE = 24000

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
# A word check decides after this many words heard when the answer is already clear (Listener.cost).
DECIDE_WORDS = 20
# A design may cost at most this much more word error rate than its source as installed on
# the same lines (the bar of bench/voices.py and of the issue that asked for designs).
WORDS_COST_MAX = 0.05

EMBEDDINGS_FILE = "speaker-embeddings.json"


class EmbeddingStore:
    """Measurements of reference clips by key (an embedding, or a one-number measure under a
    prefix: "q:" quality, "w1:" a line's word errors, "f0:" pitch), in one JSON file that every process
    measuring on this machine shares: the studio and a CLI import at once, or the test
    suite's workers. A save merges what is on disk under an exclusive lock before its atomic
    write, and a key this process lacks is looked for on disk again before it is measured.
    Before, each save wrote the snapshot its store had read when it opened: a second
    process measuring meanwhile (a cold cast takes tens of seconds) lost its entries, and
    both measured what the other already had."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.values: dict[str, list[float]] = self._read()
        self.changed = False

    def _read(self) -> dict[str, list[float]]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return {k: v for k, v in data.items() if isinstance(v, list)}
        except (OSError, ValueError, AttributeError):
            return {}  # a damaged cache only means measuring again

    def lookup(self, key: str) -> list[float] | None:
        """The stored values of ``key``, read from disk again when this process lacks them."""
        value = self.values.get(key)
        if value is None and self.path is not None:
            self.values = {**self._read(), **self.values}
            value = self.values.get(key)
        return value

    def remember(self, key: str, values: list[float]) -> None:
        """Store ``values`` under ``key`` and save at once: an interrupted measurement loses none."""
        self.values[key] = values
        self.changed = True
        self.save()

    def get(self, key: str) -> np.ndarray | None:
        value = self.lookup(key)
        return None if value is None else np.asarray(value, dtype=np.float32)

    def put(self, key: str, embedding: np.ndarray) -> None:
        self.remember(key, [round(float(x), 6) for x in embedding])

    def save(self) -> None:
        if self.path is None or not self.changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _exclusive(self.path.with_name(self.path.name + ".lock")):
                self.values = {**self._read(), **self.values}
                atomic_write_text(self.path, json.dumps(self.values))
            self.changed = False
        except OSError:
            pass  # best effort, as the clip cache


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Held by one process at a time (flock; where the platform has none, not held: two saves
    at once may then lose one's new entries, never the file)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def default_store() -> EmbeddingStore:
    """What the installed voices sound like, measured once per machine. Not in the clip folder:
    it is no clip, and a clip folder may be emptied, shared or pointed elsewhere per project
    (the tests give each test a cold one) without the voices changing."""
    import platformdirs

    return EmbeddingStore(platformdirs.user_cache_path("radioplay", appauthor=False) / EMBEDDINGS_FILE)


class ReferenceClips:
    """A sentence (the reference, or a role's line) as each candidate says it. A design
    shapes the model's output after inference (its rate too: time scaling), so every
    candidate of a source shares the model's raw audio of a text: inferred once per text,
    source and settings, then shaped per design. The same samples as synthesizing each alone, without running Kokoro
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
                     each: Callable[[Candidate, bool], None] | None = None) -> np.ndarray:
    """One embedding per candidate, of the reference sentence as the engine voices it.
    Rounded as stored, so a measured run and a cached one decide alike. ``each(candidate,
    measured)``: called after every candidate, ``measured`` False where the store had it."""
    encoder = speaker.encoder()
    rows = []
    for cand in chosen:
        key = clips.key(cand)
        embedding = store.get(key)
        measured = embedding is None
        if embedding is None:
            store.put(key, encoder.embed(clips.clip(cand), clips.synth.sample_rate))
            embedding = store.get(key)
        assert embedding is not None
        rows.append(embedding)
        if each is not None:
            each(cand, measured)
    return np.stack(rows) if rows else np.zeros((0, speaker.EMBEDDING_SIZE), np.float32)


def candidate_quality(cand: Candidate, clips: ReferenceClips, store: EmbeddingStore) -> float:
    """DNSMOS OVRL of a candidate's reference clip (stored; 5 without the quality model:
    then nothing is excluded for it)."""
    key = "q:" + clips.key(cand)
    stored = store.lookup(key)
    if stored is None:
        try:
            stored = [round(quality.quality(clips.clip(cand), clips.synth.sample_rate), 3)]
        except quality.QualityModelUnavailable:
            return 5.0
        store.remember(key, stored)
    return float(stored[0])


class Listener:
    """What a candidate costs a role in words: engine/listen/heard.py's general recognizer
    on the role's lines (LISTENING for a role with none), said by the candidate and by its
    source as installed. Heard line by line, and each line's errors stored by its clip's key
    (any project with the same line and voice hears it again for nothing); the lines stop as
    soon as the answer is clear (``cost``). Without pocketsphinx nothing is excluded for its words."""

    def __init__(self, clips: ReferenceClips, store: EmbeddingStore) -> None:
        self.clips, self.store = clips, store
        self._recognizer: GeneralRecognizer | None = None
        self._unavailable = False
        self.lines_heard = 0  # lines voiced and heard (not found in the store) by this listener

    def cost(self, cand: Candidate, role: Role, spoken: Sequence[str] = (),
             on_line: Callable[[bool], None] | None = None) -> float:
        """Word errors over the source's as installed, per word, on the role's lines ``spoken``
        (the first WORD_CHECK_LINES that have words); 0 for the source itself.

        Line by line, stopping early where the rest cannot change the answer much: once
        DECIDE_WORDS words are heard, a design that has lost no more words than its source
        keeps them; one that has already lost more than WORDS_COST_MAX of all the lines'
        words loses them even if the rest tie. ``on_line(heard)``: called after each line,
        ``heard`` False where both figures were stored."""
        if cand.design.is_neutral:
            return 0.0
        texts = [t for t in spoken if words(spoken_text(t))][:WORD_CHECK_LINES] or list(LISTENING)
        plain = replace(cand, design=NEUTRAL, transformed=0)
        planned = sum(len(words(spoken_text(t))) for t in texts)
        lost = heard = 0
        for text in texts:
            before = self.lines_heard
            own, said = self.line_errors(cand, text, role.voice)
            base, _ = self.line_errors(plain, text, role.voice)
            if own is None or base is None:
                return 0.0
            lost, heard = lost + own - base, heard + said
            if on_line is not None:
                on_line(self.lines_heard > before)
            if heard >= DECIDE_WORDS and (lost <= 0 or lost > WORDS_COST_MAX * planned):
                break
        return lost / max(1, heard)

    def line_errors(self, cand: Candidate, text: str, base: VoiceParams) -> tuple[int | None, int]:
        """(word errors, words) of ``text`` said by ``cand`` over the role's settings ``base``;
        (None, words) without the recognizer. Measured once and stored."""
        said = spoken_text(text)  # directions are performed, never said
        count = len(words(said))
        key = "w1:" + self.clips.synth.plan(text, cand.voice(base)).key
        stored = self.store.lookup(key)
        if stored is not None:
            return int(stored[0]), count
        if self._unavailable:
            return None, count
        try:
            if self._recognizer is None:
                self._recognizer = GeneralRecognizer()
        except RecognizerUnavailable:
            self._unavailable = True
            return None, count
        clip = self.clips.clip(cand, text, base)
        errors = edit_distance(words(said), words(self._recognizer(clip, self.clips.synth.sample_rate)))
        self.lines_heard += 1
        self.store.remember(key, [float(errors)])
        return errors, count


def reference_synthesizer(library: VoiceLibrary) -> ClipSynthesizer:
    """Reference clips kept in the user's clip cache (a candidate's quality is measured
    later than its embedding), in memory where that folder is unusable."""
    from engine.synth.cache import ClipCache
    from engine.synth.clipfolder import cache_limit_bytes, user_cache_dir

    try:
        cache = ClipCache(user_cache_dir(), disk_limit_bytes=cache_limit_bytes())
    except Exception:  # CacheFolderError and OS errors: measuring still works, only slower next time
        cache = ClipCache()
    return ClipSynthesizer(library, REFERENCE_RATE, cache)
