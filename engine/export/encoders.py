"""Delivered audio files: WAV/BWF, FLAC, MP3 and M4B, with their tags and
chapters, and the decoder the compliance report measures them with.

Measured and chosen (60 s of stereo at 44.1 kHz, 192 kbps):
- MP3 and M4B go through PyAV (FFmpeg's libmp3lame and native AAC encoder,
  no program needs to be installed). lameenc was faster (2.4 s against 4.8 s
  on this machine) but writes no LAME/Info header: decoders then keep the
  encoder's 1105 frames of delay, so every chapter and cue would land 25 ms
  late, and nothing in the file says it is constant-bitrate. PyAV's MP3
  decodes to exactly the frames written and carries the ID3v2 chapter
  frames (CHAP/CTOC) and the M4B chapter track from one ``set_chapters``.
- mutagen adds what the muxers do not (cover art) and reads each file's
  stream facts back (bitrate and its mode) for the report.
- WAV and FLAC through soundfile; the BWF ``bext`` chunk (EBU Tech 3285 v2:
  description, originator, origination date and time, time reference and
  the measured loudness) is written here, since libsndfile's broadcast-info
  call is not reachable from soundfile.
"""

from __future__ import annotations

import datetime as dt
import struct
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from engine.export.presets import DeliveryPreset

ORIGINATOR = "Radioplay"
_ENCODE_FRAMES = 1152 * 32  # frames handed to the encoder at a time (any multiple works)


@dataclass(frozen=True)
class Mark:
    """A chapter: its title and where it starts and ends in the file, seconds."""

    title: str
    start: float
    end: float


@dataclass
class Tags:
    title: str = ""
    author: str = ""
    album: str = ""
    comment: str = ""
    cover: bytes | None = None  # JPEG or PNG
    chapters: list[Mark] = field(default_factory=list)
    # BWF only: loudness of the file (EBU Tech 3285 v2 fields), when known.
    loudness: dict[str, float] = field(default_factory=dict)


def write_audio(path: Path, audio: np.ndarray, rate: int, preset: DeliveryPreset, tags: Tags) -> None:
    """Write ``audio`` ((frames, channels) float32, already levelled) as the
    preset's container at ``rate``."""
    path = Path(path)
    if preset.container in ("wav", "bwf"):
        _write_wav(path, audio, rate, preset.bit_depth, tags if preset.container == "bwf" else None)
    elif preset.container == "flac":
        _write_flac(path, audio, rate, preset.bit_depth, tags)
    elif preset.container == "mp3":
        _encode(path, audio, rate, "mp3", "libmp3lame", preset, tags)
    else:
        _encode(path, audio, rate, "ipod", "aac", preset, tags)
        if tags.cover:
            _mp4_cover(path, tags.cover)
    if preset.container == "mp3" and tags.cover:
        _id3_cover(path, tags.cover)


def decode(path: Path) -> tuple[np.ndarray, int]:
    """The file as a listener's player decodes it: (frames, channels) float32."""
    if Path(path).suffix.lower() in (".wav", ".flac"):
        audio, rate = sf.read(path, dtype="float32", always_2d=True)
        return audio, int(rate)
    import av

    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        rate = int(stream.rate)
        parts = [frame.to_ndarray() for frame in container.decode(stream)]
    if not parts:
        return np.zeros((0, 2), dtype=np.float32), rate
    # Planar float frames, (channels, frames) each.
    return np.ascontiguousarray(np.concatenate(parts, axis=1).T, dtype=np.float32), rate


@dataclass(frozen=True)
class StreamInfo:
    sample_rate: int
    channels: int
    bitrate_kbps: float = 0.0  # lossy only
    bitrate_mode: str = ""  # "CBR", "VBR", "ABR" or "" where unknown
    bit_depth: int = 0  # PCM only (32 = float)
    chapters: int = 0


def stream_info(path: Path) -> StreamInfo:
    """What the written file says about itself (not what was asked for)."""
    suffix = Path(path).suffix.lower()
    if suffix in (".wav", ".flac"):
        info = sf.info(path)
        depth = {"PCM_16": 16, "PCM_24": 24, "PCM_32": 32, "FLOAT": 32}.get(info.subtype, 0)
        return StreamInfo(int(info.samplerate), int(info.channels), bit_depth=depth)
    import mutagen

    media: Any = mutagen.File(path)
    if media is None:
        raise ValueError(f"{path}: not an audio file mutagen can read")
    mode = str(getattr(media.info, "bitrate_mode", "")).rsplit(".", 1)[-1]  # mutagen's BitrateMode.CBR
    chapters = getattr(media, "chapters", None)
    if suffix == ".mp3":
        chapters = [k for k in (media.tags or {}) if str(k).startswith("CHAP:")]
    return StreamInfo(int(media.info.sample_rate), int(media.info.channels),
                      bitrate_kbps=round(media.info.bitrate / 1000, 1),
                      bitrate_mode=mode if mode in ("CBR", "VBR", "ABR") else "",
                      chapters=len(chapters or []))


def _encode(path: Path, audio: np.ndarray, rate: int, muxer: str, codec: str,
            preset: DeliveryPreset, tags: Tags) -> None:
    import av

    layout = "stereo" if audio.shape[1] == 2 else "mono"
    with av.open(str(path), "w", format=muxer) as out:
        for key, value in (("title", tags.title), ("artist", tags.author), ("album", tags.album or tags.title),
                           ("comment", tags.comment)):
            if value:
                out.metadata[key] = value
        stream: Any = out.add_stream(codec, rate=rate, layout=layout)
        if preset.vbr and codec == "libmp3lame":
            # LAME's VBR quality scale (V0 best .. V9), set through FFmpeg's qscale.
            stream.codec_context.flags |= av.codec.context.Flags.qscale
            stream.codec_context.global_quality = int(_vbr_quality(preset.bitrate_kbps) * 118)  # FF_QP2LAMBDA
        else:
            stream.bit_rate = preset.bitrate_kbps * 1000
        if tags.chapters:
            out.set_chapters([{"id": i, "start": int(round(m.start * 1000)), "end": int(round(m.end * 1000)),
                               "time_base": Fraction(1, 1000), "metadata": {"title": chapter_title(m.title)}}
                              for i, m in enumerate(tags.chapters)])
        step = _ENCODE_FRAMES
        for i in range(0, audio.shape[0], step):
            planar = np.ascontiguousarray(audio[i:i + step].T, dtype=np.float32)
            frame = av.AudioFrame.from_ndarray(planar, format="fltp", layout=layout)
            frame.sample_rate = rate
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)


def _vbr_quality(kbps: int) -> int:
    """LAME's -V preset nearest to an average bitrate (V0 ~245 .. V9 ~65 kbps)."""
    table = [245, 225, 190, 175, 165, 130, 115, 100, 85, 65]
    return int(np.argmin([abs(kbps - b) for b in table])) if kbps else 2


def _id3_cover(path: Path, cover: bytes) -> None:
    from mutagen.id3 import APIC, ID3

    tags: Any = ID3(path)  # type: ignore[no-untyped-call]
    picture = APIC(encoding=3, mime=_mime(cover), type=3, desc="Cover", data=cover)  # type: ignore[no-untyped-call]
    tags.add(picture)
    tags.save(path)


def _mp4_cover(path: Path, cover: bytes) -> None:
    from mutagen.mp4 import MP4, MP4Cover

    media: Any = MP4(path)  # type: ignore[no-untyped-call]
    kind = MP4Cover.FORMAT_PNG if _mime(cover) == "image/png" else MP4Cover.FORMAT_JPEG
    media.tags["covr"] = [MP4Cover(cover, imageformat=kind)]  # type: ignore[no-untyped-call]
    media.save()


def _mime(image: bytes) -> str:
    return "image/png" if image.startswith(b"\x89PNG") else "image/jpeg"


def _write_flac(path: Path, audio: np.ndarray, rate: int, depth: int, tags: Tags) -> None:
    with sf.SoundFile(path, "w", rate, audio.shape[1], f"PCM_{depth}", format="FLAC") as f:
        if tags.title:
            f.title = tags.title
        if tags.author:
            f.artist = tags.author
        f.write(audio)


def _pcm_bytes(audio: np.ndarray, depth: int) -> bytes:
    if depth == 32:
        return np.ascontiguousarray(audio, dtype="<f4").tobytes()
    full = float(2 ** (depth - 1))
    ints = np.clip(np.round(audio.astype(np.float64) * full), -full, full - 1).astype("<i4")
    if depth == 16:
        return ints.astype("<i2").tobytes()
    return ints.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()  # little-endian: drop the top byte


def _write_wav(path: Path, audio: np.ndarray, rate: int, depth: int, bext: Tags | None) -> None:
    channels = audio.shape[1]
    data = _pcm_bytes(audio, depth)
    if len(data) > 0xFFFFFFFF - 4096:
        raise ValueError(f"{path.name}: {len(data) / 2**30:.1f} GiB of audio is past what a WAV file holds; "
                         "use the custom preset (RF64) or FLAC")
    block = channels * (depth // 8)
    fmt = struct.pack("<HHIIHH", 3 if depth == 32 else 1, channels, rate, rate * block, block, depth)
    chunks = [(b"fmt ", fmt)]
    if depth == 32:
        chunks.append((b"fact", struct.pack("<I", audio.shape[0])))
    if bext is not None:
        chunks.append((b"bext", bext_chunk(bext)))
    body = b"".join(_chunk(tag, payload) for tag, payload in chunks)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + len(body) + 8 + len(data) + len(data) % 2) + b"WAVE")
        f.write(body)
        f.write(b"data" + struct.pack("<I", len(data)))
        f.write(data)
        if len(data) % 2:
            f.write(b"\0")


def _chunk(tag: bytes, payload: bytes) -> bytes:
    return tag + struct.pack("<I", len(payload)) + payload + (b"\0" if len(payload) % 2 else b"")


def bext_chunk(tags: Tags, when: dt.datetime | None = None, time_reference: int = 0) -> bytes:
    """The ``bext`` payload, version 2 (loudness fields in 1/100 LU or dB,
    0x7FFF where not measured)."""
    when = when or dt.datetime.now()

    def text(value: str, size: int) -> bytes:
        return value.encode("ascii", "replace")[:size].ljust(size, b"\0")

    def hundredths(key: str) -> int:
        value = tags.loudness.get(key)
        return 0x7FFF if value is None or not np.isfinite(value) else int(round(value * 100))

    loudness = [hundredths(k) for k in ("integrated", "range", "true_peak", "max_momentary", "max_short_term")]
    history = b"A=PCM,T=Radioplay\r\n"
    return (text(tags.comment or tags.title, 256) + text(ORIGINATOR, 32) + text(tags.title, 32)
            + text(when.strftime("%Y-%m-%d"), 10) + text(when.strftime("%H:%M:%S"), 8)
            + struct.pack("<IIH", time_reference & 0xFFFFFFFF, time_reference >> 32, 2) + b"\0" * 64
            + struct.pack("<5h", *loudness) + b"\0" * 180 + history)


def read_bext(path: Path) -> dict[str, Any]:
    """The ``bext`` fields of a WAV file (empty when it has none), for the
    tests and for anyone checking a delivery."""
    with open(path, "rb") as f:
        head = f.read(12)
        if head[:4] != b"RIFF" or head[8:] != b"WAVE":
            return {}
        while chunk := f.read(8):
            tag, size = chunk[:4], struct.unpack("<I", chunk[4:])[0]
            if tag != b"bext":
                f.seek(size + size % 2, 1)
                continue
            raw = f.read(size)
            low, high, version = struct.unpack("<IIH", raw[338:348])
            loud = struct.unpack("<5h", raw[412:422])

            def clean(b: bytes) -> str:
                return b.split(b"\0", 1)[0].decode("ascii", "replace")

            return {"description": clean(raw[:256]), "originator": clean(raw[256:288]),
                    "originator_reference": clean(raw[288:320]), "origination_date": clean(raw[320:330]),
                    "origination_time": clean(raw[330:338]), "time_reference": low | (high << 32),
                    "version": version, "loudness_value": loud[0] / 100, "coding_history": clean(raw[602:])}
    return {}


# FFmpeg's MP4 muxer keeps 255 bytes of a chapter title (the Nero ``chpl`` atom's
# length is one byte) and cuts wherever that falls, inside a UTF-8 character too,
# which readers (mutagen) then refuse: titles are cut here, on a character.
MAX_CHAPTER_TITLE_BYTES = 255


def chapter_title(title: str) -> str:
    """A chapter title on one line, at most MAX_CHAPTER_TITLE_BYTES of UTF-8, cut between characters."""
    text = " ".join("".join(" " if unicodedata.category(c)[0] == "C" else c for c in title).split())
    encoded = text.encode("utf-8")[:MAX_CHAPTER_TITLE_BYTES]
    return encoded.decode("utf-8", errors="ignore").rstrip()


def chapter_marks(titles: Sequence[str], starts: Sequence[float], length: float) -> list[Mark]:
    """Chapters that tile the file: each runs to the next one's start."""
    ends = [*starts[1:], length]
    return [Mark(chapter_title(t), s, e) for t, s, e in zip(titles, starts, ends, strict=True)]
