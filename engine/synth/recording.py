"""Recorded takes as clips: a person's reading used instead of synthesis.

A line with a recording (``Line.recording``, made by ``radioplay rehearse
--record``) is heard and exported from that file: mono, at the project rate,
levelled to the loudness synthesized clips get, so the mix treats it as any
other line. Files are small (one line each) and read when a line is planned.
"""

from __future__ import annotations

import numpy as np

from engine.audio.sound_file import AudioFileError, read_audio
from engine.project.model import Project
from engine.synth import shaping

MAX_RECORDING_S = 3600.0  # one line's reading; as long as a line may be followed by silence


class RecordingError(ValueError):
    """A recorded take is missing or unreadable (the message names the file)."""


def load_recording(path: str, rate: int) -> np.ndarray:
    try:
        audio, file_rate = read_audio(path, MAX_RECORDING_S)
    except AudioFileError as exc:  # names the file and the problem (a device, a 1 Hz header, ...)
        raise RecordingError(f"recorded take {exc.path}: {exc.problem}") from None
    mono = np.ascontiguousarray(audio.mean(axis=1), dtype=np.float32)
    if not mono.size:
        raise RecordingError(f"recorded take {path}: no sound in the file")
    clip = shaping.level_loudness(shaping.resample(mono, int(file_rate), rate), rate)
    return np.ascontiguousarray(shaping.fade_edges(clip, rate), dtype=np.float32)


def load_recordings(project: Project, rate: int) -> dict[str, np.ndarray]:
    """Every line's recorded take, read before anything is voiced (a bad one fails the
    export at once, not after the synthesis). RecordingError names the first line whose
    take cannot be used, and how many others cannot."""
    clips: dict[str, np.ndarray] = {}
    problems: list[str] = []
    for number, line in enumerate(project.lines, start=1):
        if line.recording is None:
            continue
        try:
            clips[line.id] = load_recording(line.recording, rate)
        except RecordingError as exc:
            problems.append(f"line {number} ({line.id}, role {line.role}): {exc}")
    if problems:
        more = len(problems) - 1
        raise RecordingError(problems[0] + (f" (and {more} more line{'s' if more > 1 else ''} whose recorded "
                                            "take cannot be used)" if more else ""))
    return clips
