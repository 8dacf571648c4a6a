"""The WORLD vocoder (pyworld): one analysis of a clip, one synthesis.

WORLD splits speech into its fundamental frequency (DIO refined by
StoneMask, or Harvest), the spectral envelope (CheapTrick) and the
aperiodicity (D4C), and synthesizes it again from them. Every voice design
(engine.synth.design) moves those three parts: the pitch, the vocal tract
and the breath are separate there, which is what lets one installed voice
become many characters. Measured with an independent recognizer on held-out
sentences, scaling only the F0 keeps lines intelligible where the Rubber
Band shift did not (bench/shaping_wer.py; the figures are in docs/dev/voice-design.md).

:data:`SETTINGS` (estimator, frame period, FFT size) was chosen by
measuring speed and word error rate side by side (bench/voice_design.py),
then the estimator by where the pitch lands. Only breathy designs and
whispers come here; the rest are PSOLA's (engine.synth.design).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import ModuleType

import numpy as np


@functools.cache
def _pyworld() -> ModuleType:
    """pyworld's package init (0.3.5, the newest on the index for this Python) imports
    pkg_resources, a part of setuptools, only to read its own version: where setuptools
    is absent the compiled module is loaded by itself."""
    try:
        import pyworld

        module: ModuleType = pyworld
        return module
    except ModuleNotFoundError as exc:
        if exc.name != "pkg_resources":
            raise
    import importlib.machinery
    import importlib.util
    import sysconfig
    from pathlib import Path

    # Where the package is (found, not imported: its init is what fails), then the
    # install's site folders. The desktop build has it under its own folder only.
    spec_of_package = importlib.util.find_spec("pyworld")
    folders = [*(spec_of_package.submodule_search_locations or [] if spec_of_package else []),
               *(str(Path(site, "pyworld")) for site in (sysconfig.get_paths()["platlib"],
                                                          sysconfig.get_paths()["purelib"]))]
    for folder in dict.fromkeys(folders):
        for so in sorted(Path(folder).glob("pyworld*.so")) + sorted(Path(folder).glob("pyworld*.pyd")):
            loader = importlib.machinery.ExtensionFileLoader("pyworld.pyworld", str(so))
            spec = importlib.util.spec_from_loader("pyworld.pyworld", loader)
            if spec is None:
                continue
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            return module
    raise ImportError("the WORLD vocoder is missing: pip install pyworld")


@dataclass(frozen=True)
class WorldSettings:
    """How a clip is analysed. ``estimator``: ``dio`` (DIO + StoneMask) or
    ``harvest``; ``frame_ms``: the frame period; ``fft_size``: CheapTrick's
    and D4C's FFT length (0 = WORLD's default for the sample rate)."""

    estimator: str = "dio"
    frame_ms: float = 5.0
    fft_size: int = 0


# Praat's F0, not DIO's: on the bundled voice (about 88 Hz) DIO reads the octave
# above, and a design made on it sounded an octave above the one asked for (a
# role at -3 st came out at 144 Hz instead of 74; measured with Praat,
# docs/dev/voice-design.md). Directions found it first (docs/dev/direction.md).
SETTINGS = WorldSettings(estimator="praat")

# The F0 search range. The floor is WORLD's own (it also sets CheapTrick's
# window, and so the FFT size: 1024 at 22.05 and 24 kHz); the ceiling is
# above a child's highest speaking pitch.
F0_FLOOR_HZ = 71.0
F0_CEIL_HZ = 700.0


@dataclass
class Analysis:
    """One clip in WORLD's parts, one row per frame: ``f0`` in Hz (0 =
    unvoiced), ``envelope`` (power spectrum) and ``aperiodicity`` (0 = pulse,
    1 = noise) over ``fft_size // 2 + 1`` bins."""

    f0: np.ndarray
    envelope: np.ndarray
    aperiodicity: np.ndarray
    sample_rate: int
    settings: WorldSettings

    @property
    def fft_size(self) -> int:
        return int(self.envelope.shape[1] - 1) * 2


def analyse(audio: np.ndarray, sample_rate: int, settings: WorldSettings = SETTINGS,
            aperiodicity: bool = True) -> Analysis:
    """Analyse ``audio`` once. Without ``aperiodicity`` (a whisper needs none:
    its excitation is all noise) D4C, the dearest step, is skipped and the
    aperiodicity is 1 everywhere."""
    pw = _pyworld()
    x = np.ascontiguousarray(audio, dtype=np.float64)
    if settings.estimator == "harvest":
        f0, times = pw.harvest(x, sample_rate, f0_floor=F0_FLOOR_HZ, f0_ceil=F0_CEIL_HZ,
                               frame_period=settings.frame_ms)
    elif settings.estimator == "dio":
        f0, times = pw.dio(x, sample_rate, f0_floor=F0_FLOOR_HZ, f0_ceil=F0_CEIL_HZ,
                           frame_period=settings.frame_ms)
        f0 = pw.stonemask(x, f0, times, sample_rate)
    elif settings.estimator == "praat":
        f0, times = _praat_f0(x, sample_rate, settings.frame_ms)
    else:
        raise ValueError(f"unknown F0 estimator {settings.estimator!r} (known: dio, harvest, praat)")
    fft_size = settings.fft_size or int(pw.get_cheaptrick_fft_size(sample_rate, F0_FLOOR_HZ))
    envelope = pw.cheaptrick(x, f0, times, sample_rate, f0_floor=F0_FLOOR_HZ, fft_size=fft_size)
    if aperiodicity:
        aper = pw.d4c(x, f0, times, sample_rate, fft_size=fft_size)
    else:
        aper = np.ones_like(envelope)
    return Analysis(f0, envelope, aper, sample_rate, settings)


def _praat_f0(x: np.ndarray, sample_rate: int, frame_ms: float) -> tuple[np.ndarray, np.ndarray]:
    """Praat's autocorrelation pitch (praat-parselmouth) on WORLD's frame times. On the
    bundled Piper voice (about 90 Hz) DIO reads the octave above and Harvest half of
    the frames so; Praat's track resynthesizes at the voice's own pitch and voicing
    (docs/dev/direction.md)."""
    import parselmouth

    times = np.arange(int(x.shape[0] / sample_rate * 1000 / frame_ms) + 1) * frame_ms / 1000
    if x.shape[0] < 3.0 / F0_FLOOR_HZ * sample_rate:
        return np.zeros_like(times), times  # shorter than three of the lowest periods: Praat finds none
    pitch = parselmouth.Sound(x, sample_rate).to_pitch_ac(time_step=frame_ms / 1000, pitch_floor=F0_FLOOR_HZ,
                                                         pitch_ceiling=F0_CEIL_HZ)
    frequency = pitch.selected_array["frequency"]  # 0 where unvoiced
    if frequency.size == 0:
        return np.zeros_like(times), times
    nearest = np.clip(np.round((times - pitch.x1) / pitch.dx).astype(np.int64), 0, frequency.size - 1)
    return np.ascontiguousarray(frequency[nearest], dtype=np.float64), times


def synthesize(analysis: Analysis, length: int) -> np.ndarray:
    """The analysis as audio of exactly ``length`` samples (WORLD rounds to
    whole frames)."""
    pw = _pyworld()
    y = pw.synthesize(np.ascontiguousarray(analysis.f0), np.ascontiguousarray(analysis.envelope),
                      np.ascontiguousarray(analysis.aperiodicity), analysis.sample_rate,
                      frame_period=analysis.settings.frame_ms)
    out = np.zeros(length, dtype=np.float32)
    n = min(length, y.shape[0])
    out[:n] = y[:n]
    return out


# What a whisper is made by, in the clip keys of whispered clips and phrases: a
# change to :func:`whisper` changes this, so no cache serves the old samples.
WHISPER_METHOD = "whisper-noise-ola-1"
# A whisper's noise is drawn from this seed: the same clip whispers the same way
# every time (the clip cache keys a performance, not a draw).
WHISPER_SEED = 0x5EED


def whisper(analysis: Analysis, length: int, loudness_of: np.ndarray) -> np.ndarray:
    """The analysis' spectral envelope excited by noise alone: a whisper of
    exactly ``length`` samples, as loud (RMS) as ``loudness_of``.

    Not WORLD's own synthesis with the F0 set unvoiced: that places its noise on
    a fixed pulse grid, and the grid is heard (Praat finds a third of such a
    whisper voiced, at about 330 Hz). Here each frame is the envelope's
    magnitude with random phase, overlap-added with a Hann window, so the
    excitation has no period at all."""
    frames, bins = analysis.envelope.shape
    fft_size = (bins - 1) * 2
    hop = analysis.sample_rate * analysis.settings.frame_ms / 1000.0
    rng = np.random.default_rng(WHISPER_SEED)
    phase = rng.uniform(0.0, 2.0 * np.pi, size=(frames, bins))
    grains = np.fft.irfft(np.sqrt(analysis.envelope) * np.exp(1j * phase), n=fft_size, axis=1)
    window = np.hanning(fft_size)
    starts = np.round(np.arange(frames) * hop).astype(np.intp) - fft_size // 2
    out = np.zeros(max(length, 1) + 2 * fft_size, dtype=np.float64)
    weight = np.zeros_like(out)
    for frame in range(frames):
        at = starts[frame] + fft_size
        out[at:at + fft_size] += grains[frame] * window
        weight[at:at + fft_size] += window * window
    out = out[fft_size:fft_size + length] / np.maximum(weight[fft_size:fft_size + length], 1e-3)
    target = float(np.sqrt(np.mean(np.square(loudness_of, dtype=np.float64)))) if loudness_of.size else 0.0
    level = float(np.sqrt(np.mean(np.square(out)))) if out.size else 0.0
    return (out * (target / level if level > 0.0 else 0.0)).astype(np.float32)
