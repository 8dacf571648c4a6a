"""Content-addressed clip cache: in memory (LRU within a byte budget) and on
disk beside the project (``<project>.radioplay-cache/``).

The key is computed by :func:`clip_key` and nowhere else: normalized text,
the lexicon entries used, the voice file's identity, the voice parameters,
the take's seed, the project rate and the engine version. Anything else (gain, pan, timing)
does not change a clip and so does not invalidate it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import cast

import numpy as np

from engine import ENGINE_VERSION
from engine.fsutil import fsync_dir, temp_path_for
from engine.memory.arena import Allocation, ArenaFull
from engine.memory.clipstore import ClipTooLarge, PooledClipStore
from engine.project.model import VoiceParams


def clip_key(units: tuple[str, ...], lexicon_used: tuple[tuple[str, str], ...], voice_identity: str,
             params: VoiceParams, speaker_id: int | None, sample_rate: int, seed: int = 0) -> str:
    payload = {
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
        "seed": seed,  # the take (engine.synth.piper_noise)
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


def cache_dir_for(project_path: Path) -> Path:
    return project_path.with_name(project_path.name + "-cache")


class ClipCache:
    """Thread-safe, two tiers.

    Memory: a preallocated arena (:class:`~engine.memory.clipstore.PooledClipStore`)
    holding recently used clips within a byte budget, LRU-evicted; ``get``
    returns read-only views into it, no copies. A view stays valid until its
    clip is evicted, so a holder that must outlive later ``put`` calls pins
    the key (:meth:`pin`), as playback and a render in progress do.

    Disk: ``<key>.npy`` (float32 mono) beside the project, written atomically
    and memory-mapped on read, so a long production does not have to fit in
    RAM and a reopened project re-synthesizes nothing.
    """

    def __init__(self, directory: Path | None = None, memory_budget_bytes: int = 256 << 20,
                 block_frames: int = 4800) -> None:
        self.directory = directory
        self.store = PooledClipStore.host(memory_budget_bytes, block_frames)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / f"{key}.npy"

    def get(self, key: str, pin: bool = False) -> np.ndarray | None:
        """The clip, or None. With ``pin``, a clip served from memory is pinned
        (unpin it when done); a memory-mapped disk clip needs no pin."""
        return self.acquire(key, pin)[0]

    def acquire(self, key: str, pin: bool = True) -> tuple[np.ndarray | None, bool]:
        """(clip or None, whether it was pinned): a caller that keeps the clip
        unpins it later only if this says it holds a pin."""
        pinned = False
        audio = self.store.get(key, pin=pin)
        if audio is not None:
            pinned = pin
        elif self.directory is not None:
            path = self._path(key)
            if path.is_file():
                try:
                    mapped = np.load(path, mmap_mode="r", allow_pickle=False)
                except (OSError, ValueError, EOFError):
                    with contextlib.suppress(OSError):
                        path.unlink()  # a damaged entry is re-synthesized, not trusted
                else:
                    if mapped.dtype == np.float32 and mapped.ndim == 1:
                        # Promote into the arena (the hot tier); the memory-mapped
                        # read-only array when there is no room, or while the
                        # clip's own synthesis still holds its reservation
                        # (commit writes the file first).
                        try:
                            audio = self.store.put(key, mapped, pin=pin)
                            pinned = pin
                        except (ArenaFull, ClipTooLarge, KeyError):
                            audio = cast(np.ndarray, mapped)
        with self._lock:
            if audio is None:
                self.misses += 1
            else:
                self.hits += 1
        return audio, pinned

    def __contains__(self, key: str) -> bool:
        return key in self.store or (self.directory is not None and self._path(key).is_file())

    def put(self, key: str, audio: np.ndarray) -> np.ndarray:
        """Store a clip; returns the array to use from now on (a view into the
        arena, or a read-only copy when pinned clips leave no room)."""
        audio = np.ascontiguousarray(audio, dtype=np.float32)
        if audio.ndim != 1:
            raise ValueError(f"clips are mono: expected a 1-D array, got shape {audio.shape}")
        self._write_disk(key, audio)
        return self._keep(key, audio)

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

    def commit(self, key: str, allocation: Allocation[np.ndarray], audio: np.ndarray) -> np.ndarray:
        """Store a clip into its reservation (no extra copy when it fits).
        A clip longer than the reservation (a predictor miss) is stored anew."""
        audio = np.ascontiguousarray(audio, dtype=np.float32)
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
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        final = self._path(key)
        temp = temp_path_for(final)
        try:
            with open(temp, "wb") as f:
                np.save(f, audio, allow_pickle=False)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, final)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
            raise
        fsync_dir(final.parent)
