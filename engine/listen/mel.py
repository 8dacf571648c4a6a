"""Mel spectrograms exactly as librosa makes them (``librosa.feature.melspectrogram``:
centred frames, zero padding, periodic Hann window, Slaney's mel scale and area
normalization), in numpy: the speaker encoder and the quality model were trained
on librosa's, and librosa itself (with numba) costs seconds to import."""

from __future__ import annotations

from functools import cache

import numpy as np


def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    f = np.asarray(f, dtype=np.float64)
    log = f >= 1000.0
    return np.where(log, 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0), f / (200.0 / 3))


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    log = m >= 15.0
    return np.where(log, 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0)), (200.0 / 3) * m)


@cache
def mel_filters(rate: int, n_fft: int, n_mels: int) -> np.ndarray:
    """librosa.filters.mel(sr=rate, n_fft=n_fft, n_mels=n_mels), n_mels x (1 + n_fft // 2)."""
    fft_freqs = np.linspace(0, rate / 2, 1 + n_fft // 2)
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(np.array(0.0)), _hz_to_mel(np.array(rate / 2.0)), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels]))[:, None]
    return weights.astype(np.float32)


def mel_power(wav: np.ndarray, rate: int, n_fft: int, hop: int, n_mels: int) -> np.ndarray:
    """Power mel spectrogram, frames x n_mels."""
    padded = np.pad(np.asarray(wav, dtype=np.float32), n_fft // 2)
    n = 1 + (len(padded) - n_fft) // hop
    frames = np.lib.stride_tricks.as_strided(padded, (n, n_fft), (padded.strides[0] * hop, padded.strides[0]))
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)
    power = (np.abs(np.fft.rfft(frames * window, axis=1)) ** 2).astype(np.float32)
    return np.asarray(power @ mel_filters(rate, n_fft, n_mels).T, dtype=np.float32)
