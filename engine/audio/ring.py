"""The ring buffer between the live mixer thread and the output sink.

The frames live in one preallocated numpy array. With PortAudio present the
array is also the storage of a PortAudio ring buffer (``rtmixer.RingBuffer``
built over the same memory), whose indices rtmixer's C callback advances:
the mixer thread writes straight into the ring's memory through numpy views
of its write regions and the device reads it without the GIL. Without
PortAudio (a headless machine with the null sink) the indices are plain
Python integers with the same single-reader, single-writer contract.

Reading and writing never allocate: regions are (offset, length) pairs into
the preallocated array; views of it are made by the caller.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from engine.audio.portaudio import load_rtmixer

CHANNELS = 2
FRAME_BYTES = CHANNELS * 4  # float32 stereo


class _Indices(Protocol):
    def write_available(self) -> int: ...
    def read_available(self) -> int: ...
    def write_position(self) -> int: ...
    def read_position(self) -> int: ...
    def advance_write(self, n: int) -> None: ...
    def advance_read(self, n: int) -> None: ...


class _PortAudioIndices:
    """Indices of a PaUtilRingBuffer over our array (lock-free, with barriers)."""

    def __init__(self, data: np.ndarray, rtmixer: Any) -> None:
        self.ring = rtmixer.RingBuffer(FRAME_BYTES, buffer=data)
        self._ptr = self.ring._ptr
        self._lib = self.ring._lib
        self._size = int(data.shape[0])

    def write_available(self) -> int:
        return int(self._lib.PaUtil_GetRingBufferWriteAvailable(self._ptr))

    def read_available(self) -> int:
        return int(self._lib.PaUtil_GetRingBufferReadAvailable(self._ptr))

    def write_position(self) -> int:
        return int(self._ptr.writeIndex) & (self._size - 1)

    def read_position(self) -> int:
        return int(self._ptr.readIndex) & (self._size - 1)

    def advance_write(self, n: int) -> None:
        self._lib.PaUtil_AdvanceRingBufferWriteIndex(self._ptr, n)

    def advance_read(self, n: int) -> None:
        self._lib.PaUtil_AdvanceRingBufferReadIndex(self._ptr, n)


class _PythonIndices:
    """Monotonic counters; one writer thread and one reader thread, each
    updating only its own counter (an int assignment is atomic under the GIL)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._written = 0
        self._read = 0

    def write_available(self) -> int:
        return self._size - (self._written - self._read)

    def read_available(self) -> int:
        return self._written - self._read

    def write_position(self) -> int:
        return self._written % self._size

    def read_position(self) -> int:
        return self._read % self._size

    def advance_write(self, n: int) -> None:
        self._written += n

    def advance_read(self, n: int) -> None:
        self._read += n


class FrameRing:
    """Single-producer, single-consumer ring of float32 stereo frames."""

    def __init__(self, frames: int, use_portaudio: bool = True) -> None:
        if frames < 2 or frames & (frames - 1):
            raise ValueError(f"ring size {frames} frames: must be a power of two")
        self.frames = frames
        self.data = np.zeros((frames, CHANNELS), dtype=np.float32)
        rtmixer = load_rtmixer() if use_portaudio else None
        self._indices: _Indices = (_PortAudioIndices(self.data, rtmixer) if rtmixer is not None
                                   else _PythonIndices(frames))

    @property
    def portaudio_ring(self) -> Any:
        """The rtmixer.RingBuffer over this ring's memory (None without PortAudio)."""
        return getattr(self._indices, "ring", None)

    def write_available(self) -> int:
        return self._indices.write_available()

    def read_available(self) -> int:
        return self._indices.read_available()

    def write_regions(self, n: int) -> tuple[int, int, int]:
        """Up to ``n`` writable frames as (offset, first length, second length):
        ``data[offset:offset+first]`` then ``data[:second]`` (after the wrap)."""
        n = min(n, self._indices.write_available())
        offset = self._indices.write_position()
        first = min(n, self.frames - offset)
        return offset, first, n - first

    def commit_write(self, n: int) -> None:
        """Publish ``n`` frames written into the regions to the reader."""
        self._indices.advance_write(n)

    def read_regions(self, n: int) -> tuple[int, int, int]:
        n = min(n, self._indices.read_available())
        offset = self._indices.read_position()
        first = min(n, self.frames - offset)
        return offset, first, n - first

    def commit_read(self, n: int) -> None:
        self._indices.advance_read(n)
