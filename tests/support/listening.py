"""Measuring a rendered line with tools the project did not write: praat-parselmouth
for pitch, loudness, voicing and silences; pocketsphinx (bench/shaping_wer.py's
general-model recognizer) for the words."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Features:
    seconds: float  # first to last voiced frame: the words' length, silences at the edges aside
    f0_median: float  # Hz, voiced frames
    f0_range: float  # semitones between the 10th and 90th percentile of voiced F0
    intensity_db: float  # Praat's mean intensity over the clip's sounding part
    voiced_fraction: float  # voiced frames / sounding frames


def features(audio: np.ndarray, rate: int) -> Features:
    import parselmouth

    sound = parselmouth.Sound(np.asarray(audio, dtype=np.float64), rate)
    pitch = sound.to_pitch(time_step=0.01, pitch_floor=60.0, pitch_ceiling=600.0)
    f0 = pitch.selected_array["frequency"]
    times = pitch.xs()
    intensity = sound.to_intensity(minimum_pitch=60.0, time_step=0.01)
    level = intensity.values[0]
    sounding = level > level.max() - 35.0
    level_at = np.interp(times, intensity.xs(), level)
    sounding_frames = level_at > level.max() - 35.0
    voiced = f0 > 0
    v = f0[voiced]
    span = float(times[voiced][-1] - times[voiced][0]) if v.size > 1 else 0.0
    lo, hi = (np.percentile(v, [10, 90]) if v.size else (1.0, 1.0))
    energy = 10 ** (level[sounding] / 10)
    return Features(span, float(np.median(v)) if v.size else 0.0, float(12 * np.log2(hi / lo)),
                    float(10 * np.log10(energy.mean())),
                    float(np.count_nonzero(voiced & sounding_frames) / max(1, np.count_nonzero(sounding_frames))))


def longest_inner_silence(audio: np.ndarray, rate: int, below_db: float = 30.0) -> tuple[float, float]:
    """(start, length) in seconds of the longest stretch quieter than ``below_db`` under
    the loudest moment, between the first and the last sounding moment (Praat's intensity)."""
    import parselmouth

    sound = parselmouth.Sound(np.asarray(audio, dtype=np.float64), rate)
    intensity = sound.to_intensity(minimum_pitch=60.0, time_step=0.005)
    level, times = intensity.values[0], intensity.xs()
    loud = np.flatnonzero(level > level.max() - below_db)
    best = (0.0, 0.0)
    for a, b in zip(loud[:-1], loud[1:], strict=True):
        if b - a > 1 and times[b] - times[a] > best[1]:
            best = (float(times[a]), float(times[b] - times[a]))
    return best


def heard_words(audio: np.ndarray, rate: int) -> list[str]:
    from bench.shaping_wer import Recognizer, words

    return words(Recognizer()(audio, rate))
