"""Applying a voice design (engine.project.design) to a clip.

Two methods make a design, and :func:`apply_design` picks by what it asks:

- A design without breath goes through PSOLA (engine.synth.psola): the
  voice's own periods re-laid at the designed pitch and duration, formants
  moved by resampling. Cheaper than the vocoder and kinder to the words
  (measured: docs/dev/voice-design.md).
- A breathy design or a whisper goes through WORLD (engine.synth.world),
  analysed once, every field moving one of its parts before the one
  synthesis: F0 level, range and slope move the F0 track (around the line's
  median, engine.synth.pitch_contour; the jitter on each frame); ``formant`` warps the spectral
  envelope's frequency axis (the envelope at f comes from f / formant);
  ``breathiness`` mixes the aperiodicity toward 1 (all noise; at 1 the
  excitation is noise alone: a whisper); ``rate`` time-scales the frames.

``tilt`` tilts the spectrum above 1 kHz by that many dB per octave in both.
``gain`` is not applied here: it is a level offset the shaping stage adds
after loudness levelling (engine.synth.shaping), or it would be undone. The
neutral design returns the clip itself, with no analysis at all.
"""

from __future__ import annotations

import numpy as np

from engine.project.design import VoiceDesign
from engine.synth import psola, world
from engine.synth.pitch_contour import ContourCentre, designed_contour

# Above this the spectrum is tilted; below it the fundamental and the first
# formant, which carry the voice's weight, keep their level.
TILT_CORNER_HZ = 1000.0
# What a design made through WORLD is, in the clip keys (Praat's F0 since DIO's
# octave error on the bundled voice, engine.synth.world.SETTINGS).
WORLD_METHOD = "world-design-2"


def shaping_method(design: VoiceDesign) -> str | None:
    """What makes ``design``'s samples, for the clip keys; None for a design
    that shapes nothing."""
    if _shapes_nothing(design):
        return None
    return psola.PSOLA_METHOD if psola.takes(design) else WORLD_METHOD


def apply_design(audio: np.ndarray, sample_rate: int, design: VoiceDesign,
                 settings: world.WorldSettings = world.SETTINGS, centre: ContourCentre | None = None) -> np.ndarray:
    """``audio`` (mono float) transformed by ``design`` (its gain aside);
    ``settings``: the WORLD analysis, for a design that takes that path;
    ``centre``: the median the pitch range moves around, for a line shaped in parts.

    The result has the input's length divided by ``design.rate``; the
    neutral design (or an empty clip) returns ``audio`` itself."""
    if audio.size == 0 or _shapes_nothing(design):
        return audio
    if psola.takes(design):
        return apply_overlap_add(audio, sample_rate, design, centre)
    return apply_world(audio, sample_rate, design, settings, centre)


def apply_overlap_add(audio: np.ndarray, sample_rate: int, design: VoiceDesign,
                      centre: ContourCentre | None = None) -> np.ndarray:
    """``design`` made through PSOLA, its tilt after it (the path of designs without
    breath; a breath it asks for is not made)."""
    moved = psola.apply_psola(audio, sample_rate, design, centre)
    return tilted(moved, sample_rate, design.tilt) if design.tilt != 0.0 else moved


def apply_world(audio: np.ndarray, sample_rate: int, design: VoiceDesign,
                settings: world.WorldSettings = world.SETTINGS, centre: ContourCentre | None = None) -> np.ndarray:
    """``design`` made through WORLD, whatever it asks (the breathy designs' path)."""
    whisper = design.breathiness >= 1.0
    analysis = world.analyse(audio, sample_rate, settings, aperiodicity=not whisper)
    analysis.f0 = designed_f0(analysis.f0, design, centre)
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


def tilted(audio: np.ndarray, sample_rate: int, tilt_db_per_octave: float) -> np.ndarray:
    """``audio`` with its spectrum tilted above the corner, zero-phase (one FFT of the clip)."""
    size = audio.shape[0]
    if size < 2:
        return audio
    gains = np.sqrt(tilt_gains(tilt_db_per_octave, sample_rate, size))
    return np.asarray(np.fft.irfft(np.fft.rfft(audio.astype(np.float64)) * gains, n=size), dtype=np.float32)


def _shapes_nothing(design: VoiceDesign) -> bool:
    """Neutral but for the gain (which the caller applies)."""
    return design.with_changes(gain=0.0).is_neutral


def designed_f0(f0: np.ndarray, design: VoiceDesign, centre: ContourCentre | None = None) -> np.ndarray:
    """The F0 track (Hz, 0 = unvoiced) with the design's level, range, slope
    and jitter (engine.synth.pitch_contour), over the voiced frames."""
    voiced = np.flatnonzero(f0 > 0)
    if voiced.size == 0 or (design.f0_shift == 0.0 and design.f0_range == 1.0 and design.f0_slope == 0.0
                            and design.jitter == 0.0):
        return f0
    out = np.zeros_like(f0)
    out[voiced] = designed_contour(voiced.astype(np.float64), f0[voiced], design, centre)
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
