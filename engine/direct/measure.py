"""How closely a take follows a read, and whether it is still the role: the figures the
bench prints and the tests assert (docs/dev/direct-by-voice.md).

- F0: both are aligned to the line's words (engine/listen/align.py); each voiced frame
  of the take is placed in the read by the word edges around it, and Pearson's r is
  taken over the frames voiced in both, in semitones. A pitch tracker's octave slips
  (a frame read an octave off its neighbours, or off the whole line) are dropped
  first: they are the tracker's, not the voice's.
- Onsets: each word's start in the take against the read's, after the one offset
  that best lines the two up (the median): a take that starts later but keeps the
  read's rhythm follows it.
- Identity: the speaker encoder's similarity (engine/listen/speaker.py) of the take
  to the role's plain voice and to the read.
- Words: the word error rate a listener who has not read the line hears
  (engine/listen/heard.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.listen.align import align_words
from engine.listen.recognizer import Word
from engine.listen.vad import VAD_RATE

PITCH_FLOOR_HZ = 60.0
PITCH_CEILING_HZ = 700.0
OCTAVE_SLIP_ST = 5.0  # a frame this far from its neighbours' median is a tracker's slip
FAR_ST = 10.0  # a frame this far from the whole line's median is one too (a run of them at a creaky end)
_MEDIAN_FRAMES = 9
_SAME_FRAME_S = 0.011
HEARD_PAUSE_S = 0.3  # a pause the recognizer hears is cut to this (see word_error_rate)
SILENCE_DB = -45.0  # a take frame placed within this of a voiced read frame is compared


@dataclass(frozen=True)
class Follow:
    """How a clip follows a read: F0 correlation (None: too few frames voiced in both),
    the largest onset difference in seconds, and how many frames were compared."""

    f0_r: float | None
    onset_s: float
    frames: int


def aligned(audio: np.ndarray, rate: int, words: Sequence[str]) -> list[Word] | None:
    """``words`` aligned in ``audio`` (those the dictionary lacks as espeak-ng says them)."""
    import soxr

    from engine.check.pronounce import unknown_words
    from engine.listen.recognizer import pronunciations

    audio16 = np.asarray(soxr.resample(np.asarray(audio, dtype=np.float32), rate, VAD_RATE, quality="HQ"),
                         dtype=np.float32)
    return align_words(audio16, words, unknown_words(words, pronunciations(), {}))


def pitch_semitones(audio: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(seconds, semitones) of the voiced frames, octave slips dropped."""
    import parselmouth

    sound = parselmouth.Sound(np.asarray(audio, dtype=np.float64), sampling_frequency=rate)
    pitch = sound.to_pitch_ac(time_step=0.01, pitch_floor=PITCH_FLOOR_HZ, pitch_ceiling=PITCH_CEILING_HZ)
    hz = np.asarray(pitch.selected_array["frequency"], dtype=np.float64)
    times = np.asarray(pitch.xs(), dtype=np.float64)
    voiced = hz > 0
    times, st = times[voiced], 12.0 * np.log2(hz[voiced])
    if st.size >= _MEDIAN_FRAMES:
        from scipy.ndimage import median_filter

        keep = (np.abs(st - median_filter(st, size=_MEDIAN_FRAMES, mode="nearest")) <= OCTAVE_SLIP_ST) & (
            np.abs(st - np.median(st)) <= FAR_ST)
        times, st = times[keep], st[keep]
    return times, st


def follow(clip: np.ndarray, clip_rate: int, clip_words: Sequence[Word], read: np.ndarray, read_rate: int,
           read_words: Sequence[Word]) -> Follow:
    """How ``clip`` follows ``read`` (both aligned to the same words)."""
    a = np.array([[w.start_s, w.end_s] for w in clip_words]).ravel()
    b = np.array([[w.start_s, w.end_s] for w in read_words]).ravel()
    a, b = np.maximum.accumulate(a), np.maximum.accumulate(b)
    starts = np.array([w.start_s for w in clip_words]) - np.array([w.start_s for w in read_words])
    onset = float(np.max(np.abs(starts - np.median(starts))))
    clip_t, clip_st = pitch_semitones(clip, clip_rate)
    read_t, read_st = pitch_semitones(read, read_rate)
    inside = (clip_t >= a[0]) & (clip_t <= a[-1])
    at = np.interp(clip_t[inside], a, b)
    if read_t.size < 3 or at.size < 3:
        return Follow(None, onset, 0)
    nearest = np.clip(np.searchsorted(read_t, at), 1, read_t.size - 1)
    gap = np.minimum(np.abs(read_t[nearest] - at), np.abs(read_t[nearest - 1] - at))
    both = gap <= _SAME_FRAME_S
    if both.sum() < 10:
        return Follow(None, onset, int(both.sum()))
    x = clip_st[inside][both]
    y = np.interp(at[both], read_t, read_st)
    r = float(np.corrcoef(x, y)[0, 1]) if x.std() > 0 and y.std() > 0 else 0.0
    return Follow(r, onset, int(both.sum()))


def similarity(a: np.ndarray, a_rate: int, b: np.ndarray, b_rate: int) -> float:
    """The speaker encoder's cosine similarity of two clips."""
    from engine.listen.speaker import encoder
    from engine.listen.speaker import similarity as cosine

    enc = encoder()
    return float(cosine(enc.embed(a, a_rate), enc.embed(b, b_rate)))


def word_error_rate(texts: Sequence[str], clips: Sequence[np.ndarray], rate: int) -> float:
    """What a listener who has not read the lines hears, against their words (errors over
    all their words). Each pause is cut to :data:`HEARD_PAUSE_S` first: pocketsphinx takes
    its cepstral mean over the whole utterance, so silence alone moves what it hears (the
    plain line with 0.6 s of silence laid between its sentences loses a word it heard
    without: docs/dev/direct-by-voice.md), and a take that holds the read's pause must not
    be scored for the recognizer's arithmetic."""
    from engine.listen.heard import GeneralRecognizer

    return GeneralRecognizer().word_error_rate(list(texts), [pauses_cut(c, rate) for c in clips], rate)


def pauses_cut(audio: np.ndarray, rate: int, longest_s: float | None = None) -> np.ndarray:
    """``audio`` with every stretch quieter than :data:`SILENCE_DB` under its peak (10 ms
    frames) cut to ``longest_s``."""
    longest = HEARD_PAUSE_S if longest_s is None else longest_s
    samples = np.asarray(audio, dtype=np.float32)
    hop = max(1, rate // 100)
    frames = samples.size // hop
    if frames < 3:
        return samples
    power = np.square(samples[:frames * hop].reshape(frames, hop), dtype=np.float64).mean(axis=1)
    quiet = 10.0 * np.log10(power + 1e-20) < 10.0 * np.log10(power.max() + 1e-20) + SILENCE_DB
    keep = np.ones(samples.size, dtype=bool)
    run = 0
    allowed = int(longest * 100)
    for k in range(frames):
        run = run + 1 if quiet[k] else 0
        if run > allowed:
            keep[k * hop:(k + 1) * hop] = False
    return samples[keep]
