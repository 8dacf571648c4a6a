"""Content-addressed clip cache: in memory (LRU within a byte budget) and on
disk beside the project (``<project>.radioplay-cache/``).

The key is computed by :func:`clip_key` and nowhere else: normalized text,
the lexicon entries used, the voice file's identity, the voice parameters,
the project rate and the engine version. Anything else (gain, pan, timing)
does not change a clip and so does not invalidate it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import cast

import numpy as np

from engine import ENGINE_VERSION
from engine.fsutil import fsync_dir, temp_path_for
from engine.project.model import VoiceParams


def clip_key(units: tuple[str, ...], lexicon_used: tuple[tuple[str, str], ...], voice_identity: str,
             params: VoiceParams, speaker_id: int | None, sample_rate: int) -> str:
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
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


def cache_dir_for(project_path: Path) -> Path:
    return project_path.with_name(project_path.name + "-cache")


class ClipCache:
    """Thread-safe. Disk entries are ``<key>.npy`` (float32 mono), memory-mapped
    on read so a long production does not have to fit in RAM."""

    def __init__(self, directory: Path | None = None, memory_budget_bytes: int = 256 << 20) -> None:
        self.directory = directory
        self.budget = memory_budget_bytes
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / f"{key}.npy"

    def get(self, key: str) -> np.ndarray | None:
        with self._lock:
            audio = self._memory.get(key)
            if audio is not None:
                self._memory.move_to_end(key)
                self.hits += 1
                return audio
        if self.directory is not None:
            path = self._path(key)
            if path.is_file():
                try:
                    audio = np.load(path, mmap_mode="r", allow_pickle=False)
                except (OSError, ValueError, EOFError):
                    with contextlib.suppress(OSError):
                        path.unlink()  # a damaged entry is re-synthesized, not trusted
                else:
                    if audio.dtype == np.float32 and audio.ndim == 1:
                        self._remember(key, audio)
                        with self._lock:
                            self.hits += 1
                        return cast(np.ndarray, audio)  # a read-only np.memmap
        with self._lock:
            self.misses += 1
        return None

    def __contains__(self, key: str) -> bool:
        with self._lock:
            if key in self._memory:
                return True
        return self.directory is not None and self._path(key).is_file()

    def put(self, key: str, audio: np.ndarray) -> None:
        # A private read-only copy: cached audio is shared between threads and
        # must not change under a caller (or make the caller's array read-only).
        audio = np.array(audio, dtype=np.float32, copy=True)
        audio.setflags(write=False)
        if self.directory is not None:
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
        self._remember(key, audio)

    def _remember(self, key: str, audio: np.ndarray) -> None:
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return
            self._memory[key] = audio
            self._bytes += audio.nbytes
            while self._bytes > self.budget and len(self._memory) > 1:
                _, old = self._memory.popitem(last=False)
                self._bytes -= old.nbytes
