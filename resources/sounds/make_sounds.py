"""Synthesize the starter sounds (resources/sounds/*.flac).

A new user hears sound design before they own a sound library: these few
sounds are found by the sound library like any other folder, and the bundled
sample's cues match them by name. They are made here, from seeded noise and
oscillators, so they are ours to ship (no licence questions), deterministic
(running this again writes the same samples) and small (32 kHz, 16-bit FLAC,
a few seconds each; beds loop in the mix with a crossfade).

Run it after editing and commit the files with it:
``.venv/bin/python resources/sounds/make_sounds.py``
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile as sf
from scipy.signal import butter, sosfilt

HERE = Path(__file__).resolve().parent
RATE = 32_000


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _filter(x: np.ndarray, kind: str, freq: float | tuple[float, float], order: int = 2) -> np.ndarray:
    sos = butter(order, freq, btype=kind, fs=RATE, output="sos")
    return np.asarray(sosfilt(sos, x, axis=0))


def _t(seconds: float) -> np.ndarray:
    return np.arange(int(seconds * RATE)) / RATE


def _fade(x: np.ndarray, fade_in: float, fade_out: float) -> np.ndarray:
    x = x.copy()
    a, b = int(fade_in * RATE), int(fade_out * RATE)
    if a:
        x[:a] *= np.linspace(0.0, 1.0, a)[:, None] if x.ndim == 2 else np.linspace(0.0, 1.0, a)
    if b:
        x[-b:] *= np.linspace(1.0, 0.0, b)[:, None] if x.ndim == 2 else np.linspace(1.0, 0.0, b)
    return x


def _norm(x: np.ndarray, peak: float) -> np.ndarray:
    return x * (peak / max(1e-9, float(np.abs(x).max())))


def room_tone() -> np.ndarray:
    """A quiet studio: air handling hum and a little broadband hiss."""
    t = _t(6.0)
    rng = _rng(1)
    hiss = _filter(rng.normal(0, 1, t.size), "lowpass", 3000.0)
    hum = 0.5 * np.sin(2 * np.pi * 50 * t) + 0.2 * np.sin(2 * np.pi * 100 * t)
    return _norm(_filter(hiss, "highpass", 40.0) + 0.3 * hum, 0.05)


def rain() -> np.ndarray:
    """Steady rain on glass: band-limited noise plus sparse drops (stereo)."""
    t = _t(8.0)
    rng = _rng(2)
    out = np.zeros((t.size, 2))
    for ch in range(2):
        bed = _filter(rng.normal(0, 1, t.size), "bandpass", (400.0, 6000.0))
        drops = np.zeros(t.size)
        idx = rng.integers(0, t.size - 200, 900)
        drops[idx] = rng.uniform(0.5, 2.0, idx.size)
        drops = _filter(drops, "bandpass", (1500.0, 9000.0))
        out[:, ch] = bed + 3.0 * drops
    return _norm(out, 0.3)


def wind() -> np.ndarray:
    """Gusting wind: low-passed noise whose level and colour swell slowly."""
    t = _t(8.0)
    rng = _rng(3)
    noise = _filter(rng.normal(0, 1, t.size), "bandpass", (120.0, 1200.0))
    gust = 0.55 + 0.45 * np.sin(2 * np.pi * 0.125 * t) ** 2  # a whole number of cycles: loops cleanly
    whistle = _filter(rng.normal(0, 1, t.size), "bandpass", (700.0, 760.0), order=4)
    return _norm(noise * gust + 2.0 * whistle * gust ** 2, 0.35)


def thunder() -> np.ndarray:
    """A crack and a long low roll."""
    t = _t(6.0)
    rng = _rng(4)
    rumble = _filter(rng.normal(0, 1, t.size), "lowpass", 180.0, order=4)
    crack = _filter(rng.normal(0, 1, t.size), "bandpass", (300.0, 5000.0)) * np.exp(-t / 0.08)
    roll = np.exp(-t / 1.6) * (1 - np.exp(-t / 0.05)) * (1 + 0.5 * np.sin(2 * np.pi * 1.3 * t))
    return _fade(_norm(0.6 * crack + 8.0 * rumble * roll, 0.8), 0.0, 0.5)


def radio_static() -> np.ndarray:
    """Broadband hiss with crackle, as between stations."""
    t = _t(4.0)
    rng = _rng(5)
    hiss = _filter(rng.normal(0, 1, t.size), "bandpass", (300.0, 7000.0))
    crackle = np.zeros(t.size)
    idx = rng.integers(0, t.size, 300)
    crackle[idx] = rng.normal(0, 6, idx.size)
    return _norm(hiss + crackle, 0.4)


def radio_tuning() -> np.ndarray:
    """A dial swept across stations: whistles gliding through static."""
    t = _t(3.0)
    rng = _rng(6)
    sweep = 300 + 2200 * np.abs(np.sin(2 * np.pi * 0.4 * t))
    whistle = np.sin(2 * np.pi * np.cumsum(sweep) / RATE)
    hiss = _filter(rng.normal(0, 1, t.size), "bandpass", (300.0, 6000.0))
    return _fade(_norm(0.5 * whistle + 0.25 * hiss / np.abs(hiss).max(), 0.5), 0.05, 0.2)


def phone_ring() -> np.ndarray:
    """An old bell telephone: two bursts of a struck bell at 20 Hz."""
    t = _t(3.2)
    bell = sum(np.sin(2 * np.pi * f * t) * a for f, a in ((1150, 1.0), (1720, 0.6), (2580, 0.3)))
    striker = 0.5 + 0.5 * np.sign(np.sin(2 * np.pi * 20 * t))
    gate = ((t % 0.6) < 0.4) & (t < 1.0) | ((t >= 1.2) & (t < 2.2) & (((t - 1.2) % 0.6) < 0.4))
    env = _filter(striker * gate, "lowpass", 60.0)
    return _fade(_norm(bell * env, 0.5), 0.0, 0.6)


def door_knock() -> np.ndarray:
    """Three knocks on a wooden door."""
    t = _t(1.6)
    rng = _rng(8)
    out = np.zeros(t.size)
    for at in (0.05, 0.33, 0.61):
        n0 = int(at * RATE)
        tau = t[: t.size - n0]
        body = np.sin(2 * np.pi * 180 * tau) * np.exp(-tau / 0.04)
        click = rng.normal(0, 1, tau.size) * np.exp(-tau / 0.004)
        out[n0:] += body + 0.4 * _filter(click, "bandpass", (800.0, 4000.0))
    return _norm(out, 0.7)


def footsteps() -> np.ndarray:
    """Six steps on a hard floor, heel then toe."""
    t = _t(4.0)
    rng = _rng(9)
    out = np.zeros(t.size)
    for k in range(6):
        for lag, level in ((0.0, 1.0), (0.07, 0.5)):
            n0 = int((0.15 + 0.6 * k + lag) * RATE)
            tau = t[: t.size - n0]
            thud = _filter(rng.normal(0, 1, tau.size), "bandpass", (90.0, 2500.0)) * np.exp(-tau / 0.025)
            out[n0:] += level * thud
    return _norm(out, 0.6)


def theme() -> np.ndarray:
    """A slow four-chord pad, loopable (stereo): the station's night theme."""
    seconds = 8.0
    t = _t(seconds)
    chords = ((220.0, 261.6, 329.6), (174.6, 220.0, 261.6), (196.0, 246.9, 293.7), (164.8, 207.7, 246.9))
    out = np.zeros((t.size, 2))
    span = t.size // len(chords)
    ramp = int(0.25 * RATE)
    for i, chord in enumerate(chords):
        env = np.zeros(t.size)
        a, b = i * span, (i + 1) * span
        env[a:b] = 1.0
        env = np.convolve(env, np.ones(ramp) / ramp, mode="same")
        for j, f in enumerate(chord):
            for ch, detune in enumerate((0.998, 1.002)):
                out[:, ch] += env * np.sin(2 * np.pi * f * detune * t + j) * (0.5 if j else 0.7)
    out = _filter(out, "lowpass", 2500.0)
    return _norm(out, 0.35)


SOUNDS: dict[str, Callable[[], np.ndarray]] = {
    "room-tone": room_tone, "rain": rain, "wind": wind, "thunder": thunder,
    "radio-static": radio_static, "radio-tuning": radio_tuning, "phone-ring": phone_ring,
    "door-knock": door_knock, "footsteps": footsteps, "theme": theme,
}


def main() -> None:
    for name, make in SOUNDS.items():
        audio = np.clip(make(), -1.0, 1.0).astype(np.float32)
        sf.write(HERE / f"{name}.flac", audio, RATE, subtype="PCM_16", format="FLAC")
        print(f"{name}.flac: {audio.shape[0] / RATE:.1f} s, {audio.ndim if audio.ndim == 1 else audio.shape[1]} ch")


if __name__ == "__main__":
    main()
