"""A WAV writer that leaves silence as holes in the file.

Why not soundfile here: a role's stem is full length but silent wherever the
role does not speak (6/7 of each stem in the sample). libsndfile converts and
writes every frame (measured 0.2 s per stem file for the 3.8-minute sample,
1.6 s for mix + 7 stems); this writer seeks over all-zero blocks instead, so
the file system stores them as sparse holes that read back as zeros, and only
spoken audio is converted and written. Reading stays with soundfile.

Formats: 24-bit PCM and 32-bit float, little-endian RIFF/WAVE (classic
format tags 1 and 3 with a ``fact`` chunk for float, as the spec asks).
A RIFF size field holds 4 GiB (4.1 h of 24-bit stereo at 48 kHz, 3.1 h of
float stems): a file the caller says will be longer is written as RF64
(EBU Tech 3306: the same chunks, with 64-bit sizes in a ``ds64`` chunk),
chosen up front from the length so a long render never fails at its end.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

# Audio bytes a classic RIFF file may hold: its size fields are 32-bit and
# count the header too (under 100 bytes here).
RIFF_MAX_DATA = 0xFFFFFFFF - 128
_SAMPLE_BYTES = {"PCM_24": 3, "FLOAT": 4}


def needs_rf64(frames: int, channels: int, subtype: str, limit: int = RIFF_MAX_DATA) -> bool:
    """Whether ``frames`` of audio pass what a classic WAV holds (``limit`` bytes of audio)."""
    return frames * channels * _SAMPLE_BYTES[subtype] > limit


class SparseWavWriter:
    """Sequential writer: ``write((frames, channels) float32)``, then ``close()``.

    ``frames_hint`` is the length the caller will write; past ``riff_limit``
    bytes of audio the file is RF64 from the start. Without a hint, writing
    past the limit raises OSError.
    """

    def __init__(self, path: Path, rate: int, channels: int, subtype: str = "PCM_24",
                 frames_hint: int | None = None, riff_limit: int = RIFF_MAX_DATA) -> None:
        if subtype not in _SAMPLE_BYTES:
            raise ValueError(f"unsupported WAV subtype {subtype!r}")
        self.path = Path(path)
        self.rate = rate
        self.channels = channels
        self.subtype = subtype
        self.sample_bytes = _SAMPLE_BYTES[subtype]
        self.riff_limit = riff_limit
        self.rf64 = frames_hint is not None and needs_rf64(frames_hint, channels, subtype, riff_limit)
        self.frames = 0
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed in close()
        self._header_size = 0
        self._write_header()
        self._dirty_end = True

    def _write_header(self) -> None:
        block_align = self.channels * self.sample_bytes
        data_bytes = self.frames * block_align
        fmt_tag = 1 if self.subtype == "PCM_24" else 3
        fmt = struct.pack("<HHIIHH", fmt_tag, self.channels, self.rate, self.rate * block_align,
                          block_align, self.sample_bytes * 8)
        chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt
        if self.rf64:
            if fmt_tag == 3:
                chunks += b"fact" + struct.pack("<II", 4, 0xFFFFFFFF)
            # ds64 (28 bytes): RIFF size, data size, sample count, no table.
            ds64_size = 4 + 8 + 28 + len(chunks) + 8
            ds64 = b"ds64" + struct.pack("<IQQQI", 28, ds64_size + data_bytes, data_bytes, self.frames, 0)
            riff = b"RF64" + struct.pack("<I", 0xFFFFFFFF) + b"WAVE" + ds64 + chunks + b"data" \
                + struct.pack("<I", 0xFFFFFFFF)
        else:
            if fmt_tag == 3:
                chunks += b"fact" + struct.pack("<II", 4, self.frames & 0xFFFFFFFF)
            header = b"WAVE" + chunks + b"data" + struct.pack("<I", data_bytes)
            riff = b"RIFF" + struct.pack("<I", len(header) + data_bytes) + header
        self._file.seek(0)
        self._file.write(riff)
        self._header_size = len(riff)

    def write(self, block: np.ndarray) -> None:
        offset = self._advance(block.shape[0])
        if not block.any():
            self._dirty_end = False
            return  # a hole: the bytes read back as zeros
        self._file.seek(offset)
        self._file.write(self._encode(block))
        self._dirty_end = True

    def write_silence(self, frames: int) -> None:
        """``frames`` of silence (what ``write`` of that many zeros writes: a hole),
        for a caller that knows its block is silent without making it."""
        self._advance(frames)
        self._dirty_end = False

    def _advance(self, frames: int) -> int:
        """Count ``frames`` more; returns the file offset they start at."""
        if not self.rf64 and needs_rf64(self.frames + frames, self.channels, self.subtype, self.riff_limit):
            raise OSError(f"{self.path}: a WAV file holds at most 4 GiB of audio (RF64 is chosen up front "
                          f"from the length the writer is told)")
        offset = self._header_size + self.frames * self.channels * self.sample_bytes
        self.frames += frames
        return offset

    def _encode(self, block: np.ndarray) -> bytes:
        if self.subtype == "FLOAT":
            return np.ascontiguousarray(block, dtype="<f4").tobytes()
        return _pcm24(block).astype("<i4").view(np.uint8).reshape(-1, 4)[:, :3].tobytes()

    def decoded(self, block: np.ndarray) -> np.ndarray:
        """``block`` as reading this file back gives it (soundfile, float32):
        24-bit samples are integers over 2**23, exact in float32, as libsndfile
        scales them. The export measures what it writes without reading it again."""
        if self.subtype == "FLOAT":
            return np.array(block, dtype=np.float32)
        return (_pcm24(block).astype(np.float32) * np.float32(1.0 / 8388608.0)).reshape(block.shape)

    def close(self) -> None:
        if self._file.closed:
            return
        end = self._header_size + self.frames * self.channels * self.sample_bytes
        if not self._dirty_end:
            self._file.truncate(end)  # extend the file over a trailing hole
        self._write_header()
        self._file.close()

    def __enter__(self) -> SparseWavWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pcm24(block: np.ndarray) -> np.ndarray:
    """24-bit sample values (integers in floats), rounded and clipped. A float32
    block stays float32 (half the memory traffic), as exact as float64: scaling
    by 2**23 is exact, both bounds are representable, and rounding an exact
    value gives the same integer."""
    dtype = np.float32 if block.dtype == np.float32 else np.float64
    scaled: np.ndarray = np.multiply(block, 8388608.0, dtype=dtype)
    np.clip(scaled, -8388608.0, 8388607.0, out=scaled)
    np.rint(scaled, out=scaled)
    return scaled
