"""Handing back the pages of memory-mapped clips a mix pass has gone past.

An export mixes cached clips memory-mapped from the clip cache's ``.npy``
files (engine/synth/cache.py), and every page a pass reads stays in the
process's resident set until the mapping is closed, which is only when the
render ends: 11.5 MB per minute of 48 kHz clips, ~0.7 GB for an hour, on
top of the arena and the voices' sessions (measured: the cold render of a
60-minute production peaked at 1.8 GB, bench/scale.py). The passes follow
the timeline, so once a pass is past a clip's end its pages can go
(``madvise(MADV_DONTNEED)``: the file's pages stay in the page cache, and a
later read, say by the next pass, maps them in again). Nothing is copied
and the samples mixed are the same; only what the process holds changes.
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Iterable

import numpy as np

_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)  # absent on Windows: the pages stay, as before


class PassedClips:
    """The mapped clips of a timeline by end frame; :meth:`release_before`
    drops those that end before a frame, once per pass (:meth:`rewind`)."""

    def __init__(self, spans: Iterable[tuple[int, np.ndarray]]) -> None:
        """``spans``: (end frame, clip) of every placed clip; unmapped clips are ignored."""
        maps = [(end, m) for end, clip in spans if (m := _mapping(clip)) is not None]
        maps.sort(key=lambda item: item[0])
        self._maps = maps
        self._next = 0

    def __len__(self) -> int:
        return len(self._maps)

    def release_before(self, frame: int) -> None:
        maps = self._maps
        while self._next < len(maps) and maps[self._next][0] <= frame:
            if _DONTNEED is not None:
                with contextlib.suppress(OSError, ValueError):  # a closed map: nothing is held
                    maps[self._next][1].madvise(_DONTNEED)
            self._next += 1

    def rewind(self) -> None:
        self._next = 0


def _mapping(clip: np.ndarray) -> mmap.mmap | None:
    """The mmap under a memory-mapped array (np.load's ``mmap_mode``), or None."""
    base: object = clip
    while base is not None:
        if isinstance(base, mmap.mmap):
            return base
        base = getattr(base, "base", None)
    return None
