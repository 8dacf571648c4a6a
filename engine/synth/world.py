"""Pitch shifting with the WORLD vocoder (pyworld): F0 scaled, spectral envelope kept.

WORLD splits speech into its fundamental frequency (DIO, refined by
StoneMask), the spectral envelope (CheapTrick) and the aperiodicity (D4C),
and synthesizes it again from them. Scaling only the F0 moves the pitch and
leaves the envelope, so the formants (what makes the vowels and the speaker's
vocal tract) stay where they were: measured with an independent recognizer
on held-out sentences, it keeps lines intelligible where the Rubber Band
shift did not (bench/shaping_wer.py; the figures are in the README).

DIO, not Harvest: Harvest took 2.3 s for a 2.6 s line on this CPU, DIO 0.07 s.
"""

from __future__ import annotations

import functools
from types import ModuleType

import numpy as np

FRAME_MS = 5.0


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


def pitch_shift(audio: np.ndarray, sample_rate: int, semitones: float) -> np.ndarray:
    """The line ``semitones`` higher (or lower), formants in place, same length."""
    pw = _pyworld()
    x = np.ascontiguousarray(audio, dtype=np.float64)
    f0, times = pw.dio(x, sample_rate, frame_period=FRAME_MS)
    f0 = pw.stonemask(x, f0, times, sample_rate)
    envelope = pw.cheaptrick(x, f0, times, sample_rate)
    aperiodicity = pw.d4c(x, f0, times, sample_rate)
    y = pw.synthesize(f0 * 2 ** (semitones / 12), envelope, aperiodicity, sample_rate, frame_period=FRAME_MS)
    out = np.zeros(audio.shape[0], dtype=np.float32)  # WORLD rounds to whole frames: keep the length exact
    n = min(out.shape[0], y.shape[0])
    out[:n] = y[:n]
    return out
