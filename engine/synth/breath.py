"""Breath in a performance: aspiration, the whisper, and the breaths and laughs a script asks for.

A direction's breath is its own stage, after the phrase's design (pitch, rate,
tilt: engine.synth.design) and before the line is levelled:

- :func:`aspirate` adds breath to a voice the way a breathy speaker does: the
  voice's own spectral envelope excited by noise (engine.synth.world
  ``whisper``) takes over the band above :data:`CROSSOVER_HZ` in proportion
  to the amount, and the band below keeps the voice. At 1 it is a whisper:
  noise alone above the crossover, and below it a thread of the voice
  :data:`WHISPER_VOICE_DB` under the noise, as a stage whisper carries.
  Noise in the band of the first formants is what DNSMOS (engine.listen.quality)
  and the speaker encoder hear as damage: a whisper or a breathy voice made
  with noise at every frequency (WORLD's aperiodicity, noise-excited LPC)
  scored an overall DNSMOS of 1.6-2.0 whatever the excitation, against 3.1-3.3
  for the same lines said plainly, and WORLD's breathiness 0.35 (a tearful
  line) 2.6-2.7; docs/dev/direction.md has the measurements.
- :func:`exhale` is an exhaled breath (a sigh) in the voice's own timbre: noise
  with the long-term spectrum of the phrase it goes with, rising fast and
  dying away.
- :func:`chuckle` is a light laugh: three short breathy syllables cut from
  the phrase's own loudest vowel, each a little lower and quieter.

Every noise is drawn from a fixed seed: the same clip breathes the same way
every time (the clip cache keys a performance, not a draw).
"""

from __future__ import annotations

import numpy as np

from engine.synth import world

# What makes breath's samples, in the clip keys of the phrases that have it: a
# change to this module changes this, so no cache serves the old samples.
BREATH_METHOD = "breath-split-1"
# Above this the voice's breath takes over; below it the voice keeps its harmonics.
CROSSOVER_HZ = 1200.0
# A whisper's thread of voice below the crossover, against the noise above it (RMS).
WHISPER_VOICE_DB = -2.0
_ORDER = 4  # Butterworth order of the crossover (zero phase: filtered forwards and back)
_SEED = 0xB4EA7


def aspirate(audio: np.ndarray, sample_rate: int, amount: float) -> np.ndarray:
    """``audio`` with ``amount`` (0..1) of breath; 1 is a whisper. Same length."""
    if amount <= 0.0 or audio.size < _min_length(sample_rate):
        return audio
    amount = min(1.0, amount)
    voice = np.asarray(audio, dtype=np.float64)
    noise = _envelope_noise(voice, sample_rate)
    low_voice, high_voice = _split(voice, sample_rate)
    _, high_noise = _split(noise, sample_rate)
    # The noise takes the upper band's power share ``amount``, at the voice's upper-band level.
    high_noise *= _rms(high_voice) / max(_rms(high_noise), 1e-12)
    high = np.sqrt(1.0 - amount) * high_voice + np.sqrt(amount) * high_noise
    # Below the crossover the voice is held under the breath above it, moment by moment
    # (a vowel strong in its first formant as much as a weak one), fully so in a whisper.
    thread = _under(low_voice, high_noise, sample_rate, WHISPER_VOICE_DB)
    low = low_voice * thread ** (amount ** 3)
    return np.asarray(low + high, dtype=np.float32)


def exhale(voice: np.ndarray, sample_rate: int, seconds: float = 0.7) -> np.ndarray:
    """An exhaled breath ``seconds`` long in ``voice``'s timbre, its RMS 14 dB under the voice's."""
    n = int(seconds * sample_rate)
    if n <= 0 or voice.size < _min_length(sample_rate):
        return np.zeros(max(n, 0), dtype=np.float32)
    spectrum = _long_term_spectrum(voice, sample_rate)
    rng = np.random.default_rng(_SEED + 1)
    size = 2 * (spectrum.size - 1)
    hop = size // 4
    frames = n // hop + 4
    grains = np.fft.irfft(spectrum * np.exp(1j * rng.uniform(0, 2 * np.pi, (frames, spectrum.size))), n=size)
    out = _overlap_add(grains, hop, n)
    _, out = _split(out, sample_rate, 400.0)  # a breath has no voice below the first formant
    t = np.arange(n) / sample_rate
    attack = min(0.15, seconds / 4)
    shape = np.minimum(1.0, t / attack) * np.exp(-np.maximum(0.0, t - attack) / (seconds / 3))
    out *= shape
    return (out * (_rms(np.asarray(voice, np.float64)) / max(_rms(out), 1e-12)) * 10 ** (-14 / 20)).astype(np.float32)


def chuckle(voice: np.ndarray, sample_rate: int, syllables: int = 3) -> np.ndarray:
    """A light laugh from ``voice``'s loudest vowel: ``syllables`` breathy syllables 0.17 s
    apart, each one semitone lower and 3 dB quieter, the first 4 dB under the voice."""
    grain_s, step_s = 0.09, 0.17
    grain = int(grain_s * sample_rate)
    x = np.asarray(voice, dtype=np.float64)
    if x.size < max(grain * 2, _min_length(sample_rate)):
        return np.zeros(0, dtype=np.float32)
    hop = grain // 4
    energy = np.convolve(x * x, np.ones(grain), mode="valid")[::hop]
    at = int(np.argmax(energy)) * hop
    vowel = x[at:at + grain]
    breathy = np.asarray(aspirate(vowel, sample_rate, 0.5), dtype=np.float64)
    step = int(step_s * sample_rate)
    out = np.zeros(step * (syllables - 1) + 2 * grain)
    for k in range(syllables):
        ratio = 2 ** ((2 - k) / 12)  # +2, +1, 0 semitones: resampled, so the vowel is a touch brighter too
        source = np.arange(0, grain - 1, ratio)
        syllable = np.interp(source, np.arange(grain), breathy)
        syllable *= np.hanning(syllable.size) ** 0.5 * 10 ** ((-4 - 3 * k) / 20)
        start = k * step
        out[start:start + syllable.size] += syllable
    level = _rms(x) / max(_rms(vowel), 1e-12)
    return (out * level).astype(np.float32)


def _envelope_noise(voice: np.ndarray, sample_rate: int) -> np.ndarray:
    """The voice's spectral envelope excited by noise alone, as loud as the voice."""
    analysis = world.analyse(voice, sample_rate, aperiodicity=False)
    return np.asarray(world.whisper(analysis, voice.shape[0], voice), dtype=np.float64)


def _under(low: np.ndarray, high: np.ndarray, sample_rate: int, db: float) -> np.ndarray:
    """Per sample, the gain (at most 1) that keeps ``low``'s power ``db`` under ``high``'s
    over 30 ms windows."""
    from scipy.ndimage import uniform_filter1d

    window = max(1, int(0.03 * sample_rate))
    low_power = uniform_filter1d(low * low, window) + 1e-12
    high_power = uniform_filter1d(high * high, window) + 1e-12
    gain = np.minimum(1.0, 10 ** (db / 20) * np.sqrt(high_power / low_power))
    return np.asarray(uniform_filter1d(gain, window), dtype=np.float64)


def _split(x: np.ndarray, sample_rate: int, crossover: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(below, above) ``crossover`` (:data:`CROSSOVER_HZ` unless given): zero-phase
    Butterworth, so the bands add back in time."""
    from scipy.signal import butter, sosfiltfilt

    crossover = crossover or CROSSOVER_HZ
    low = sosfiltfilt(butter(_ORDER, crossover, "low", fs=sample_rate, output="sos"), x)
    high = sosfiltfilt(butter(_ORDER, crossover, "high", fs=sample_rate, output="sos"), x)
    return low, high


def _long_term_spectrum(voice: np.ndarray, sample_rate: int, size: int = 1024) -> np.ndarray:
    """The voice's mean magnitude spectrum, smoothed across its harmonics."""
    x = np.asarray(voice, dtype=np.float64)
    hop = size // 2
    count = max(1, (x.size - size) // hop + 1)
    frames = np.stack([np.pad(x[i * hop:i * hop + size], (0, max(0, size - x[i * hop:i * hop + size].size)))
                       for i in range(count)])
    power = np.mean(np.abs(np.fft.rfft(frames * np.hanning(size), axis=1)) ** 2, axis=0)
    width = max(3, int(300.0 / (sample_rate / size)))  # 300 Hz: wider than a child's harmonic spacing
    smooth = np.convolve(power, np.ones(width) / width, mode="same")
    return np.asarray(np.sqrt(smooth), dtype=np.float64)


def _overlap_add(grains: np.ndarray, hop: int, length: int) -> np.ndarray:
    size = grains.shape[1]
    window = np.hanning(size)
    out = np.zeros(length + size)
    weight = np.zeros(length + size)
    for k in range(grains.shape[0]):
        start = k * hop
        if start >= length:
            break
        out[start:start + size] += grains[k] * window
        weight[start:start + size] += window * window
    return out[:length] / np.maximum(weight[:length], 1e-3)


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0


def _min_length(sample_rate: int) -> int:
    return int(0.05 * sample_rate)
