"""A directed take's intonation and loudness: the read's contours on the role's voice.

engine/synth/read_transfer.py moves a plain clip onto a producer's read; here is what
it takes of the read beyond its timing. Pitch: the read's F0 (Praat's autocorrelation,
in the designs' range) in semitones, relative to the read's median and its 10th-90th
percentile range, placed on the plain clip's median and range, so a man's read makes a
woman's take rise where he rose, at her pitch; frames where the read is silent or
unvoiced keep their own. Loudness: the read's smoothed envelope against the take's,
both relative to their speech level, as a bounded gain. Only these contours come from
the read, never its spectrum: the reader's timbre does not reach the take.
"""

from __future__ import annotations

import numpy as np

from engine.synth.pitch_contour import F0_MAX_HZ, F0_MIN_HZ
from engine.synth.psola import PITCH_CEILING_HZ, PITCH_FLOOR_HZ, TIME_STEP_S, tier_points

# Ranges below this (semitones) are read as this: a monotone read must not blow up the rest.
MIN_RANGE_ST = 1.0
# A plain frame whose read time is further than this from a voiced frame of the read keeps
# its own pitch (the read is silent or unvoiced there: nothing to follow).
VOICED_REACH_S = 0.12
# The loudness contour: analysis window and smoothing, and how far it may move the take.
ENVELOPE_WINDOW_S = 0.05
ENVELOPE_SMOOTH_S = 0.12
MAX_GAIN_DB = 9.0
SPEECH_FLOOR_DB = 35.0  # frames within this of the loudest are speech (the envelope is followed there)


def _semitones(hz: np.ndarray) -> np.ndarray:
    return np.asarray(12.0 * np.log2(np.maximum(hz, 1e-6)))


def _centre_and_range(st: np.ndarray) -> tuple[float, float]:
    """A contour's median and its range (10th to 90th percentile, so an octave slip of
    the pitch tracker does not set it), in semitones."""
    lo, mid, hi = np.percentile(st, [10, 50, 90])
    return float(mid), max(MIN_RANGE_ST, float(hi - lo))


def read_pitch(audio: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """The read's voiced frames: (seconds, Hz), by Praat's autocorrelation pitch, in the
    range the designs use."""
    import parselmouth

    sound = parselmouth.Sound(np.asarray(audio, dtype=np.float64), sampling_frequency=rate)
    pitch = sound.to_pitch_ac(time_step=TIME_STEP_S, pitch_floor=PITCH_FLOOR_HZ, pitch_ceiling=PITCH_CEILING_HZ)
    hz = np.asarray(pitch.selected_array["frequency"], dtype=np.float64)
    times = np.asarray(pitch.xs(), dtype=np.float64)
    voiced = hz > 0
    return times[voiced], hz[voiced]


def follow_pitch(manipulation: object, plain: np.ndarray, read: np.ndarray, read_audio: np.ndarray, read_rate: int,
                 intonation: float, xmin: float, xmax: float) -> None:
    """The manipulation's pitch tier replaced by the read's contour on the plain clip's register,
    ``intonation`` (0..1) of the way from its own; ``plain`` and ``read``: matched anchors
    (seconds of the manipulation's sound and of the read)."""
    from parselmouth.praat import call

    own = call(manipulation, "Extract pitch tier")
    points = tier_points(own)
    read_t, read_hz = read_pitch(read_audio, read_rate)
    if points.shape[0] < 2 or read_t.size < 2:
        return
    times, plain_st = points[:, 0], _semitones(points[:, 1])
    read_st = _semitones(read_hz)
    plain_mid, plain_range = _centre_and_range(plain_st)
    read_mid, read_range = _centre_and_range(read_st)
    at = np.interp(times, plain, read)  # each point's moment in the read
    nearest = np.abs(read_t[np.clip(np.searchsorted(read_t, at), 0, read_t.size - 1)] - at)
    before = np.abs(read_t[np.clip(np.searchsorted(read_t, at) - 1, 0, read_t.size - 1)] - at)
    followed = np.minimum(nearest, before) <= VOICED_REACH_S
    placed = plain_mid + (np.interp(at, read_t, read_st) - read_mid) / read_range * plain_range
    moved = np.where(followed, plain_st + intonation * (placed - plain_st), plain_st)
    hz = np.clip(2.0 ** (moved / 12.0), F0_MIN_HZ, F0_MAX_HZ)
    tier = call("Create PitchTier", "read", xmin, xmax)
    for t, value in zip(times, hz, strict=True):
        call(tier, "Add point", float(t), float(value))
    call([manipulation, tier], "Replace pitch tier")


def _envelope_db(audio: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(frame times, level in dB) every 10 ms over a window, smoothed; relative to the
    median level of its speech frames."""
    hop = max(1, rate // 100)
    win = max(hop, int(ENVELOPE_WINDOW_S * rate))
    if audio.size < win:
        return np.zeros(1), np.zeros(1)
    power = np.convolve(np.square(audio, dtype=np.float64), np.ones(win) / win, mode="same")[::hop]
    db = 10.0 * np.log10(power + 1e-12)
    smooth = max(1, int(ENVELOPE_SMOOTH_S * 100))
    db = np.convolve(np.pad(db, (smooth // 2, smooth - 1 - smooth // 2), mode="edge"), np.ones(smooth) / smooth,
                     mode="valid")
    speech = db >= db.max() - SPEECH_FLOOR_DB
    level = float(np.median(db[speech])) if speech.any() else 0.0
    return np.arange(db.size) * hop / rate, np.where(speech, db - level, np.nan)


def follow_loudness(out: np.ndarray, rate: int, take_anchors: np.ndarray, read_anchors: np.ndarray,
                    read_audio: np.ndarray, read_rate: int, intonation: float) -> np.ndarray:
    """The take's level moved toward the read's contour (both relative to their own level),
    ``intonation`` (0..1) of the way."""
    take_t, take_db = _envelope_db(out, rate)
    read_t, read_db = _envelope_db(read_audio, read_rate)
    at = np.interp(take_t, take_anchors, read_anchors)
    read_here = np.interp(at, read_t, np.nan_to_num(read_db, nan=-np.inf))
    gain = np.where(np.isfinite(take_db) & np.isfinite(read_here),
                    np.clip(np.nan_to_num(read_here - take_db), -MAX_GAIN_DB, MAX_GAIN_DB), 0.0)
    gain *= intonation
    smooth = max(1, int(ENVELOPE_SMOOTH_S * 100))
    gain = np.convolve(np.pad(gain, (smooth // 2, smooth - 1 - smooth // 2), mode="edge"),
                       np.ones(smooth) / smooth, mode="valid")
    per_sample = np.interp(np.arange(out.size) / rate, take_t, gain)
    return np.asarray(out * np.power(10.0, per_sample / 20.0), dtype=np.float32)
