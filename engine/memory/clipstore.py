"""An LRU clip store whose audio lives inside one :class:`~engine.memory.arena.Arena`.

Why: the in-memory tier of :class:`engine.synth.cache.ClipCache` keeps one
numpy array per clip and lets the heap sort it out. Here the byte budget *is*
the arena, so the store can never overshoot it, freed clips leave reusable
blocks rather than heap holes, and inference can write its output straight
into the store (:meth:`PooledClipStore.reserve` / :meth:`commit`).

Views returned by :meth:`put` and :meth:`get` point into the arena: no copy
is made, and the memory is reused once the entry is evicted. A reader that
needs a clip to stay put (the player, a mix in progress) pins it.

Threads: every public method may be called from any thread; one lock guards
the index and is held while audio is copied in (a memcpy of a few MB at most).
The lock order is store, then arena; the arena never calls back.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from engine.memory.arena import Allocation, Arena, ArenaFull, ArenaStats, FloatArray

B = TypeVar("B")


class ClipTooLarge(ValueError):
    """A clip that could not fit even in an empty arena."""


@dataclass
class _Entry(Generic[B]):
    allocation: Allocation[B]
    committed: bool  # False while reserved: invisible to get, never evicted
    pins: int = 0


@dataclass(frozen=True)
class ClipStoreStats:
    arena: ArenaStats
    entries: int
    pinned: int
    reserved: int
    hits: int
    misses: int
    evictions: int


class PooledClipStore(Generic[B]):
    """Keys are clip keys (:func:`engine.synth.cache.clip_key`); values float32 mono audio."""

    def __init__(self, arena: Arena[B]) -> None:
        self.arena = arena
        self._entries: OrderedDict[str, _Entry[B]] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    @classmethod
    def host(cls, budget_bytes: int, block_frames: int = 4800) -> PooledClipStore[FloatArray]:
        """A store in host memory holding at most ``budget_bytes`` of audio."""
        return PooledClipStore(Arena(budget_bytes // 4, block_frames))

    # -- allocation with eviction (caller holds self._lock) ---------------------

    def _allocate(self, frames: int) -> Allocation[B]:
        need = self.arena.blocks_for(frames)
        if need > self.arena.total_blocks:
            raise ClipTooLarge(f"a clip of {frames} frames is larger than the whole arena "
                               f"({self.arena.capacity_frames} frames); raise the budget")
        try:
            return self.arena.allocate(frames)
        except ArenaFull:
            pass
        # Full: evict only if that can succeed (an O(entries) check, off the fast path).
        if need > self._largest_gap_between_unevictable():
            raise ArenaFull(frames, self.arena.stats().largest_free_bytes // 4,
                            "pinned or reserved clips leave no run that long, even after evicting the rest")
        while True:
            try:
                return self.arena.allocate(frames)
            except ArenaFull:
                # Fragmentation can need more than one eviction; the check above
                # guarantees that evicting everything evictable would succeed.
                victim = next((k for k, e in self._entries.items() if e.committed and e.pins == 0), None)
                if victim is None:  # only when others allocate from the same arena directly
                    raise
                self._drop(victim)
                self.evictions += 1

    def _largest_gap_between_unevictable(self) -> int:
        """The longest run (in blocks) that evicting every evictable entry would free."""
        fixed = sorted((e.allocation.block, e.allocation.blocks) for e in self._entries.values()
                       if not e.committed or e.pins)
        largest, position = 0, 0
        for block, blocks in fixed:
            largest = max(largest, block - position)
            position = block + blocks
        return max(largest, self.arena.total_blocks - position)

    def _drop(self, key: str) -> None:
        entry = self._entries.pop(key)
        self.arena.free(entry.allocation)

    # -- public ---------------------------------------------------------------

    def put(self, key: str, audio: FloatArray, pin: bool = False) -> B:
        """Copy ``audio`` into the arena, evicting least recently used clips as
        needed. A key already present is only marked as used (keys are content
        addresses: same key, same audio). Returns a view of the stored clip."""
        audio = np.ascontiguousarray(audio, dtype=np.float32)
        if audio.ndim != 1:
            raise ValueError(f"clips are mono: expected a 1-D array, got shape {audio.shape}")
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                if not entry.committed:
                    raise KeyError(f"clip {key!r} is reserved; commit or evict it first")
                self._entries.move_to_end(key)
                entry.pins += int(pin)
                return self.arena.storage.freeze(entry.allocation.view())
            allocation = self._allocate(audio.shape[0])
            view = allocation.view()
            self.arena.storage.write(view, audio)
            self._entries[key] = _Entry(allocation, committed=True)
            self._entries[key].pins += int(pin)
            return self.arena.storage.freeze(view)

    def get(self, key: str, pin: bool = False) -> B | None:
        """The stored clip (a view, no copy) or None; counts a hit or a miss.
        ``pin`` pins it in the same step, so no eviction can slip in between."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or not entry.committed:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            entry.pins += int(pin)
            self.hits += 1
            return self.arena.storage.freeze(entry.allocation.view())

    def reserve(self, key: str, frames: int) -> Allocation[B]:
        """Room for a clip not synthesized yet (``frames`` from the length
        predictor, margin included). Write through ``allocation.view()``, then
        :meth:`commit` with the true length, or :meth:`evict` to give up."""
        with self._lock:
            if key in self._entries:
                raise KeyError(f"clip {key!r} is already stored or reserved")
            allocation = self._allocate(frames)
            self._entries[key] = _Entry(allocation, committed=False)
            return allocation

    def commit(self, key: str, allocation: Allocation[B], frames: int) -> B:
        """Make a reserved clip visible with its true length; tail blocks the
        prediction over-estimated go back to the arena. Raises ValueError when
        ``frames`` is more than the reservation holds (a predictor miss: the
        caller stores the clip with :meth:`put` instead)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.allocation is not allocation or entry.committed:
                raise KeyError(f"no reservation {allocation!r} for clip {key!r}")
            allocation.shrink(frames)
            entry.committed = True
            self._entries.move_to_end(key)
            return self.arena.storage.freeze(allocation.view())

    def evict(self, key: str) -> bool:
        """Drop a clip or a reservation, pinned or not. False if absent."""
        with self._lock:
            if key not in self._entries:
                return False
            self._drop(key)
            return True

    def pin(self, key: str) -> None:
        """Keep a clip from eviction (pins nest: one unpin per pin)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                raise KeyError(f"cannot pin clip {key!r}: not stored")
            entry.pins += 1

    def unpin(self, key: str) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.pins == 0:
                raise KeyError(f"clip {key!r} is not pinned")
            entry.pins -= 1

    def pins(self, key: str) -> int:
        with self._lock:
            entry = self._entries.get(key)
            return entry.pins if entry is not None else 0

    def keys(self) -> list[str]:
        """Committed keys, least recently used first (a snapshot)."""
        with self._lock:
            return [k for k, e in self._entries.items() if e.committed]

    def __contains__(self, key: object) -> bool:
        with self._lock:
            entry = self._entries.get(key) if isinstance(key, str) else None
            return entry is not None and entry.committed

    def __len__(self) -> int:
        with self._lock:
            return sum(1 for e in self._entries.values() if e.committed)

    def stats(self) -> ClipStoreStats:
        with self._lock:
            entries = list(self._entries.values())
            return ClipStoreStats(
                arena=self.arena.stats(),
                entries=sum(1 for e in entries if e.committed),
                pinned=sum(1 for e in entries if e.pins),
                reserved=sum(1 for e in entries if not e.committed),
                hits=self.hits, misses=self.misses, evictions=self.evictions,
            )
