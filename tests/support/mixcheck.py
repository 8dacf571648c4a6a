"""What the mix tests measure on a render's folder: sample peaks of every
stem, the stems' sum against mix.wav, the master limiter's work from
report.json, and loudness by pyloudnorm (a meter the project did not write)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf


def peak_dbfs(audio: np.ndarray) -> float:
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    return 20 * math.log10(peak) if peak > 0 else -math.inf


def read(path: Path) -> np.ndarray:
    return np.asarray(sf.read(path, dtype="float32", always_2d=True)[0])


def stem_peaks(outdir: Path) -> dict[str, float]:
    """Sample peak (dBFS) of every role stem and DME stem, by its path in the folder."""
    files = sorted((outdir / "stems").glob("*.wav")) + sorted((outdir / "dme").glob("*.wav"))
    return {str(p.relative_to(outdir)): peak_dbfs(read(p)) for p in files}


def stems_sum(outdir: Path) -> np.ndarray:
    """The DME stems summed: what enters the master chain."""
    return np.asarray(sum(read(p) for p in sorted((outdir / "dme").glob("*.wav"))))


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    n = min(a.shape[0], b.shape[0])
    return float(np.corrcoef(a[:n].ravel(), b[:n].ravel())[0, 1])


def master_limiter(outdir: Path) -> dict[str, Any]:
    report = json.loads((outdir / "report.json").read_text(encoding="utf-8"))
    return next(w for w in report["levelling"] if w["stage"] == "master")


def loudness_and_true_peak(path: Path) -> tuple[float, float]:
    import pyloudnorm
    import soxr

    audio, rate = sf.read(path, dtype="float64", always_2d=True)
    lufs = float(pyloudnorm.Meter(rate).integrated_loudness(audio))
    up = soxr.resample(audio.astype(np.float32), rate, rate * 4, quality="VHQ")
    return lufs, peak_dbfs(np.asarray(up))
