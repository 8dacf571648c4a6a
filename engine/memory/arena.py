"""A block allocator over one preallocated 1-D float32 buffer.

Why: clips are short-lived and of many sizes. Carving them out of one buffer
in fixed blocks (100 ms at 48 kHz by default) keeps the process heap, or the
GPU's memory, from fragmenting, and makes an allocation a few dict and list
operations under one lock instead of a call into numpy's or torch's
allocator. The same logic serves host memory (numpy) and device memory
(torch CUDA tensors, see :mod:`engine.memory.device`): only the
:class:`Storage` differs.

Free space is kept as runs of contiguous blocks, indexed three ways: by start
and by end (to coalesce neighbours in O(1) on free) and in a list sorted by
(length, start) (best fit by bisection; insertion is O(runs), which is small).

Threads: every public method of :class:`Arena` may be called from any thread.
An :class:`Allocation` belongs to whoever allocated it; its memory may be
read and written without the lock (no one else is handed the same blocks).
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, overload

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
BYTES_PER_FRAME = 4  # float32 mono
DEFAULT_BLOCK_FRAMES = 4800  # 100 ms at 48 kHz

B = TypeVar("B")


class Storage(Protocol[B]):
    """Where an arena's buffer lives. Called only at construction
    (``allocate_buffer``) and to make views; never to allocate afterwards."""

    def allocate_buffer(self, frames: int) -> B:
        """One 1-D float32 buffer of ``frames`` elements (contents undefined)."""
        ...

    def view(self, buffer: B, start: int, stop: int) -> B:
        """A view (not a copy) of ``buffer[start:stop]``."""
        ...

    def write(self, view: B, source: FloatArray) -> None:
        """Copy host audio into a view of the same length."""
        ...

    def place(self, view: B, piece: object) -> None:
        """Copy a model output already in this storage's memory (a view of ONNX Runtime's
        output on the same device) into a view of the same length: device to device."""
        ...

    def to_host(self, view: B, out: FloatArray) -> None:
        """Copy a view into host memory of the same length: the one device-to-host copy."""
        ...

    def freeze(self, view: B) -> B:
        """The view as handed to readers: read-only where the storage can say so."""
        ...


class NumpyStorage:
    """Host memory: a plain numpy array."""

    def allocate_buffer(self, frames: int) -> FloatArray:
        return np.zeros(frames, dtype=np.float32)  # zeros: touch the pages once, up front

    def view(self, buffer: FloatArray, start: int, stop: int) -> FloatArray:
        return buffer[start:stop]

    def write(self, view: FloatArray, source: FloatArray) -> None:
        view[...] = source

    def place(self, view: FloatArray, piece: object) -> None:
        view[...] = np.asarray(piece)  # the CPU provider's output: a numpy view already

    def to_host(self, view: FloatArray, out: FloatArray) -> None:
        out[...] = view

    def freeze(self, view: FloatArray) -> FloatArray:
        frozen = view.view()  # a new view object: the arena's own stays writable
        frozen.flags.writeable = False
        return frozen


class ArenaFull(MemoryError):
    """No free run of blocks is long enough. ``requested`` and ``largest_free``
    are in frames, so a caller can decide whether evicting could help."""

    def __init__(self, requested: int, largest_free: int, detail: str = "") -> None:
        self.requested = requested
        self.largest_free = largest_free
        message = (f"arena full: {requested} frames requested, the largest free run is "
                   f"{largest_free} frames")
        super().__init__(message + (f" ({detail})" if detail else ""))


class InvalidFree(ValueError):
    """An allocation freed twice, or freed into an arena that did not make it."""


@dataclass(frozen=True)
class ArenaStats:
    total_bytes: int
    used_bytes: int  # whole blocks handed out
    free_bytes: int
    largest_free_bytes: int
    fragmentation: float  # 1 - largest_free / free; 0.0 when nothing is free
    allocations: int
    requested_bytes: int  # what the allocations asked for (<= used: block rounding)
    high_water_bytes: int = 0  # the most ``used_bytes`` has been since the arena was made


class Allocation(Generic[B]):
    """A run of blocks. ``frames`` is what was asked for; ``capacity`` what the
    blocks hold. Mutable fields change only under the arena's lock."""

    __slots__ = ("_arena", "block", "blocks", "frames", "_live")

    def __init__(self, arena: Arena[B], block: int, blocks: int, frames: int) -> None:
        self._arena = arena
        self.block = block
        self.blocks = blocks
        self.frames = frames
        self._live = True

    @property
    def offset(self) -> int:
        return self.block * self._arena.block_frames

    @property
    def capacity(self) -> int:
        return self.blocks * self._arena.block_frames

    @property
    def live(self) -> bool:
        return self._live

    @property
    def arena(self) -> Arena[B]:
        return self._arena

    def view(self) -> B:
        """Exactly ``frames`` frames of the arena's buffer. Valid until freed:
        after that the blocks belong to someone else."""
        if not self._live:
            raise InvalidFree("view of a freed allocation")
        start = self.offset
        return self._arena.storage.view(self._arena.buffer, start, start + self.frames)

    def shrink(self, frames: int) -> int:
        """Set the length to ``frames`` (at most ``capacity``) and give whole
        unused tail blocks back. Returns the frames released."""
        return self._arena._shrink(self, frames)

    def __repr__(self) -> str:
        state = "" if self._live else ", freed"
        return f"Allocation(offset={self.offset}, frames={self.frames}, capacity={self.capacity}{state})"


class Arena(Generic[B]):
    """Thread-safe block allocator over one buffer from ``storage``."""

    @overload
    def __init__(self: Arena[FloatArray], capacity_frames: int,
                 block_frames: int = DEFAULT_BLOCK_FRAMES, storage: None = None) -> None: ...

    @overload
    def __init__(self, capacity_frames: int, block_frames: int = DEFAULT_BLOCK_FRAMES, *,
                 storage: Storage[B]) -> None: ...

    def __init__(self, capacity_frames: int, block_frames: int = DEFAULT_BLOCK_FRAMES,
                 storage: Storage[B] | Storage[FloatArray] | None = None) -> None:
        if block_frames <= 0:
            raise ValueError(f"block_frames must be positive, got {block_frames}")
        if capacity_frames < block_frames:
            raise ValueError(f"capacity_frames ({capacity_frames}) is less than one block ({block_frames})")
        self.block_frames = block_frames
        self.total_blocks = capacity_frames // block_frames  # a partial tail block is not kept
        self.capacity_frames = self.total_blocks * block_frames
        self.storage: Storage[B] = storage if storage is not None else NumpyStorage()  # type: ignore[assignment]
        self.buffer: B = self.storage.allocate_buffer(self.capacity_frames)
        self._lock = threading.Lock()
        self._by_start: dict[int, int] = {0: self.total_blocks}  # free run start -> length
        self._by_end: dict[int, int] = {self.total_blocks: 0}  # free run end (exclusive) -> start
        self._runs: list[tuple[int, int]] = [(self.total_blocks, 0)]  # sorted (length, start)
        self._live: dict[int, Allocation[B]] = {}  # first block -> allocation
        self._used_blocks = 0
        self._high_water_blocks = 0
        self._requested_frames = 0

    def blocks_for(self, frames: int) -> int:
        """Blocks a request of ``frames`` takes (an empty clip still takes one)."""
        if frames < 0:
            raise ValueError(f"cannot allocate {frames} frames")
        return max(1, -(-frames // self.block_frames))

    # -- free-run index (callers hold the lock) --------------------------------

    def _add_run(self, start: int, length: int) -> None:
        self._by_start[start] = length
        self._by_end[start + length] = start
        bisect.insort(self._runs, (length, start))

    def _remove_run(self, start: int, length: int) -> None:
        del self._by_start[start]
        del self._by_end[start + length]
        i = bisect.bisect_left(self._runs, (length, start))
        del self._runs[i]

    def _release(self, start: int, length: int) -> None:
        """Return blocks to the free runs, coalescing with both neighbours."""
        left = self._by_end.get(start)
        if left is not None:
            self._remove_run(left, start - left)
            length += start - left
            start = left
        right_length = self._by_start.get(start + length)
        if right_length is not None:
            self._remove_run(start + length, right_length)
            length += right_length
        self._add_run(start, length)

    # -- public ---------------------------------------------------------------

    def allocate(self, frames: int) -> Allocation[B]:
        """Best fit: the shortest free run that holds ``frames`` (the lowest
        one among equals), taken from its start. Raises :class:`ArenaFull`."""
        need = self.blocks_for(frames)
        with self._lock:
            i = bisect.bisect_left(self._runs, (need, -1))
            if i == len(self._runs):
                largest = self._runs[-1][0] if self._runs else 0
                free = self.total_blocks - self._used_blocks
                raise ArenaFull(frames, largest * self.block_frames,
                                f"{free * self.block_frames} frames free in {len(self._runs)} runs")
            length, start = self._runs[i]
            self._remove_run(start, length)
            if length > need:
                self._add_run(start + need, length - need)
            allocation = Allocation(self, start, need, frames)
            self._live[start] = allocation
            self._used_blocks += need
            self._high_water_blocks = max(self._high_water_blocks, self._used_blocks)
            self._requested_frames += frames
            return allocation

    def free(self, allocation: Allocation[B]) -> None:
        with self._lock:
            if allocation._arena is not self or self._live.get(allocation.block) is not allocation:
                raise InvalidFree(f"{allocation!r} is not live in this arena (double free?)")
            del self._live[allocation.block]
            allocation._live = False
            self._used_blocks -= allocation.blocks
            self._requested_frames -= allocation.frames
            self._release(allocation.block, allocation.blocks)

    def _shrink(self, allocation: Allocation[B], frames: int) -> int:
        if frames < 0 or frames > allocation.capacity:
            raise ValueError(f"cannot resize {allocation!r} to {frames} frames (0..capacity)")
        need = self.blocks_for(frames)
        with self._lock:
            if self._live.get(allocation.block) is not allocation:
                raise InvalidFree(f"shrink of {allocation!r}, which is not live")
            spare = allocation.blocks - need
            self._requested_frames += frames - allocation.frames
            allocation.frames = frames
            if spare:
                allocation.blocks = need
                self._used_blocks -= spare
                self._release(allocation.block + need, spare)
            return spare * self.block_frames

    def stats(self) -> ArenaStats:
        with self._lock:
            free = self.total_blocks - self._used_blocks
            largest = self._runs[-1][0] if self._runs else 0
            unit = self.block_frames * BYTES_PER_FRAME
            return ArenaStats(
                total_bytes=self.total_blocks * unit,
                used_bytes=self._used_blocks * unit,
                free_bytes=free * unit,
                largest_free_bytes=largest * unit,
                fragmentation=(1.0 - largest / free) if free else 0.0,
                allocations=len(self._live),
                requested_bytes=self._requested_frames * BYTES_PER_FRAME,
                high_water_bytes=self._high_water_blocks * unit,
            )

    def allocations(self) -> list[Allocation[B]]:
        """The live allocations, by offset (a snapshot)."""
        with self._lock:
            return [self._live[k] for k in sorted(self._live)]

    def check_invariants(self) -> None:
        """Raise AssertionError if the bookkeeping is inconsistent (for tests)."""
        with self._lock:
            spans = sorted([(a.block, a.blocks, "used") for a in self._live.values()]
                           + [(s, n, "free") for s, n in self._by_start.items()])
            position, previous = 0, ""
            for start, length, kind in spans:
                assert start == position, f"gap or overlap at block {position} (next span at {start})"
                assert length > 0, f"empty span at block {start}"
                assert not (kind == previous == "free"), f"uncoalesced free runs at block {start}"
                position, previous = start + length, kind
            assert position == self.total_blocks, "spans do not cover the arena"
            assert sorted((n, s) for s, n in self._by_start.items()) == self._runs, "run index out of sync"
            assert {s + n: s for s, n in self._by_start.items()} == self._by_end, "end index out of sync"
            assert sum(a.blocks for a in self._live.values()) == self._used_blocks, "used count out of sync"
