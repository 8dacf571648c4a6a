"""Where the reader's voice comes from: a microphone, or recordings played as one.

Both deliver mono float32 chunks at the project rate, each stamped with the
monotonic time its last sample arrived, on a queue the listener drains.

- :class:`MicReader`: a PortAudio input device (sounddevice's callback
  copies each buffer onto the queue; nothing else runs on the audio thread).
- :class:`SimulatedReader` (``--simulate DIR``): ``DIR/<LINE_ID>.wav`` is
  the reader's voice for that line. Thread ``radioplay-reader`` delivers it
  in real time, starting a human reaction time (300 ms) after the line's cue,
  with silence in between as a quiet room would; it also knows when each
  recording's speech really ends, which is what the report's gap is measured
  from.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

CHUNK_S = 0.02  # a microphone buffer: 20 ms
REACTION_S = 0.3  # a simulated reader starts this long after the cue


@dataclass(frozen=True)
class Chunk:
    audio: np.ndarray  # mono float32 at the project rate
    at: float  # monotonic time its last sample arrived


class Reader(Protocol):
    rate: int
    chunks: queue.SimpleQueue[Chunk]

    def start(self) -> None: ...

    def cue(self, line_id: str) -> None:
        """The reader's line has come (a simulated reader starts reading it)."""
        ...

    def truth(self, line_id: str) -> tuple[float, float] | None:
        """When the speech of that line really began and ended (monotonic), if known."""
        ...

    def close(self) -> None: ...


class ReaderError(RuntimeError):
    """The input cannot be opened, or a recording is missing or unreadable."""


NO_MICROPHONE = ("no microphone found (no sound input device here): connect one, or read the part from "
                 "recordings (radioplay rehearse --simulate DIR; in the studio, Input: Simulated reader)")


def default_input(sd: Any) -> int | None:
    """The system's default input device, or None where there is none (PortAudio's -1)."""
    try:
        index = int(sd.query_devices(kind="input")["index"])
    except (ValueError, TypeError, KeyError, sd.PortAudioError):
        return None
    return index if index >= 0 else None


def input_names() -> list[str]:
    """Names of the input devices PortAudio knows (none when it cannot run here)."""
    from engine.audio.portaudio import load_sounddevice

    sd: Any = load_sounddevice()
    if sd is None:
        return []
    try:
        return [str(d["name"]) for d in sd.query_devices() if int(d["max_input_channels"]) > 0]
    except (OSError, sd.PortAudioError):
        return []


def has_default_input() -> bool:
    """Whether the system's default input is a microphone (PortAudio has a default input device)."""
    from engine.audio.portaudio import load_sounddevice

    sd = load_sounddevice()
    return sd is not None and default_input(sd) is not None


class MicReader:
    """A PortAudio input device (by name, or the default one)."""

    def __init__(self, rate: int, device: str | None = None) -> None:
        from engine.audio.portaudio import load_sounddevice, portaudio_error

        sd: Any = load_sounddevice()
        if sd is None:
            raise ReaderError(portaudio_error() or "no sound input")
        index: int | str | None = None
        if device is not None:
            inputs = [(i, str(d["name"])) for i, d in enumerate(sd.query_devices()) if d["max_input_channels"] > 0]
            exact = [i for i, name in inputs if name == device]
            loose = [i for i, name in inputs if device.lower() in name.lower()]
            if not exact and not loose:
                raise ReaderError(f"no input device called {device!r}; inputs: "
                                  f"{', '.join(n for _, n in inputs) or 'none'}")
            index = (exact or loose)[0]
        elif default_input(sd) is None:
            # PortAudio would say "Error querying device -1".
            names = [str(d["name"]) for d in sd.query_devices() if d["max_input_channels"] > 0]
            raise ReaderError(NO_MICROPHONE if not names else
                              f"no default microphone: choose one of {', '.join(names)} "
                              "(radioplay rehearse --input NAME; in the studio, Input)")
        self.rate = rate
        self.chunks: queue.SimpleQueue[Chunk] = queue.SimpleQueue()
        try:
            self._stream: Any = sd.InputStream(device=index, channels=1, samplerate=rate, dtype="float32",
                                               blocksize=int(rate * CHUNK_S), latency="low", callback=self._callback)
        except Exception as exc:  # PortAudio names the problem (busy, bad rate)
            raise ReaderError(f"cannot open input {device or '(default)'}: {exc}") from exc
        self.name = str(sd.query_devices(self._stream.device)["name"])

    def _callback(self, indata: np.ndarray, frames: int, when: Any, status: Any) -> None:
        self.chunks.put(Chunk(indata[:, 0].copy(), time.monotonic()))

    def start(self) -> None:
        self._stream.start()

    def cue(self, line_id: str) -> None:
        pass

    def truth(self, line_id: str) -> tuple[float, float] | None:
        return None

    def close(self) -> None:
        self._stream.stop()
        self._stream.close()


def speech_span(audio: np.ndarray, rate: int) -> tuple[float, float]:
    """Seconds from the start of a recording to the start and end of its
    speech: 10 ms frames within 40 dB of the loudest and 10 dB above the
    room's noise (the quietest tenth), so neither a soft final consonant nor
    a noise peak moves the end."""
    frame = max(1, rate // 100)
    n = audio.size // frame
    if n == 0:
        return 0.0, 0.0
    power = np.mean(np.square(audio[:n * frame].reshape(n, frame), dtype=np.float64), axis=1)
    level = 10.0 * np.log10(power + 1e-12)
    threshold = max(float(level.max()) - 40.0, float(np.percentile(level, 10)) + 10.0)
    loud = np.flatnonzero(level >= threshold)
    if not loud.size or level.max() < -100.0:
        return 0.0, 0.0
    return float(loud[0] * frame) / rate, float((loud[-1] + 1) * frame) / rate


class SimulatedReader:
    """Plays ``folder/<LINE_ID>.wav`` for each live line as if a person read it;
    the names are those recorded takes get (engine/rehearse/takes.py), so a
    hostile id cannot name a file outside the folder."""

    def __init__(self, folder: Path, rate: int, line_ids: list[str], reaction_s: float = REACTION_S,
                 file_names: dict[str, str] | None = None) -> None:
        from engine.audio.sound_file import AudioFileError, read_audio
        from engine.rehearse.take_names import take_file_names
        from engine.synth.recording import MAX_RECORDING_S
        from engine.synth.shaping import resample

        self.rate = rate
        self.reaction_s = reaction_s
        self.chunks: queue.SimpleQueue[Chunk] = queue.SimpleQueue()
        self._takes: dict[str, np.ndarray] = {}
        names = file_names if file_names is not None else take_file_names(line_ids)
        for line_id in line_ids:
            path = folder / names[line_id]
            if not path.is_file():
                raise ReaderError(f"{path}: no recording for line {line_id}")
            try:
                audio, file_rate = read_audio(path, MAX_RECORDING_S)
            except AudioFileError as exc:  # names the file and the problem
                raise ReaderError(f"{exc.path}: cannot read: {exc.problem}") from None
            self._takes[line_id] = np.ascontiguousarray(resample(audio.mean(axis=1), file_rate, rate), np.float32)
        self._cues: queue.SimpleQueue[tuple[str, float]] = queue.SimpleQueue()
        self._truth: dict[str, tuple[float, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="radioplay-reader", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def cue(self, line_id: str) -> None:
        self._cues.put((line_id, time.monotonic()))

    def truth(self, line_id: str) -> tuple[float, float] | None:
        return self._truth.get(line_id)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)

    def _run(self) -> None:
        chunk = int(self.rate * CHUNK_S)
        silence = np.zeros(chunk, dtype=np.float32)
        playing: np.ndarray | None = None
        at = 0
        begin = time.monotonic()
        sent = 0  # chunks delivered since ``begin``: the clock is the sample count, as a device's is
        pending: list[tuple[str, float]] = []
        while not self._stop.is_set():
            while True:
                try:
                    pending.append(self._cues.get_nowait())
                except queue.Empty:
                    break
            due = begin + (sent + 1) * CHUNK_S
            if playing is None and pending and due - CHUNK_S >= pending[0][1] + self.reaction_s:
                line_id, _ = pending.pop(0)
                playing, at = self._takes[line_id], 0
                start = due - CHUNK_S
                first, last = speech_span(playing, self.rate)
                self._truth[line_id] = (start + first, start + last)
            if playing is not None:
                out = playing[at:at + chunk]
                at += chunk
                if out.size < chunk:
                    out = np.concatenate([out, silence[:chunk - out.size]])
                if at >= playing.size:
                    playing = None
            else:
                out = silence
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.chunks.put(Chunk(out.copy(), due))
            sent += 1
