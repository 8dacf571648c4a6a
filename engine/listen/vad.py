"""Voice activity: is someone speaking in this 32 ms of sound, and since when.

Two detectors behind one small interface (``probability`` of one frame of
:data:`FRAME` samples at :data:`VAD_RATE`):

- :class:`SileroVad`: silero-vad's ONNX model (the ``silero-vad`` package
  ships it; only the file is used, through ONNX Runtime, never the package's
  torch code). About 0.2 ms a frame on one core. It tells speech from breath,
  room noise and clicks, which an energy threshold cannot.
- :class:`EnergyVad`: level above an adaptive noise floor; no model. The
  fallback where silero-vad is not installed, and the baseline it is measured
  against (bench/vad_compare.py).

:class:`SpeechTracker` turns per-frame probabilities into speech with a
start, an end and the silence since, with hysteresis (silero's own
recommendation: on at 0.5, off below 0.35). It is fed sound at any rate and
resamples it to 16 kHz once, handing the 16 kHz sound back so a recognizer
can share it. Times are stream seconds: frames fed so far / 16 kHz.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

VAD_RATE = 16_000
FRAME = 512  # silero's window at 16 kHz: 32 ms
FRAME_S = FRAME / VAD_RATE
_CONTEXT = 64  # samples of the previous frame silero v5+ expects in front of each frame


class VoiceDetector(Protocol):
    name: str

    def probability(self, frame: np.ndarray) -> float:
        """Speech probability of one frame (FRAME float32 samples at VAD_RATE)."""
        ...

    def reset(self) -> None: ...


def silero_model_path() -> Path | None:
    """The ONNX model the silero-vad package ships, or None when it is not
    installed. Found without importing the package (its import loads torch)."""
    spec = importlib.util.find_spec("silero_vad")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "silero_vad.onnx"
    return path if path.is_file() else None


class SileroVad:
    """silero-vad (v5/v6 ONNX) on one CPU thread; carries its recurrent state
    from frame to frame, so one instance follows one stream."""

    name = "silero"

    def __init__(self, model_path: Path | None = None) -> None:
        path = model_path or silero_model_path()
        if path is None:
            raise RuntimeError("silero-vad is not installed (pip install 'radioplay[rehearse]')")
        import onnxruntime as ort

        options = ort.SessionOptions()
        # One frame every 32 ms on a thread of its own: a second thread only adds
        # hand-over cost, and spinning would take a core from synthesis.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session: Any = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._input = np.zeros((1, _CONTEXT + FRAME), dtype=np.float32)
        self._sr = np.array(VAD_RATE, dtype=np.int64)
        self._state = np.zeros((2, 1, 128), dtype=np.float32)

    def probability(self, frame: np.ndarray) -> float:
        self._input[0, _CONTEXT:] = frame
        out, self._state = self._session.run(None, {"input": self._input, "state": self._state, "sr": self._sr})
        self._input[0, :_CONTEXT] = frame[-_CONTEXT:]
        return float(out[0, 0])

    def reset(self) -> None:
        self._state = np.zeros((2, 1, 128), dtype=np.float32)
        self._input.fill(0.0)


class EnergyVad:
    """Frame level against a noise floor that follows the quietest recent
    frames (falls at once, rises slowly between words): speech is ``margin_db``
    above it and above an absolute ``min_db``. Before it has heard the room
    the floor is ``start_floor_db``: sound 12 dB above that (a voice at a
    working level, a test tone) is speech from the first frame, quiet room
    noise is not. The floor creeps up only on frames that are not speech, so
    a long line does not raise it. The probability is a soft step around the
    threshold, so the tracker's hysteresis works the same on it."""

    name = "energy"

    def __init__(self, margin_db: float = 12.0, min_db: float = -55.0, rise_db_per_s: float = 3.0,
                 start_floor_db: float = -52.0) -> None:
        self.margin_db = margin_db
        self.min_db = min_db
        self.start_floor_db = start_floor_db
        self._rise = rise_db_per_s * FRAME_S
        self._floor = start_floor_db

    def probability(self, frame: np.ndarray) -> float:
        level = 10.0 * float(np.log10(float(np.mean(np.square(frame, dtype=np.float64))) + 1e-12))
        if level < self._floor:
            self._floor = level
        elif level < self._floor + self.margin_db:
            self._floor += self._rise
        threshold = max(self._floor + self.margin_db, self.min_db)
        return float(1.0 / (1.0 + np.exp(-(level - threshold) / 2.0)))

    def reset(self) -> None:
        self._floor = self.start_floor_db


def make_detector(kind: str = "auto") -> VoiceDetector:
    """``silero``, ``energy``, or ``auto`` (silero where installed)."""
    if kind == "energy" or (kind == "auto" and silero_model_path() is None):
        return EnergyVad()
    if kind in ("silero", "auto"):
        return SileroVad()
    raise ValueError(f"unknown voice activity detector {kind!r} (silero, energy or auto)")


@dataclass(frozen=True)
class SpeechState:
    speaking: bool
    started_s: float | None  # start of the current (or last) stretch of speech
    last_voice_s: float | None  # end of the last voiced frame
    now_s: float  # stream time fed so far

    @property
    def silence_s(self) -> float:
        """Silence since the last voiced frame (all of it before any speech)."""
        return self.now_s - (self.last_voice_s if self.last_voice_s is not None else 0.0)


class SpeechTracker:
    """Speech start and end over a stream, with hysteresis.

    Speech starts after ``start_frames`` frames at ``on`` or above (a click
    is not speech); a frame is voiced while in speech if it stays above
    ``off``. It never decides alone that a speaker has *finished*: callers
    read :attr:`state` (the silence since the last voiced frame) and choose
    how much silence is an end, knowing more (the table read asks its
    alignment whether the line is complete)."""

    def __init__(self, detector: VoiceDetector, rate: int, on: float = 0.5, off: float = 0.35,
                 start_frames: int = 2, close_s: float = 0.6) -> None:
        self.detector = detector
        self.close_s = close_s
        self.rate = rate
        self.on, self.off, self.start_frames = on, off, start_frames
        self._resampler: Any = None
        if rate != VAD_RATE:
            import soxr

            self._resampler = soxr.ResampleStream(rate, VAD_RATE, 1, dtype="float32", quality="MQ")
        self._pending = np.zeros(0, dtype=np.float32)
        self._frames = 0
        self._speaking = False
        self._run = 0  # consecutive frames at ``on`` or above, before speech starts
        self._started: float | None = None
        self._last_voice: float | None = None
        self.voiced_frames = 0

    @property
    def state(self) -> SpeechState:
        return SpeechState(self._speaking, self._started, self._last_voice, self._frames * FRAME_S)

    def feed(self, audio: np.ndarray) -> np.ndarray:
        """Take mono sound at ``rate``; returns it at 16 kHz (for a recognizer)."""
        audio = np.asarray(audio, dtype=np.float32).reshape(-1)
        at16 = audio if self._resampler is None else self._resampler.resample_chunk(audio)
        pending = np.concatenate([self._pending, at16]) if self._pending.size else at16
        usable = pending.size - pending.size % FRAME
        for k in range(0, usable, FRAME):
            self._frame(pending[k:k + FRAME])
        self._pending = pending[usable:].copy()
        return at16

    def _frame(self, frame: np.ndarray) -> None:
        p = self.detector.probability(frame)
        start = self._frames * FRAME_S
        self._frames += 1
        end = self._frames * FRAME_S
        if self._speaking:
            if p >= self.off:
                self._last_voice = end
                self.voiced_frames += 1
            elif end - (self._last_voice or start) >= self.close_s:
                self._speaking = False  # a long silence closes the stretch (callers may end it sooner)
            return
        if p >= self.on:
            self._run += 1
            if self._run >= self.start_frames:
                self._speaking = True
                self._started = start - (self._run - 1) * FRAME_S
                self._last_voice = end
                self.voiced_frames += self._run
                self._run = 0
        else:
            self._run = 0
