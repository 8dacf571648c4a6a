"""Recorded takes as clips: a person's reading used instead of synthesis.

A line with a recording (``Line.recording``, made by ``radioplay rehearse
--record``) is heard and exported from that file: mono, at the project rate,
levelled to the loudness synthesized clips get, so the mix treats it as any
other line. Files are small (one line each) and read when a line is planned.
"""

from __future__ import annotations

import os

import numpy as np

from engine.synth import shaping


class RecordingError(ValueError):
    """A recorded take is missing or unreadable (the message names the file)."""


def load_recording(path: str, rate: int) -> np.ndarray:
    import soundfile

    if not os.path.isfile(path):  # libsndfile would only say "System error"
        raise RecordingError(f"recorded take {path}: file not found")
    try:
        audio, file_rate = soundfile.read(path, dtype="float32", always_2d=True)
    except Exception as exc:  # soundfile names the format problem
        raise RecordingError(f"recorded take {path}: cannot read: {exc}") from None
    mono = np.ascontiguousarray(audio.mean(axis=1), dtype=np.float32)
    if not mono.size:
        raise RecordingError(f"recorded take {path}: no sound in the file")
    clip = shaping.level_loudness(shaping.resample(mono, int(file_rate), rate), rate)
    return np.ascontiguousarray(shaping.fade_edges(clip, rate), dtype=np.float32)
