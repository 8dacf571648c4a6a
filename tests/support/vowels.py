"""Synthetic vowels for measuring voice transforms: a glottal pulse train
through formant resonators, so F0 and the formant frequencies are known
exactly, and praat-parselmouth measurements of what came out."""

from __future__ import annotations

import numpy as np
from scipy.signal import lfilter

# /ɛ/ of an adult male (Peterson & Barney's averages, rounded), with bandwidths:
# formants far enough apart for Burg's method to resolve each.
FORMANTS_E = ((530.0, 80.0), (1840.0, 120.0), (2480.0, 160.0))


def vowel(f0: float = 120.0, formants: tuple[tuple[float, float], ...] = FORMANTS_E, seconds: float = 1.0,
          sample_rate: int = 22050, vibrato_st: float = 0.5) -> np.ndarray:
    """A sustained vowel: a pulse train (with a slow vibrato of ``vibrato_st``
    semitones so the F0 track has a range to scale), its spectrum tilted like
    a glottal source, through one two-pole resonator per formant."""
    n = int(seconds * sample_rate)
    t = np.arange(n) / sample_rate
    inst = f0 * 2 ** (vibrato_st * np.sin(2 * np.pi * 5.0 * t) / 12)
    phase = np.cumsum(inst / sample_rate)
    pulses = np.diff(np.floor(phase), prepend=0.0)
    source = lfilter([1.0], [1.0, -0.97], pulses)  # glottal roll-off (about -6 dB/octave)
    out = source
    for freq, bandwidth in formants:
        r = np.exp(-np.pi * bandwidth / sample_rate)
        theta = 2 * np.pi * freq / sample_rate
        out = lfilter([1 - r], [1.0, -2 * r * np.cos(theta), r * r], out)
    out = out * np.hanning(n) ** 0.1  # soft edges
    return (0.3 * out / np.max(np.abs(out))).astype(np.float32)


def f0_median(audio: np.ndarray, sample_rate: int) -> float:
    import parselmouth

    pitch = parselmouth.Sound(audio.astype(np.float64), sample_rate).to_pitch(pitch_floor=50.0, pitch_ceiling=800.0)
    values = pitch.selected_array["frequency"]
    voiced = values[values > 0]
    return float(np.median(voiced)) if voiced.size else 0.0


def f0_semitone_spread(audio: np.ndarray, sample_rate: int) -> float:
    """Standard deviation of the voiced F0 in semitones."""
    import parselmouth

    pitch = parselmouth.Sound(audio.astype(np.float64), sample_rate).to_pitch(pitch_floor=50.0, pitch_ceiling=800.0)
    values = pitch.selected_array["frequency"]
    voiced = values[values > 0]
    return float(np.std(12 * np.log2(voiced))) if voiced.size else 0.0


def voiced_fraction(audio: np.ndarray, sample_rate: int) -> float:
    """Share of Praat's pitch frames that are voiced. The ceiling is below
    the synthetic vowel's F1: noise through a narrow resonance repeats at the
    resonance's period, which Praat would take for a (very high) voice."""
    import parselmouth

    pitch = parselmouth.Sound(audio.astype(np.float64), sample_rate).to_pitch(pitch_floor=50.0, pitch_ceiling=400.0)
    values = pitch.selected_array["frequency"]
    return float(np.mean(values > 0)) if values.size else 0.0


def harmonicity_db(audio: np.ndarray, sample_rate: int) -> float:
    """Mean harmonics-to-noise ratio (Praat's cross-correlation method) over the frames it measured."""
    import parselmouth

    hnr = parselmouth.Sound(audio.astype(np.float64), sample_rate).to_harmonicity_cc(minimum_pitch=60.0)
    values = hnr.values[hnr.values > -200]
    return float(np.mean(values)) if values.size else -200.0


def formant_medians(audio: np.ndarray, sample_rate: int, count: int = 4) -> list[float]:
    """Median F1..F``count`` over the middle of the sound (Burg, up to 5.5 kHz).
    Burg may report an extra resonance of the source between the real ones:
    compare with :func:`nearest`, not by index."""
    import parselmouth

    sound = parselmouth.Sound(audio.astype(np.float64), sample_rate)
    formant = sound.to_formant_burg(maximum_formant=5500.0)
    times = np.linspace(0.2 * sound.duration, 0.8 * sound.duration, 30)
    out = []
    for i in range(1, count + 1):
        values = np.array([formant.get_value_at_time(i, float(t)) for t in times])
        if np.any(np.isfinite(values)):
            out.append(float(np.nanmedian(values)))
    return out


def nearest(measured: list[float], expected: float) -> float:
    """The relative distance from ``expected`` to the nearest measured formant."""
    return min(abs(m - expected) / expected for m in measured)
