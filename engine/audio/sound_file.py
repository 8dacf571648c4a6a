"""Reading a sound file a user named: the one checked way in.

Sound clips, recorded takes and a table read's recordings are all read
here, so every such file is first a regular file of a sane size (no FIFO
that blocks, no device that never ends: engine.fsutil.open_regular), then
a header with a real sample rate and a length under the caller's cap,
and only then are samples allocated (and they must be numbers: a float
file's NaN or infinity is refused). Without the header check a WAV that
claims 1 Hz asks the resampler for an absurd buffer, and a sparse 4 GB file
asks for 8 GiB of floats before anything fails.

Every problem is one line starting with the path (AudioFileError).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.fsutil import FileTooLargeError, NotRegularFileError, open_regular

if TYPE_CHECKING:
    import soundfile

MIN_RATE = 4_000  # below any telephone band: a header claiming less is broken
MAX_RATE = 768_000
MAX_CHANNELS = 8
MAX_FILE_BYTES = 4 << 30  # an hour of 8-channel 384 kHz float audio is under this


class AudioFileError(ValueError):
    """A sound file that cannot be used: ``path: problem`` (each caller may word
    its own message around ``problem``)."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = path, problem


@dataclass(frozen=True)
class AudioHeader:
    rate: int
    channels: int
    frames: int

    @property
    def seconds(self) -> float:
        return self.frames / self.rate


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.replace(" : ", ": ")


def _checked(path: Path, f: soundfile.SoundFile, max_seconds: float) -> AudioHeader:
    header = AudioHeader(int(f.samplerate), int(f.channels), int(f.frames))
    if not MIN_RATE <= header.rate <= MAX_RATE:
        raise AudioFileError(path, f"the header claims {header.rate} Hz; a sound file must be {MIN_RATE}-{MAX_RATE} Hz")
    if not 1 <= header.channels <= MAX_CHANNELS:
        raise AudioFileError(path, f"the header claims {header.channels} channels")
    if header.seconds > max_seconds:
        raise AudioFileError(path, f"{header.seconds / 60:.1f} minutes long; at most {max_seconds / 60:g} minutes "
                                   "are read")
    return header


def _open_failure(path: Path, exc: BaseException) -> AudioFileError:
    if isinstance(exc, FileNotFoundError):
        return AudioFileError(path, "file not found")
    if isinstance(exc, ValueError) and "null" in str(exc):
        return AudioFileError(Path(repr(str(path))), "the path contains a NUL byte")
    if isinstance(exc, (NotRegularFileError, FileTooLargeError)):
        return AudioFileError(path, str(exc))
    if isinstance(exc, OSError) and exc.strerror:
        return AudioFileError(path, exc.strerror)
    return AudioFileError(path, _reason(exc))


def read_header(path: Path | str, max_seconds: float) -> AudioHeader:
    """The file's rate, channels and length, checked; no samples read."""
    import soundfile as sf

    path = Path(path)
    try:
        with open_regular(path, MAX_FILE_BYTES) as raw, sf.SoundFile(raw) as f:
            return _checked(path, f, max_seconds)
    except AudioFileError:
        raise
    except (OSError, ValueError, RuntimeError, sf.LibsndfileError) as exc:
        raise _open_failure(path, exc) from None


def read_audio(path: Path | str, max_seconds: float) -> tuple[np.ndarray, int]:
    """(frames, channels) float32 samples and their rate, after the checks."""
    import soundfile as sf

    path = Path(path)
    try:
        with open_regular(path, MAX_FILE_BYTES) as raw, sf.SoundFile(raw) as f:
            header = _checked(path, f, max_seconds)
            audio = f.read(dtype="float32", always_2d=True)
    except AudioFileError:
        raise
    except (OSError, ValueError, RuntimeError, sf.LibsndfileError) as exc:
        raise _open_failure(path, exc) from None
    with np.errstate(invalid="ignore", over="ignore"):
        finite = math.isfinite(float(np.sum(audio, dtype=np.float64)))
    if audio.size and not finite:
        # A float file may hold NaN or infinity: mixed, either silences or spikes everything after it.
        raise AudioFileError(path, "it holds samples that are not numbers (NaN or infinity)")
    return audio, header.rate
