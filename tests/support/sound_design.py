"""A script with sound cues and the sound files it names, written for a test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

RATE = 48_000

SCRIPT = """# Title: Storm Night
# Scene 1 - The studio
AMBIENCE: rain on the glass
MUSIC: night theme
MAGGIE: Good evening, and welcome to the late show on a very wet night.
SFX: thunder rolls
OWEN: That was close. The whole building shook with it, Maggie.
MAGGIE: Stay calm, we are on the air for another hour yet.
MUSIC OUT
OWEN: I will fetch the tea then, and check the windows on the way.
"""


def write_sounds(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    t = np.arange(int(4.0 * 44_100)) / 44_100
    sf.write(folder / "rain-on-glass.wav", np.stack([rng.normal(0, 0.05, t.size)] * 2, axis=1), 44_100)
    sf.write(folder / "theme.flac", 0.3 * np.sin(2 * np.pi * 220 * t), 44_100)  # steady: easy to measure
    burst = np.zeros(int(1.5 * RATE))
    burst[: RATE // 2] = rng.normal(0, 0.4, RATE // 2)
    sf.write(folder / "thunder.wav", burst, RATE)
