"""What a listener hears of who is speaking, measured with Praat (praat-parselmouth):
the median pitch, how far the pitch moves, and the median formants.

A child is told from a man at a raised pitch by the formants (a shorter vocal tract
puts them 25-35 % above a man's) as much as by the pitch; an older voice by a lower,
narrower pitch. These are the measures the voice designs are held to
(docs/dev/voice-design.md, tests/engine/synth/test_age_designs.py).

The formants are tracked with Praat's FormantPath: Burg's analysis at a range of
ceilings (4.1 to 7.4 kHz) and, frame by frame, the ceiling whose tracks are most
plausible. One fixed ceiling is biased by the voice it measures: at 5.5 kHz (a
woman's) a tract shortened by a fifth loses a formant under the ceiling, Burg pairs
the poles it has left differently and the median F2 of joe moved 1 % for a tract
22 % shorter, where the path moved it 17 %.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

PITCH_FLOOR_HZ = 60.0
PITCH_CEILING_HZ = 700.0  # above a child's speaking pitch
# The ceilings FormantPath chooses among: 5.5 kHz times 1.05 to the power -6..6
# (4.1 to 7.4 kHz: a large man's tract to a child's).
MIDDLE_CEILING_HZ = 5500.0
CEILING_STEP = 0.05
CEILING_STEPS = 6


@dataclass(frozen=True)
class VoiceTraits:
    """``f0_hz``: median pitch of the voiced frames; ``f0_span_st``: how far the pitch
    moves within a line (the 10th to the 90th percentile of its voiced frames, in
    semitones, the mean over the lines); ``formants_hz``: median F1, F2, F3 over the
    voiced frames; ``formant_means_hz``: their means. Over a voice above about 230 Hz
    the median F2 is the less telling of the two: F2 over a line's frames falls in two
    heaps (back vowels near 1 kHz, front ones near 2-2.5 kHz), and Burg's analysis of a
    high voice's sparse harmonics moves frames from one heap to the other, so the median
    lands between them (a Kokoro woman measured a median F2 0.97 times a Kokoro man's
    and a mean 1.08 times; docs/dev/voice-design.md)."""

    f0_hz: float
    f0_span_st: float
    formants_hz: tuple[float, float, float]
    formant_means_hz: tuple[float, float, float] = (0.0, 0.0, 0.0)


def _sound(audio: np.ndarray, rate: int) -> object:
    import parselmouth

    return parselmouth.Sound(np.asarray(audio, dtype=np.float64), sampling_frequency=rate)


def voiced_pitch(audio: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(times, Hz) of Praat's voiced pitch frames (autocorrelation)."""
    pitch = _sound(audio, rate).to_pitch_ac(pitch_floor=PITCH_FLOOR_HZ, pitch_ceiling=PITCH_CEILING_HZ)  # type: ignore[attr-defined]
    hz = np.asarray(pitch.selected_array["frequency"], dtype=np.float64)
    times = np.asarray(pitch.xs(), dtype=np.float64)
    return times[hz > 0], hz[hz > 0]


def f0_span_st(audio: np.ndarray, rate: int) -> float:
    """The 10th to the 90th percentile of one line's voiced pitch, in semitones."""
    return _span_st(voiced_pitch(audio, rate)[1])


def _span_st(hz: np.ndarray) -> float:
    if hz.size < 2:
        return 0.0
    low, high = np.percentile(hz, [10.0, 90.0])
    return float(12.0 * np.log2(high / low))


def formant_tracks(audio: np.ndarray, rate: int, times: np.ndarray) -> np.ndarray:
    """F1-F3 (Hz, NaN where none) at ``times``, from Praat's FormantPath."""
    from parselmouth.praat import call

    path = call(_sound(audio, rate), "To FormantPath (burg)", 0.005, 5.0, MIDDLE_CEILING_HZ, 0.025, 50.0,
                CEILING_STEP, CEILING_STEPS)
    call(path, "Path finder", 1.0, 1.0, 1.0, 1.0, 5.0, 0.035, "3 3 3", 1.25)
    formant = call(path, "Extract Formant")
    return np.array([[formant.get_value_at_time(n, t) for n in (1, 2, 3)] for t in times], dtype=np.float64)


def voice_traits(clips: Sequence[np.ndarray], rate: int) -> VoiceTraits:
    """The traits of one voice over its lines (each clip one line)."""
    pitches: list[np.ndarray] = []
    spans: list[float] = []
    tracks: list[np.ndarray] = []
    for clip in clips:
        times, hz = voiced_pitch(clip, rate)
        if hz.size == 0:
            continue
        pitches.append(hz)
        spans.append(_span_st(hz))
        tracks.append(formant_tracks(clip, rate, times))
    if not pitches:
        return VoiceTraits(0.0, 0.0, (0.0, 0.0, 0.0))
    formants = np.concatenate(tracks)
    f1, f2, f3 = (float(np.nanmedian(formants[:, n])) for n in range(3))
    m1, m2, m3 = (float(np.nanmean(formants[:, n])) for n in range(3))
    return VoiceTraits(float(np.median(np.concatenate(pitches))), float(np.mean(spans)), (f1, f2, f3),
                       (m1, m2, m3))
