"""Applying a voice design (engine.project.design) to a clip, through WORLD.

A clip is analysed once (engine.synth.world) and every field of the design
moves one of WORLD's parts before the one synthesis:

- F0 level, range and slope move the F0 track, in semitones around the
  line's own median (the envelope stays: formants do not follow the pitch).
- ``formant`` warps the spectral envelope's frequency axis: the envelope
  at f comes from f / formant, so every formant moves by the factor while
  the F0 stays where it is (a shorter or longer vocal tract).
- ``breathiness`` mixes the aperiodicity toward 1 (all noise); at 1 the F0
  is set unvoiced, so the excitation is noise alone: a whisper.
- ``tilt`` tilts the envelope above 1 kHz by that many dB per octave.
- ``rate`` time-scales WORLD's frames, so the pitch and formants stay.

``gain`` is not applied here: it is a level offset the shaping stage adds
after loudness levelling (engine.synth.synthesizer), or it would be undone.
The neutral design returns the clip itself, with no analysis at all.
"""

from __future__ import annotations

import numpy as np

from engine.project.design import VoiceDesign
from engine.synth import world

# Above this the envelope is tilted; below it the fundamental and the first
# formant, which carry the voice's weight, keep their level.
TILT_CORNER_HZ = 1000.0
# A designed F0 is kept inside what WORLD synthesizes cleanly.
F0_MIN_HZ = 40.0
F0_MAX_HZ = 1000.0


def apply_design(audio: np.ndarray, sample_rate: int, design: VoiceDesign,
                 settings: world.WorldSettings = world.SETTINGS) -> np.ndarray:
    """``audio`` (mono float) transformed by ``design`` (its gain aside).

    The result has the input's length divided by ``design.rate``; the
    neutral design (or an empty clip) returns ``audio`` itself."""
    if audio.size == 0 or _shapes_nothing(design):
        return audio
    whisper = design.breathiness >= 1.0
    analysis = world.analyse(audio, sample_rate, settings, aperiodicity=not whisper)
    analysis.f0 = designed_f0(analysis.f0, design)
    if whisper:
        analysis.f0 = np.zeros_like(analysis.f0)
    elif design.breathiness > 0.0:
        analysis.aperiodicity = analysis.aperiodicity + design.breathiness * (1.0 - analysis.aperiodicity)
    if design.formant != 1.0:
        analysis.envelope = warp_frequency(analysis.envelope, design.formant, log=True)
        if not whisper:
            analysis.aperiodicity = warp_frequency(analysis.aperiodicity, design.formant, log=False)
    if design.tilt != 0.0:
        analysis.envelope = analysis.envelope * tilt_gains(design.tilt, sample_rate, analysis.fft_size)
    length = audio.shape[0]
    if design.rate != 1.0:
        _time_scale(analysis, design.rate)
        length = int(round(audio.shape[0] / design.rate))
    if whisper:
        return world.whisper(analysis, length, audio)
    return world.synthesize(analysis, length)


def _shapes_nothing(design: VoiceDesign) -> bool:
    """Neutral but for the gain (which the caller applies)."""
    return design.with_changes(gain=0.0).is_neutral


def designed_f0(f0: np.ndarray, design: VoiceDesign) -> np.ndarray:
    """The F0 track (Hz, 0 = unvoiced) with the design's level, range and
    slope: semitones around the median of the voiced frames, the slope
    running from -slope/2 at the first voiced frame to +slope/2 at the last
    (so it bends the contour without moving its level)."""
    voiced = np.flatnonzero(f0 > 0)
    if voiced.size == 0 or (design.f0_shift == 0.0 and design.f0_range == 1.0 and design.f0_slope == 0.0):
        return f0
    semitones = 12.0 * np.log2(f0[voiced])
    median = float(np.median(semitones))
    moved = median + design.f0_range * (semitones - median) + design.f0_shift
    if design.f0_slope != 0.0:
        span = max(1, int(voiced[-1] - voiced[0]))
        moved += design.f0_slope * ((voiced - voiced[0]) / span - 0.5)
    out = np.zeros_like(f0)
    out[voiced] = np.clip(2.0 ** (moved / 12.0), F0_MIN_HZ, F0_MAX_HZ)
    return out


def warp_frequency(frames: np.ndarray, factor: float, log: bool) -> np.ndarray:
    """Each row's value at bin k taken from bin k / ``factor`` (linear
    interpolation, in the log domain for a power envelope so a formant's
    shape survives; past the top bin the top bin's value is held)."""
    bins = frames.shape[1]
    source = np.arange(bins, dtype=np.float64) / factor
    lower = np.minimum(np.floor(source).astype(np.intp), bins - 2)
    frac = np.clip(source - lower, 0.0, 1.0)
    values = np.log(np.maximum(frames, 1e-300)) if log else frames
    warped: np.ndarray = values[:, lower] * (1.0 - frac) + values[:, lower + 1] * frac
    return np.exp(warped) if log else warped


def tilt_gains(tilt_db_per_octave: float, sample_rate: int, fft_size: int) -> np.ndarray:
    """Power gain per bin: 0 dB up to the corner, then ``tilt`` dB per octave."""
    freqs = np.arange(fft_size // 2 + 1, dtype=np.float64) * sample_rate / fft_size
    octaves = np.log2(np.maximum(freqs, TILT_CORNER_HZ) / TILT_CORNER_HZ)
    return 10.0 ** (tilt_db_per_octave * octaves / 10.0)


def _time_scale(analysis: world.Analysis, rate: float) -> None:
    """Resample the frame sequence so it lasts 1/rate as long: envelope and
    aperiodicity interpolated between neighbouring frames, F0 interpolated
    where both neighbours are voiced and otherwise taken from the nearer."""
    frames = analysis.f0.shape[0]
    count = max(1, int(round((frames - 1) / rate)) + 1)
    source = np.minimum(np.arange(count, dtype=np.float64) * rate, frames - 1)
    lower = np.minimum(np.floor(source).astype(np.intp), max(0, frames - 2))
    upper = np.minimum(lower + 1, frames - 1)
    frac = (source - lower)[:, None]
    analysis.envelope = analysis.envelope[lower] * (1.0 - frac) + analysis.envelope[upper] * frac
    analysis.aperiodicity = analysis.aperiodicity[lower] * (1.0 - frac) + analysis.aperiodicity[upper] * frac
    f0 = analysis.f0
    both = (f0[lower] > 0) & (f0[upper] > 0)
    nearest = np.where(frac[:, 0] < 0.5, f0[lower], f0[upper])
    with np.errstate(divide="ignore"):
        blended = np.exp(np.log(np.where(both, f0[lower], 1.0)) * (1.0 - frac[:, 0])
                         + np.log(np.where(both, f0[upper], 1.0)) * frac[:, 0])
    analysis.f0 = np.where(both, blended, nearest)
