"""A voice heard through a device: a telephone, a radio set, a tannoy, an intercom.

What makes a device sound like one is what it does to the voice, in the order a
signal meets it: the microphone and transmitter keep a narrow band; the
automatic gain control squeezes the loud syllables and lifts the quiet ones
(compression); the amplifier or the speaker cone is driven into saturation
(harmonics, a rasp); the channel hisses under it; and the receiver's
loudspeaker keeps a narrow band again, which also takes the saturation's
harmonics back out of the top. :class:`~engine.project.staging.Device` holds
the settings, one registry line per device (``DEVICES``).

The band edges are scipy's Butterworth filters run forwards and backwards
(``sosfiltfilt``: the whole clip is known, so no phase smear, and twice the
slope): pedalboard's high- and low-pass filters are first order (6 dB an
octave), far from the 20 dB and more a device keeps under its band an octave
out. The compressor and the saturation are pedalboard's (JUCE's compressor
and its tanh ``Distortion``, the lane presets' own: engine/audio/effects.py),
run once over the clip in C++.

A device keeps the line's level: the clip is brought to a full-scale peak
before the compressor and the saturation (so they act on the same syllables
whatever level the leveller gave the line) and the result is set back to the
band-limited voice's RMS. So the device is homogeneous in its input (twice
the input, twice the output), as the rest of the staging is linear: the
staging's trims and walls after it stay exact. The hiss is seeded (the same
line staged twice is the same samples, as a kept staged clip must be).

Staging runs once per clip (engine/audio/staging.py), never on the mixer's
blocks: nothing here is on the real-time path.
"""

from __future__ import annotations

import zlib

import numpy as np

from engine.project.staging import Device

FILTER_ORDER = 8  # each edge 48 dB an octave, 96 there and back
COMPRESSOR_THRESHOLD_DB = -24.0  # under the clip's peak: the syllables' bodies, not only their peaks
COMPRESSOR_ATTACK_MS = 3.0
COMPRESSOR_RELEASE_MS = 80.0


def band_limited(audio: np.ndarray, band_hz: tuple[float, float], rate: int) -> np.ndarray:
    """``audio`` (float64, mono) through a zero-phase band-pass of ``band_hz``."""
    from scipy.signal import butter, sosfiltfilt  # here: a cached render stages nothing

    low, high = band_hz
    sos = butter(FILTER_ORDER, [low, min(high, rate / 2 * 0.95)], btype="bandpass", fs=rate, output="sos")
    out: np.ndarray = sosfiltfilt(sos, audio)
    return out


def through_device(audio: np.ndarray, device: Device, rate: int) -> np.ndarray:
    """The mono clip as heard through ``device`` (float64, the same length and RMS as the
    band-limited clip)."""
    import pedalboard as pb

    voice = band_limited(np.asarray(audio, dtype=np.float64), device.band_hz, rate)
    peak = float(np.max(np.abs(voice))) if voice.size else 0.0
    if peak <= 0.0:
        return voice
    rms = float(np.sqrt(np.mean(voice ** 2)))
    board = pb.Pedalboard([  # type: ignore[attr-defined]
        pb.Compressor(threshold_db=COMPRESSOR_THRESHOLD_DB, ratio=device.ratio,
                      attack_ms=COMPRESSOR_ATTACK_MS, release_ms=COMPRESSOR_RELEASE_MS),
        pb.Distortion(drive_db=device.drive_db),
    ])
    driven = np.asarray(board((voice / peak).astype(np.float32), rate), dtype=np.float64).reshape(-1)
    if device.noise_db is not None:
        # The channel's hiss while it is open, at noise_db under the speech as it leaves the drive.
        seed = zlib.crc32(device.name.encode())
        hiss = np.random.default_rng(seed).standard_normal(driven.shape[0])
        driven += hiss * (np.sqrt(np.mean(driven ** 2)) * 10 ** (device.noise_db / 20))
    heard = band_limited(driven, device.band_hz, rate)
    level = float(np.sqrt(np.mean(heard ** 2)))
    return heard * (rms / level) if level > 0.0 else heard
