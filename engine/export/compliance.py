"""The compliance report: every requirement of the preset against what the
written files measure.

Measured on the files as written and decoded (an MP3 as a player decodes
it), never predicted from the mix: an encoder's overshoot or a resampler's
ripple shows up here. Each file is read in blocks (memory stays flat with
its length): BS.1770 integrated loudness and loudness range (EBU Tech 3342),
4x-oversampled true peak, sample peak, RMS (what ACX measures: unweighted,
over every sample of every channel), the room tone at head and tail (up to
the first and from the last 10 ms window above -50 dBFS) and its noise
floor (the RMS of that room tone), and what the file says about itself
(sample rate, bit depth, bitrate and its mode, chapters).
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from engine.audio.loudness import HopPower, gated_loudness
from engine.export.encoders import stream_info
from engine.export.presets import DeliveryPreset

REPORT_FILE = "report.json"
SPEECH_DB = -50.0  # a 10 ms window above this is programme, not room tone
_WINDOW_S = 0.01
_EDGE_S = 0.05  # room tone measured this far from the programme (the release of a word)


@dataclass
class Measurement:
    file: str
    duration_s: float = 0.0
    sample_rate: int = 0
    channels: int = 0
    bit_depth: int = 0
    bitrate_kbps: float = 0.0
    bitrate_mode: str = ""
    chapters: int = 0
    integrated_lufs: float = -math.inf
    loudness_range_lu: float = 0.0
    true_peak_dbtp: float = -math.inf
    sample_peak_dbfs: float = -math.inf
    rms_dbfs: float = -math.inf
    head_room_tone_s: float = 0.0
    tail_room_tone_s: float = 0.0
    noise_floor_db: float = -math.inf
    nonfinite_samples: int = 0  # NaN or infinite samples the file was made from (a PCM cast hides them)


@dataclass
class Requirement:
    file: str
    requirement: str
    key: str  # the Measurement field
    limit: str
    measured: float | str
    unit: str
    passed: bool


@dataclass
class LimiterWork:
    """What a limiter did to reach the report's numbers: the master's (the
    programme's true-peak limiter, after the dialogue leveller), or a
    delivered file's levelling (its gain, then its limiter)."""

    stage: str  # "master", or the delivered file
    gain_db: float  # the gain before the limiter: the master gain, or the file's levelling gain
    max_reduction_db: float  # deepest gain reduction at any moment
    time_above_1db_s: float  # how long it took more than 1 dB off

    def __post_init__(self) -> None:
        self.max_reduction_db = max(0.0, self.max_reduction_db) + 0.0  # a limiter that did nothing: 0, not -0

    def describe(self) -> str:
        what = "master limiter" if self.stage == "master" else f"{self.stage} levelled"
        return (f"{what}: gain {self.gain_db:+.1f} dB, at most {self.max_reduction_db:.1f} dB of limiting, "
                f"{self.time_above_1db_s:.1f} s over 1 dB")


@dataclass
class ComplianceReport:
    preset: DeliveryPreset
    files: list[Measurement] = field(default_factory=list)
    requirements: list[Requirement] = field(default_factory=list)
    levelling: list[LimiterWork] = field(default_factory=list)  # what was done to reach the levels

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.requirements)

    def failures(self) -> str:
        """What failed, on one line: "mix.wav integrated loudness -9.2 LUFS (limit -4..-2)"."""
        parts = []
        for r in self.requirements:
            if not r.passed:
                value = r.measured if isinstance(r.measured, str) else _fmt(r.measured)
                parts.append(f"{r.file} {r.requirement} {value} {r.unit}".rstrip() + f" (limit {r.limit})")
        return "; ".join(parts)

    def to_json(self) -> str:
        def finite(value: Any) -> Any:
            if isinstance(value, float) and not math.isfinite(value):
                return None  # JSON has no infinity: silence measures as null
            return round(value, 3) if isinstance(value, float) else value

        data = {
            "preset": self.preset.name,
            "spec": {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self.preset).items()},
            "passed": self.passed,
            "requirements": [{k: finite(v) for k, v in asdict(r).items()} for r in self.requirements],
            "files": [{k: finite(v) for k, v in asdict(m).items()} for m in self.files],
            "levelling": [{k: finite(v) for k, v in asdict(w).items()} for w in self.levelling],
        }
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    def table(self) -> str:
        """The report as a plain-text table (terminal and studio)."""
        rows = [("file", "requirement", "limit", "measured", "")]
        for r in self.requirements:
            value = r.measured if isinstance(r.measured, str) else _fmt(r.measured)
            rows.append((r.file, r.requirement, r.limit, f"{value} {r.unit}".strip(), "pass" if r.passed else "FAIL"))
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
        failed = sum(not r.passed for r in self.requirements)
        verdict = (f"Preset {self.preset.name}: every requirement passes" if not failed
                   else f"Preset {self.preset.name}: {failed} of {len(self.requirements)} requirements FAIL")
        done = [w.describe() for w in self.levelling]
        return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:], *done, verdict])


def _fmt(value: float) -> str:
    if isinstance(value, int):
        return str(value)
    return "-inf" if value == -math.inf else f"{value:.2f}"


def _db(power: float) -> float:
    return 10 * math.log10(power) if power > 0 else -math.inf


def measure(path: Path, rel: str, room_tone: bool = False) -> Measurement:
    """Everything the report can say about one written file."""
    rate, channels, blocks = _blocks(path)
    meter = FileMeter(rate, channels)
    for block in blocks:
        meter.measure(block)
    return meter.result(described(path, rel), room_tone)


def described(path: Path, rel: str) -> Measurement:
    """What a written file says about itself (rate, depth, bitrate, chapters), not yet measured."""
    info = stream_info(path)
    return Measurement(rel, sample_rate=info.sample_rate, channels=info.channels, bit_depth=info.bit_depth,
                       bitrate_kbps=info.bitrate_kbps, bitrate_mode=info.bitrate_mode, chapters=info.chapters)


class FileMeter:
    """The audio half of :func:`measure`, block by block.

    :meth:`feed` takes blocks of any size and measures them in the blocks
    :func:`measure` reads a WAV in, so a render that feeds it the mix as the
    file will read back (``SparseWavWriter.decoded``) while it writes the
    file gets the same measurement, bit for bit, without reading it again.
    """

    BLOCK = 65_536  # the blocks measure() reads a WAV or FLAC in

    def __init__(self, rate: int, channels: int) -> None:
        import soxr

        self.rate, self.channels = rate, channels
        self._hops: array[float] = array("d")
        self._power = HopPower(rate, channels)
        self._window = max(1, int(rate * _WINDOW_S))
        self._windows: array[float] = array("d")  # mean square per 10 ms window
        self._pending = np.zeros((0, channels), dtype=np.float32)
        self._upsample = soxr.ResampleStream(rate, rate * 4, channels, dtype="float32", quality="HQ")
        self._frames, self._squares, self._peak, self._true_peak = 0, 0.0, 0.0, 0.0
        self._held: list[np.ndarray] = []
        self._held_frames = 0
        self._nonfinite = 0  # in the blocks measured
        self._nonfinite_made = 0  # in the float samples PCM blocks were cast from

    def feed(self, block: np.ndarray, made_from: np.ndarray | None = None) -> None:
        """Frames of any count; measured in whole :attr:`BLOCK` s (the rest at :meth:`result`).
        ``made_from``: the float samples a PCM file's ``block`` was cast from, whose NaN the
        cast turned into silence; counted, so such a file never passes."""
        if made_from is not None:
            self._nonfinite_made += _nonfinite(made_from)
        self._held.append(np.array(block, dtype=np.float32, copy=True))
        self._held_frames += block.shape[0]
        if self._held_frames < self.BLOCK:
            return
        held = np.concatenate(self._held)
        whole = held.shape[0] // self.BLOCK * self.BLOCK
        for start in range(0, whole, self.BLOCK):
            self.measure(np.ascontiguousarray(held[start:start + self.BLOCK]))
        rest = held[whole:]
        self._held, self._held_frames = ([rest] if rest.shape[0] else []), rest.shape[0]

    def measure(self, block: np.ndarray) -> None:
        """One block as read from the file."""
        self._nonfinite += _nonfinite(block)
        self._frames += block.shape[0]
        self._power.feed(block, self._hops.append)
        self._squares += float(np.einsum("ij,ij->", block, block, dtype=np.float64))
        self._peak = max(self._peak, float(np.max(np.abs(block))) if block.size else 0.0)
        up = self._upsample.resample_chunk(block)
        self._true_peak = max(self._true_peak, float(np.max(np.abs(up))) if up.size else 0.0)
        pending = np.concatenate([self._pending, block])
        window, channels = self._window, self.channels
        whole = pending.shape[0] // window * window
        if whole:
            w = pending[:whole].reshape(-1, window, channels)
            self._windows.extend(np.mean(np.square(w, dtype=np.float64), axis=(1, 2)).tolist())
            pending = pending[whole:]
        self._pending = pending

    def result(self, m: Measurement, room_tone: bool = False) -> Measurement:
        """``m`` (from :func:`described`) with what the blocks measured."""
        if self._held_frames:
            self.measure(np.ascontiguousarray(np.concatenate(self._held)))
            self._held, self._held_frames = [], 0
        tail = self._upsample.resample_chunk(np.zeros((0, self.channels), dtype=np.float32), last=True)
        true_peak = max(self._true_peak, float(np.max(np.abs(tail))) if tail.size else 0.0)
        hop_powers = np.frombuffer(self._hops, dtype=np.float64) if len(self._hops) else np.zeros(0)
        m.duration_s = self._frames / self.rate
        m.integrated_lufs = gated_loudness(hop_powers)
        m.loudness_range_lu = loudness_range(hop_powers)
        m.sample_peak_dbfs = 20 * math.log10(self._peak) if self._peak > 0 else -math.inf
        m.true_peak_dbtp = 20 * math.log10(true_peak) if true_peak > 0 else -math.inf
        m.rms_dbfs = _db(self._squares / max(1, self._frames * self.channels))
        m.nonfinite_samples = max(self._nonfinite, self._nonfinite_made)
        if room_tone:
            windows = self._windows
            _room_tone(m, np.frombuffer(windows, dtype=np.float64) if len(windows) else np.zeros(0))
        return m


def _nonfinite(block: np.ndarray) -> int:
    """How many samples are NaN or infinite (summed first: a finite sum means none is)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if math.isfinite(float(np.sum(block, dtype=np.float64))):
            return 0
    return int(np.count_nonzero(~np.isfinite(block)))


def _blocks(path: Path) -> tuple[int, int, Iterator[np.ndarray]]:
    """The decoded file in (frames, channels) float32 blocks."""
    if Path(path).suffix.lower() in (".wav", ".flac"):
        info = sf.info(path)
        blocks = sf.blocks(path, blocksize=65_536, dtype="float32", always_2d=True)
        return int(info.samplerate), int(info.channels), blocks
    import av

    container = av.open(str(path))
    stream = container.streams.audio[0]
    channels = stream.codec_context.channels

    def frames() -> Iterator[np.ndarray]:
        with container:
            for frame in container.decode(stream):
                planar = frame.to_ndarray()  # fltp: (channels, frames)
                yield np.ascontiguousarray(planar.T, dtype=np.float32)

    return int(stream.rate), int(channels), frames()


def loudness_range(hop_powers: np.ndarray) -> float:
    """EBU Tech 3342 loudness range from 100 ms K-weighted powers: 3 s
    short-term windows, gated at -70 LUFS absolute and -20 LU relative,
    95th minus 10th percentile."""
    span = 30
    if hop_powers.size < span:
        return 0.0
    short = np.convolve(hop_powers, np.ones(span) / span, mode="valid")
    with np.errstate(divide="ignore"):
        level = -0.691 + 10 * np.log10(short)
    kept = short[level >= -70.0]
    if kept.size == 0:
        return 0.0
    relative = -0.691 + 10 * math.log10(float(kept.mean())) - 20.0
    gated = level[(level >= -70.0) & (level >= relative)]
    if gated.size == 0:
        return 0.0
    return float(np.percentile(gated, 95) - np.percentile(gated, 10))


def _room_tone(m: Measurement, windows: np.ndarray) -> None:
    with np.errstate(divide="ignore"):
        level = 10 * np.log10(np.maximum(windows, 1e-30))
    loud = np.flatnonzero(level > SPEECH_DB)
    if loud.size == 0:  # all room tone
        m.head_room_tone_s = m.tail_room_tone_s = m.duration_s
        m.noise_floor_db = _db(float(windows.mean())) if windows.size else -math.inf
        return
    first, last = int(loud[0]), int(loud[-1]) + 1
    m.head_room_tone_s = first * _WINDOW_S
    m.tail_room_tone_s = max(0.0, m.duration_s - last * _WINDOW_S)
    edge = int(round(_EDGE_S / _WINDOW_S))
    tone = np.concatenate([windows[:max(0, first - edge)], windows[last + edge:]])
    m.noise_floor_db = _db(float(tone.mean())) if tone.size else -math.inf


def check(preset: DeliveryPreset, measurements: Sequence[Measurement], expected_rate: int,
          expected_files: int, expected_chapters: int = 0) -> ComplianceReport:
    """Each requirement of ``preset`` on each file (and on the set)."""
    report = ComplianceReport(preset, list(measurements))
    add = report.requirements.append

    def within(m: Measurement, name: str, key: str, lo: float, hi: float, unit: str) -> None:
        value = getattr(m, key)
        limit = f"{lo:g}..{hi:g}" if math.isfinite(lo) else f"<= {hi:g}"
        add(Requirement(m.file, name, key, limit, value, unit, lo <= value <= hi))

    for m in measurements:
        if preset.level == "loudness":
            t = preset.lufs_tolerance
            within(m, "integrated loudness", "integrated_lufs", preset.target_lufs - t, preset.target_lufs + t, "LUFS")
        elif preset.rms_range:
            within(m, "RMS", "rms_dbfs", *preset.rms_range, "dBFS")
        if preset.true_peak_max is not None:
            within(m, "true peak", "true_peak_dbtp", -math.inf, preset.true_peak_max, "dBTP")
        if preset.sample_peak_max is not None:
            within(m, "peak", "sample_peak_dbfs", -math.inf, preset.sample_peak_max, "dBFS")
        if preset.noise_floor_max is not None:
            within(m, "noise floor", "noise_floor_db", -math.inf, preset.noise_floor_max, "dB")
        if preset.head_range:
            within(m, "room tone at head", "head_room_tone_s", *preset.head_range, "s")
        if preset.tail_range:
            within(m, "room tone at tail", "tail_room_tone_s", *preset.tail_range, "s")
        if m.nonfinite_samples:  # listed only when it fails: every file passes it otherwise
            add(Requirement(m.file, "samples not finite (NaN, infinity)", "nonfinite_samples", "0",
                            m.nonfinite_samples, "", False))
        add(Requirement(m.file, "sample rate", "sample_rate", f"{expected_rate}", m.sample_rate, "Hz",
                        m.sample_rate == expected_rate))
        if preset.container == "m4b":  # AAC in MP4 is never strictly constant: its average must fit
            add(Requirement(m.file, "bitrate (average)", "bitrate_kbps", f"<= {preset.bitrate_kbps} kbps",
                            f"{m.bitrate_kbps:g} kbps", "", m.bitrate_kbps <= preset.bitrate_kbps * 1.05))
        elif preset.lossy and not preset.vbr:
            ok = m.bitrate_mode in ("CBR", "") and abs(m.bitrate_kbps - preset.bitrate_kbps) <= 1.0
            if preset.container == "mp3":
                ok = ok and m.bitrate_mode == "CBR"  # an MP3 says so in its Info header
            add(Requirement(m.file, "bitrate", "bitrate_kbps", f"{preset.bitrate_kbps} kbps CBR",
                            f"{m.bitrate_kbps:g} kbps {m.bitrate_mode or '?'}", "", ok))
        elif preset.lossy:
            add(Requirement(m.file, "bitrate mode", "bitrate_mode", "VBR", m.bitrate_mode or "?", "",
                            m.bitrate_mode == "VBR"))
        else:
            add(Requirement(m.file, "bit depth", "bit_depth", f"{preset.bit_depth}", m.bit_depth, "bit",
                            m.bit_depth == preset.bit_depth))
        if expected_chapters and preset.container in ("mp3", "m4b"):
            add(Requirement(m.file, "chapters", "chapters", f"{expected_chapters}", m.chapters, "",
                            m.chapters == expected_chapters))
    add(Requirement("*", "files", "file", f"{expected_files}", len(measurements), "",
                    len(measurements) == expected_files))
    return report
