"""The device pool: where a clip's model output gathers on the synthesis device, and
its one copy to the host.

Why a pool on the device: ONNX Runtime writes a bound output only into a buffer of
exactly the shape the graph computes while it runs (a Piper or Kokoro graph decides
its length from the durations it predicts), so a reservation sized by the length
predictor cannot be the bound output itself (``device.ort_output_binding`` says what
ONNX Runtime answers; tests/engine/memory/test_memory_arena.py keeps it measured).
So the output is bound to the device, ONNX Runtime allocates it there, and each
clip's pieces (one per sentence; the rows of a batch belong to different clips) are
gathered, device to device, into the room reserved for the clip before its
inference; the whole clip then crosses to the host in one copy, into the room the
host pool (the clip cache's arena, which the mixer reads) reserved for it. The pool
is preallocated once, so a line costs the device no allocator call, and its use,
fragmentation and high-water mark say what synthesis takes of the device's memory.

On the CPU provider the same path runs with host memory standing in for the
device's (:class:`~engine.memory.arena.NumpyStorage`), so the suite covers it on a
machine without a GPU; on CUDA the pool is a torch tensor
(:class:`~engine.memory.device.TorchStorage`).

Threads: every public method may be called from any thread. Reservations are keyed
by clip key; the scheduler runs one synthesis per key at a time, and a second
caller with a key already reserved gathers in room of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from engine.memory.arena import Allocation, Arena, ArenaFull, ArenaStats, FloatArray

B = TypeVar("B")


@dataclass(frozen=True)
class PoolTraffic:
    """What has crossed from the pool to the host since it was made."""

    clips: int  # clips landed on the host
    host_copies: int  # device-to-host copies (one per clip with any samples)
    bytes_to_host: int
    misses: int  # reservations the predictor made too small: taken again at the true size
    overflows: int  # clips gathered outside the pool (longer than its free room)


class DevicePool(Generic[B]):
    """A preallocated arena on the synthesis device, the clip reservations in it and
    the copy of each clip to the host."""

    def __init__(self, arena: Arena[B], device: str) -> None:
        self.arena = arena
        self.device = device  # "cpu", "cuda:0": where the arena lives
        self._lock = threading.Lock()
        self._reserved: dict[str, Allocation[B]] = {}
        self._clips = self._copies = self._bytes = self._misses = self._overflows = 0

    def reserve(self, key: str, frames: int) -> bool:
        """Room for a clip of ``frames`` model samples (the length predictor's size,
        margin included), taken before its inference. False when the pool has no
        run that long free: the clip is then gathered where :meth:`land` finds room."""
        with self._lock:
            if key in self._reserved:
                return True
        try:
            allocation = self.arena.allocate(frames)
        except ArenaFull:
            return False
        with self._lock:
            if key in self._reserved:  # reserved by another thread meanwhile
                self.arena.free(allocation)
            else:
                self._reserved[key] = allocation
        return True

    def release(self, key: str) -> None:
        """Give back a reservation whose inference failed or was stopped."""
        with self._lock:
            allocation = self._reserved.pop(key, None)
        if allocation is not None:
            self.arena.free(allocation)

    def reserved(self, key: str) -> int | None:
        """The frames reserved for ``key`` (its capacity), or None."""
        with self._lock:
            allocation = self._reserved.get(key)
            return allocation.capacity if allocation is not None else None

    def land(self, key: str, pieces: Sequence[Any], host: FloatArray | None = None) -> list[FloatArray]:
        """Gather a clip's pieces (1-D model outputs on the device) in its reservation
        and copy the clip to the host once: into ``host`` when it is long enough (the
        host pool's room for the clip), else into a new array. Returns one host view
        per piece; the reservation is given back."""
        lengths = [int(piece.shape[0]) for piece in pieces]
        total = sum(lengths)
        with self._lock:
            allocation = self._reserved.pop(key, None)
        if allocation is not None and allocation.capacity < total:
            self.arena.free(allocation)  # the predictor was short: taken again, at the size now known
            allocation = None
            with self._lock:
                self._misses += 1
        storage = self.arena.storage
        buffer: Any
        if allocation is None:
            try:
                allocation = self.arena.allocate(total)
            except ArenaFull:
                with self._lock:
                    self._overflows += 1
        if allocation is not None:
            buffer, base = self.arena.buffer, allocation.offset
        else:  # longer than any free run: room of its own on the device, for this clip only
            buffer, base = storage.allocate_buffer(max(total, 1)), 0
        try:
            position = base
            for piece, length in zip(pieces, lengths, strict=True):
                if length:
                    storage.place(storage.view(buffer, position, position + length), piece)
                position += length
            out = host[:total] if host is not None and host.shape[0] >= total else np.empty(total, np.float32)
            if total:
                storage.to_host(storage.view(buffer, base, base + total), out)
        finally:
            if allocation is not None:
                self.arena.free(allocation)
        with self._lock:
            self._clips += 1
            self._copies += total > 0
            self._bytes += total * out.itemsize
        views, start = [], 0
        for length in lengths:
            views.append(out[start:start + length])
            start += length
        return views

    def stats(self) -> ArenaStats:
        return self.arena.stats()

    def traffic(self) -> PoolTraffic:
        with self._lock:
            return PoolTraffic(self._clips, self._copies, self._bytes, self._misses, self._overflows)


def on_host(audio: Any) -> FloatArray:
    """A unit's model output as the host sees it: a host array as it is (the CPU provider's
    output, a plain run's), a device tensor copied over. For what must read a unit before its
    clip lands: the unit runner's measure of each run and a live take's parts
    (engine/sched/streaming.py); those copies are not the clip's and are not counted."""
    if isinstance(audio, np.ndarray):
        return audio
    return np.asarray(audio.detach().cpu().numpy(), dtype=np.float32)
