"""The clip cache's disk tier: ``<key>.npy`` files in the user's cache folder.

Clips are content-addressed (engine/synth/cache.py:clip_key), so one folder
serves every project of the user: a project saved under a new name, moved,
copied or opened from another folder finds its clips and re-voices nothing.
The folder is ``RADIOPLAY_CACHE_DIR`` or the platform's user cache folder
(platformdirs), kept under a size limit (``RADIOPLAY_CACHE_LIMIT_MB``,
default 4096) by removing the least recently used clips; a read refreshes a
clip's modification time, which is what "recently used" means across
processes. Clips this process has read or written are never removed by it,
so a production larger than the limit still renders in one go.

Before the shared folder, clips lived beside each project
(``PROJECT.radioplay-cache/``). Those folders are still read: a clip found
there is linked (or copied) into the shared folder on first use, so nothing
voiced before is voiced again.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.fsutil import fsync_dir, temp_path_for
from engine.synth import wordtimes
from engine.synth.wordtimes import ClipWords

CACHE_DIR_ENV = "RADIOPLAY_CACHE_DIR"
CACHE_LIMIT_ENV = "RADIOPLAY_CACHE_LIMIT_MB"
DEFAULT_LIMIT_BYTES = 4096 << 20  # about 6 hours of clips at 48 kHz
# Eviction goes this far below the limit, so it runs once per many writes.
_LOW_WATER = 0.9


def usable_samples(audio: np.ndarray) -> bool:
    """Whether a clip read back has samples and every one is finite. An empty clip would mix
    as silence; a NaN or infinite sample silences or spikes the mix and slips past loudness
    measurement, which gates it away. The sum in float64 is finite exactly when every float32
    sample is (no sum of float32 values can overflow it), without a temporary the clip's size."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf is NaN: the answer, not a problem
        return audio.size > 0 and math.isfinite(float(np.sum(audio, dtype=np.float64)))


class CacheFolderError(OSError):
    """The cache folder cannot be used (it is a file, or cannot be made)."""


def user_cache_dir() -> Path:
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return platformdirs.user_cache_path("radioplay", appauthor=False) / "clips"


def cache_limit_bytes() -> int:
    value = os.environ.get(CACHE_LIMIT_ENV)
    if not value:
        return DEFAULT_LIMIT_BYTES
    try:
        megabytes = float(value)
    except ValueError:
        raise CacheFolderError(f"{CACHE_LIMIT_ENV}={value!r} is not a number of megabytes") from None
    if not 0 < megabytes < 1e9:
        raise CacheFolderError(f"{CACHE_LIMIT_ENV}={value!r} must be a positive number of megabytes")
    return int(megabytes * (1 << 20))


class ClipFolder:
    """Thread-safe; several processes may share the folder (writes are atomic
    renames, a removed file only costs a re-synthesis)."""

    def __init__(self, directory: Path, limit_bytes: int | None = None, legacy: Sequence[Path] = ()) -> None:
        self.directory = Path(directory)
        self.limit_bytes = limit_bytes
        self.legacy = [Path(p) for p in legacy]
        if self.directory.exists() and not self.directory.is_dir():
            raise CacheFolderError(f"the clip cache folder {self.directory} is a file; remove it or set "
                                   f"{CACHE_DIR_ENV} to a folder")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheFolderError(f"cannot create the clip cache folder {self.directory}: "
                                   f"{exc.strerror or exc}") from exc
        self._lock = threading.Lock()
        self._used: set[str] = set()  # read or written by this process: never evicted by it
        self._bytes: int | None = None  # running total; None until the first write scans the folder

    def path(self, key: str) -> Path:
        return self.directory / f"{key}.npy"

    def __contains__(self, key: str) -> bool:
        return self.path(key).is_file() or any((d / f"{key}.npy").is_file() for d in self.legacy)

    def load(self, key: str) -> np.ndarray | None:
        """The clip memory-mapped, or None; a damaged file, an empty clip and one with a
        sample that is not finite are removed (re-synthesized, not trusted)."""
        path = self.path(key)
        if not path.is_file() and not self._adopt(key):
            return None
        return self._mapped(key, 1)

    def load_staged(self, key: str) -> np.ndarray | None:
        """A staged clip (engine/audio/staging.py: (frames, 2) float32, kept here
        under its staged key, in the same size limit) memory-mapped, or None."""
        return self._mapped(key, 2) if self.path(key).is_file() else None

    def _mapped(self, key: str, ndim: int) -> np.ndarray | None:
        path = self.path(key)
        try:
            mapped = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError, EOFError):
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        if mapped.dtype != np.float32 or mapped.ndim != ndim or (ndim == 2 and mapped.shape[1] != 2):
            return None
        if not usable_samples(mapped):
            # Never mixed, never measured: the caller voices the line again (and writes it anew).
            del mapped
            with contextlib.suppress(OSError):
                path.unlink()
            with contextlib.suppress(OSError):
                self.words_path(key).unlink()
            return None
        with self._lock:
            self._used.add(key)
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: the last to be evicted
        return mapped  # type: ignore[no-any-return]

    def save(self, key: str, audio: np.ndarray) -> None:
        final = self.path(key)
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
        self._added(key, final)

    def words_path(self, key: str) -> Path:
        return self.directory / f"{key}.words.json"

    def save_words(self, key: str, words: ClipWords) -> None:
        """The clip's word timings beside it (engine.synth.wordtimes), renamed
        into place but not flushed: a sidecar lost or torn by a power cut only
        leaves the clip without timings (loads rejects it), so it is not worth
        a second fsync per clip."""
        final = self.words_path(key)
        temp = temp_path_for(final)
        try:
            temp.write_text(wordtimes.dumps(words), encoding="utf-8")
            os.replace(temp, final)
        except OSError:
            with contextlib.suppress(OSError):
                temp.unlink()

    def load_words(self, key: str) -> ClipWords | None:
        """The clip's word timings, or None: none written (a clip from before
        word timings, a sound), another version, or damaged."""
        try:
            text = self.words_path(key).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return wordtimes.loads(text)

    def _adopt(self, key: str) -> bool:
        """A clip from a per-project cache folder of earlier versions: link
        (or copy) it into the shared folder, where it is found from now on."""
        for folder in self.legacy:
            source = folder / f"{key}.npy"
            if not source.is_file():
                continue
            final = self.path(key)
            temp = temp_path_for(final)
            try:
                temp.unlink()
                try:
                    os.link(source, temp)
                except OSError:  # another file system, or no hard links there
                    shutil.copyfile(source, temp)
                os.replace(temp, final)
            except OSError:
                with contextlib.suppress(OSError):
                    temp.unlink()
                continue
            self._added(key, final)
            return True
        return False

    def _added(self, key: str, path: Path) -> None:
        if self.limit_bytes is None:
            return
        with self._lock:
            self._used.add(key)
            if self._bytes is None:
                self._bytes = sum(size for _, _, size in self._entries())
            else:
                with contextlib.suppress(OSError):
                    self._bytes += path.stat().st_size
            if self._bytes > self.limit_bytes:
                self._evict()

    def _entries(self) -> list[tuple[float, str, int]]:
        """(last used, key, size) of every clip in the folder."""
        entries = []
        with os.scandir(self.directory) as it:
            for entry in it:
                if entry.name.endswith(".npy") and not entry.name.startswith("."):
                    with contextlib.suppress(OSError):
                        stat = entry.stat()
                        entries.append((stat.st_mtime, entry.name[:-4], stat.st_size))
        return entries

    def _evict(self) -> None:
        """Least recently used first, down to the low-water mark (lock held)."""
        assert self.limit_bytes is not None
        entries = sorted(self._entries())
        total = sum(size for _, _, size in entries)
        target = self.limit_bytes * _LOW_WATER
        for _, key, size in entries:
            if total <= target:
                break
            if key in self._used:
                continue
            with contextlib.suppress(OSError):
                self.path(key).unlink()
                total -= size
            with contextlib.suppress(OSError):
                self.words_path(key).unlink()
        self._bytes = total
