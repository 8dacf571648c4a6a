"""Voice shaping after inference: trim, join, voice design, level, gain, resample.

Everything here bakes into the clip and so belongs to the cache key (via
VoiceParams); gain and pan are mix settings and live in the mixer instead,
so moving a fader never re-synthesizes.
"""

from __future__ import annotations

import numpy as np

from engine.audio.loudness import CLIP_LUFS
from engine.project.defaults import LINE_BOUNDS
from engine.project.design import VoiceDesign
from engine.synth.design import apply_design
from engine.synth.errors import TextError
from engine.synth.wordtimes import ClipWords

# Piper leaves a little silence around each sentence; trim below this level
# (relative to the sentence peak) and keep a short pad so consonants survive.
_TRIM_DB = -45.0
_TRIM_PAD_S = 0.015
_FADE_S = 0.004
_PEAK = 10 ** (-1.0 / 20)  # lines too short for a loudness reading: peak at -1 dBFS
# Silence between two sentences without a direction: the model's sentence pause and a
# delivery's phrase pause (LINE_BOUNDS.phrase_pause_s), with room to spare.
_NATURAL_GAP_S = 2.0


def trim(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """Remove leading/trailing near-silence, keeping a short pad."""
    lo, hi = trim_bounds(audio, sample_rate)
    return audio[lo:hi]


def trim_bounds(audio: np.ndarray, sample_rate: int) -> tuple[int, int]:
    """The (start, end) samples :func:`trim` keeps (word timings move by the start)."""
    if audio.size == 0:
        return 0, 0
    peak = float(np.max(np.abs(audio)))
    if peak <= 1e-6:
        return 0, 0
    loud = np.flatnonzero(np.abs(audio) >= peak * 10 ** (_TRIM_DB / 20))
    pad = int(_TRIM_PAD_S * sample_rate)
    return max(0, int(loud[0]) - pad), min(audio.size, int(loud[-1]) + pad + 1)


def silence(seconds: float, sample_rate: int) -> np.ndarray:
    """``seconds`` of silence, never more than a line may ask for (see :func:`join`)."""
    _check_silence([seconds], 0)
    return np.zeros(int(seconds * sample_rate), dtype=np.float32)


def _check_silence(gaps: list[float], natural: int) -> None:
    """The last guard before silence is allocated: the line's bounds were checked when it
    was loaded and planned (engine/project/bounds.py), but a line that slipped past them
    must fail here, as one line, rather than ask numpy for gigabytes of zeros."""
    most = LINE_BOUNDS.line_pause_s + _NATURAL_GAP_S * natural
    if any(not 0.0 <= gap <= LINE_BOUNDS.line_pause_s for gap in gaps) or sum(gaps) > most:
        raise TextError(f"the line asks for {sum(gaps):g} s of silence; at most {LINE_BOUNDS.line_pause_s:g} s "
                        f"of pauses in one line")


def join(pieces: list[np.ndarray], pauses: list[float], sample_rate: int) -> np.ndarray:
    """Concatenate sentences with the pause that follows each (none after the last)."""
    _check_silence(list(pauses[:len(pieces) - 1]), len(pieces))
    total = sum(p.size for p in pieces) + sum(int(s * sample_rate) for s in pauses[:-1])
    out = np.zeros(total, dtype=np.float32)
    pos = 0
    for i, piece in enumerate(pieces):
        out[pos:pos + piece.size] = piece
        pos += piece.size
        if i < len(pieces) - 1:
            pos += int(pauses[i] * sample_rate)
    return out


def level_loudness(audio: np.ndarray, sample_rate: int, target_lufs: float = CLIP_LUFS) -> np.ndarray:
    """Bring a line to a common loudness, so every role sits at the same level
    until the producer moves its gain. Peak levelling leaves lines with a
    plosive or a shout quieter than their neighbours; loudness levelling is
    what dialogue editors do. Lines shorter than one 400 ms gating block have
    no integrated loudness: they are peak-levelled instead. Peaks may pass
    full scale (the pipeline is float; the master limiter handles peaks)."""
    from engine.audio.loudness import LoudnessMeter

    if audio.size == 0:
        return audio
    meter = LoudnessMeter(sample_rate, channels=1)
    meter.feed(audio[:, None])
    loudness = meter.integrated()
    if not np.isfinite(loudness):
        return level(audio)
    audio *= np.float32(10 ** ((target_lufs - loudness) / 20))
    return audio


def level(audio: np.ndarray) -> np.ndarray:
    """Peak-level to -1 dBFS (the fallback for lines too short to measure)."""
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    if peak > 1e-6:
        audio *= _PEAK / peak
    return audio


def shape_voice(audio: np.ndarray, sample_rate: int, design: VoiceDesign) -> np.ndarray:
    """A joined line through its voice design, levelled to the common
    loudness, then offset by the design's gain: levelling comes after the
    design (a whisper or a darker tilt changes the loudness the listener
    hears), the gain after levelling (or a shouted line would be brought back
    down to the others). ``audio`` is the caller's to modify."""
    audio = level_loudness(np.asarray(apply_design(audio, sample_rate, design), dtype=np.float32), sample_rate)
    if design.gain:
        audio *= np.float32(10 ** (design.gain / 20))
    return audio


def time_scaled(words: ClipWords, rate: float) -> ClipWords:
    """Word timings of a clip whose design spoke it ``rate`` times as fast."""
    if rate == 1.0:
        return words
    return ClipWords(tuple((start / rate, end / rate, n) for start, end, n in words.words), words.estimated)


def pitch_shift(audio: np.ndarray, sample_rate: int, semitones: float) -> np.ndarray:
    """Formant-preserving pitch shift, same length: the voice design's F0
    level alone (engine.synth.design, through WORLD; below a thousandth of a
    semitone, the clip itself).

    Measured with an independent recognizer on 36 held-out sentences
    (bench/shaping_wer.py), Rubber Band's shift down made speech hard to
    follow (word error rate 0.51 at -3 st against 0.105 unshifted) where
    WORLD kept it (0.114); every shift now takes the one WORLD path the
    voice designs take (cost and word error rates in docs/dev/voice-design.md).
    """
    if abs(semitones) < 1e-3:
        return audio
    return apply_design(audio, sample_rate, VoiceDesign(f0_shift=semitones))


def resample(audio: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """Band-limited resampling with libsoxr (VHQ): no aliasing, no imaging."""
    if from_rate == to_rate or audio.size == 0:
        return audio
    import soxr

    return np.ascontiguousarray(soxr.resample(audio, from_rate, to_rate, quality="VHQ"), dtype=np.float32)


def fade_edges(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """Tiny fades so a trimmed edge never clicks."""
    n = min(int(_FADE_S * sample_rate), audio.size // 2)
    if n > 0:
        ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
        audio[:n] *= ramp
        audio[-n:] *= ramp[::-1]
    return audio
