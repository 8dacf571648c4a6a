"""Content-addressed clip cache: in memory (LRU within a byte budget) and on
disk in the user's cache folder, shared by every project
(engine/synth/clipfolder.py), so a project saved elsewhere re-voices nothing.

The key is computed by :func:`clip_key` and nowhere else: normalized text,
the lexicon entries used, the voice file's identity, the voice parameters,
the take's seed, the project rate and the engine version. Anything else (gain, pan, timing)
does not change a clip and so does not invalidate it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine import ENGINE_VERSION
from engine.memory.arena import Allocation, ArenaFull
from engine.memory.clipstore import ClipTooLarge, PooledClipStore
from engine.project.model import VoiceParams
from engine.synth.clipfolder import ClipFolder
from engine.synth.design import shaping_method
from engine.synth.wordtimes import ClipWords
from engine.synth.world import WHISPER_METHOD

# Word timings kept in memory (a few hundred bytes each; the disk keeps them all).
_MAX_WORDS = 20_000


def clip_key(units: tuple[str, ...], lexicon_used: tuple[tuple[str, str], ...], voice_identity: str,
             params: VoiceParams, speaker_id: int | None, sample_rate: int, seed: int = 0,
             performance: list[object] | None = None, read: list[object] | None = None) -> str:
    """``performance``: a directed line's phrases as performed (engine/synth/performance.py);
    None for a plain line, whose key is what it always was. ``read``: a take directed by
    a read (engine/synth/read_transfer.py: the read's digest, its words, the strengths)."""
    payload: dict[str, object] = {
        "engine": ENGINE_VERSION,
        "text": list(units),
        "lexicon": [list(e) for e in lexicon_used],
        "voice": voice_identity,
        "backend": params.backend,
        "speaker": speaker_id,
        "speed": round(params.speed, 6),
        "variation": round(params.variation, 6),
        "pitch": round(params.pitch, 6),
        "rate": sample_rate,
        "seed": seed,  # the take (engine.synth.backends.piper.noise)
    }
    if performance is not None:
        payload["performance"] = performance
    if read is not None:
        payload["read"] = read
    # A clip shaped by the voice design (engine.synth.design: pitch folded into its
    # F0 level, levelled after it) is new samples, and its method says how they were
    # made; the neutral design at pitch 0 keys exactly as before designs existed, so
    # those caches stay valid.
    if params.pitch or not params.design.is_neutral:
        payload["shaping"] = shaping_method(params.effective_design) or "level-1"
    if not params.design.is_neutral:
        payload["design"] = {k: round(v, 6) for k, v in params.design.to_dict().items()}
    if params.design.breathiness >= 1.0:
        payload["whisper"] = WHISPER_METHOD  # only whispered clips change with the whisper's method
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


def cache_dir_for(project_path: Path) -> Path:
    """Where versions before the shared cache kept a project's clips (still read)."""
    return project_path.with_name(project_path.name + "-cache")


class ClipCache:
    """Thread-safe, two tiers.

    Memory: a preallocated arena (:class:`~engine.memory.clipstore.PooledClipStore`)
    holding recently used clips within a byte budget, LRU-evicted; ``get``
    returns read-only views into it, no copies. A view stays valid until its
    clip is evicted, so a holder that must outlive later ``put`` calls pins
    the key (:meth:`pin`), as playback and a render in progress do.

    Disk (with a ``directory``): ``<key>.npy`` (float32 mono), written
    atomically and memory-mapped on read, so a long production does not have
    to fit in RAM and a reopened project re-synthesizes nothing; see
    :class:`~engine.synth.clipfolder.ClipFolder` for the size limit and the
    ``legacy`` per-project folders that are still read.
    """

    def __init__(self, directory: Path | None = None, memory_budget_bytes: int = 256 << 20,
                 block_frames: int = 4800, *, disk_limit_bytes: int | None = None,
                 legacy: Sequence[Path] = ()) -> None:
        self.directory = directory
        self.disk = ClipFolder(directory, disk_limit_bytes, legacy) if directory is not None else None
        self.store = PooledClipStore.host(memory_budget_bytes, block_frames)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self._words: dict[str, ClipWords] = {}

    def get(self, key: str, pin: bool = False, promote: bool = True) -> np.ndarray | None:
        """The clip, or None. With ``pin``, a clip served from memory is pinned
        (unpin it when done); a memory-mapped disk clip needs no pin."""
        return self.acquire(key, pin, promote)[0]

    def acquire(self, key: str, pin: bool = True, promote: bool = True) -> tuple[np.ndarray | None, bool]:
        """(clip or None, whether it was pinned): a caller that keeps the clip
        unpins it later only if this says it holds a pin. Without ``promote``
        a clip on disk is served memory-mapped and not copied into memory
        (an export reads each clip once: copying 44 MB of the sample's clips
        into the arena took 0.2-0.5 s of a cached export)."""
        pinned = False
        audio = self.store.get(key, pin=pin)
        if audio is not None:
            pinned = pin
        elif self.disk is not None:
            mapped = self.disk.load(key)
            if mapped is not None and not promote:
                audio = mapped
            elif mapped is not None:
                # Promote into the arena (the hot tier); the memory-mapped
                # read-only array when there is no room, or while the clip's
                # own synthesis still holds its reservation (commit writes
                # the file first).
                try:
                    audio = self.store.put(key, mapped, pin=pin)
                    pinned = pin
                except (ArenaFull, ClipTooLarge, KeyError):
                    audio = mapped
        with self._lock:
            if audio is None:
                self.misses += 1
            else:
                self.hits += 1
        return audio, pinned

    def __contains__(self, key: str) -> bool:
        return key in self.store or (self.disk is not None and key in self.disk)

    def put(self, key: str, audio: np.ndarray, words: ClipWords | None = None) -> np.ndarray:
        """Store a clip (and where its words lie); returns the array to use from
        now on (a view into the arena, or a read-only copy when pinned clips
        leave no room)."""
        audio = np.ascontiguousarray(audio, dtype=np.float32)
        if audio.ndim != 1:
            raise ValueError(f"clips are mono: expected a 1-D array, got shape {audio.shape}")
        self._keep_words(key, words)
        self._write_disk(key, audio)
        return self._keep(key, audio)

    def words(self, key: str) -> ClipWords | None:
        """Where the clip's spoken words lie, or None (not known: a sound, a
        recording, a clip from a cache older than word timings)."""
        with self._lock:
            words = self._words.get(key)
        if words is None and self.disk is not None:
            words = self.disk.load_words(key)
            if words is not None:
                with self._lock:
                    self._words[key] = words
        return words

    def _keep_words(self, key: str, words: ClipWords | None) -> None:
        if words is None:
            return
        with self._lock:
            self._words[key] = words
            while len(self._words) > _MAX_WORDS:  # oldest first (dicts keep insertion order)
                self._words.pop(next(iter(self._words)))
        if self.disk is not None:  # before the clip: a clip on disk then always finds its words
            self.disk.save_words(key, words)

    def _keep(self, key: str, audio: np.ndarray) -> np.ndarray:
        """Into the arena, or a private read-only copy when pins leave no room."""
        try:
            return self.store.put(key, audio)
        except (ArenaFull, ClipTooLarge):
            copy = np.array(audio, copy=True)
            copy.setflags(write=False)
            return copy

    def reserve(self, key: str, frames: int) -> Allocation[np.ndarray] | None:
        """Room in the arena for a clip about to be synthesized (the length
        predictor's estimate); None when there is none to spare."""
        try:
            return self.store.reserve(key, frames)
        except (ArenaFull, ClipTooLarge, KeyError):
            return None

    def commit(self, key: str, allocation: Allocation[np.ndarray], audio: np.ndarray,
               words: ClipWords | None = None) -> np.ndarray:
        """Store a clip into its reservation (no extra copy when it fits).
        A clip longer than the reservation (a predictor miss) is stored anew."""
        audio = np.ascontiguousarray(audio, dtype=np.float32)
        self._keep_words(key, words)
        self._write_disk(key, audio)
        if audio.shape[0] <= allocation.capacity:
            allocation.shrink(audio.shape[0])  # set the true length (any length up to capacity)
            allocation.view()[:] = audio
            return self.store.commit(key, allocation, audio.shape[0])
        self.store.evict(key)
        return self._keep(key, audio)

    def release(self, key: str) -> None:
        """Give back a reservation whose synthesis failed or was abandoned."""
        if key not in self.store:  # committed entries are visible; reservations are not
            self.store.evict(key)

    def pin(self, key: str) -> bool:
        """Keep a clip in memory (its views valid) until :meth:`unpin`."""
        try:
            self.store.pin(key)
        except KeyError:
            return False
        return True

    def unpin(self, key: str) -> None:
        with contextlib.suppress(KeyError):
            self.store.unpin(key)

    def _write_disk(self, key: str, audio: np.ndarray) -> None:
        if self.disk is not None:
            self.disk.save(key, audio)
