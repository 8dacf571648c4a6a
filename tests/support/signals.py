"""Measurements of test signals."""

from __future__ import annotations

import numpy as np


def dominant_hz(audio: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(audio * np.hanning(audio.size)))
    return float(np.argmax(spectrum) * rate / audio.size)
