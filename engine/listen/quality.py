"""How good a clip sounds: DNSMOS P.835's overall score (OVRL, 1-5), no reference needed.

Microsoft's DNSMOS models ship as ONNX files inside the ``speechmos`` wheel;
they run here through onnxruntime directly, the same windows and the same
polynomial mapping as ``speechmos.dnsmos`` (tests/engine/listen/test_quality.py
compares), without importing speechmos, whose module imports librosa (and
numba) for the P.808 model this score does not use. A clip shorter than the
model's 9.01 s window is repeated to fill it, as speechmos does; a longer one
is scored in 9.01 s windows a second apart and averaged. A clip of more than
``MAX_WINDOWS`` such windows (a speech of minutes) is scored in that many,
spread evenly over it: its mean is the same estimate, and the check's time for
one line stays bounded however long the line is.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

RATE = 16000
WINDOW_S = 9.01
MAX_WINDOWS = 24  # every line up to 32 s is scored in all its windows
# speechmos' (and Microsoft's DNSMOS script's) mapping of the raw outputs, not personalized.
_OVRL = np.poly1d([-0.06766283, 1.11546468, 0.04602535])
_SIG = np.poly1d([-0.08397278, 1.22083953, 0.0052439])
_BAK = np.poly1d([-0.13166888, 1.60915514, -0.39604546])


class QualityModelUnavailable(RuntimeError):
    """speechmos (which ships the DNSMOS models) is not installed."""


def model_path() -> Path:
    spec = importlib.util.find_spec("speechmos")
    if spec is None or not spec.submodule_search_locations:
        raise QualityModelUnavailable("the quality score needs the speechmos package (pip install 'radioplay[voices]')")
    path = Path(next(iter(spec.submodule_search_locations))) / "dnsmos_models" / "sig_bak_ovr.onnx"
    if not path.is_file():
        raise QualityModelUnavailable(f"{path}: speechmos' DNSMOS model is missing")
    return path


@cache
def _session() -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # one clip at a time, beside the synthesis workers
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(model_path()), options, providers=["CPUExecutionProvider"])


def dnsmos(audio: np.ndarray, rate: int) -> dict[str, float]:
    """``{"ovrl": ..., "sig": ..., "bak": ...}`` for a clip (mono float in [-1, 1])."""
    wav = np.asarray(audio, dtype=np.float32).reshape(-1)
    if rate != RATE:
        import soxr

        wav = soxr.resample(wav, rate, RATE).astype(np.float32)
    wav = np.clip(wav, -1.0, 1.0)
    if not wav.size:
        raise ValueError("an empty clip has no quality score")
    need = int(WINDOW_S * RATE)
    while len(wav) < need:
        wav = np.append(wav, wav)
    hops = int(np.floor(len(wav) / RATE) - WINDOW_S) + 1
    session = _session()
    scores = []
    for i in sorted({int(k) for k in np.linspace(0, hops - 1, min(hops, MAX_WINDOWS)).round()}):
        segment = wav[i * RATE:i * RATE + need]
        if len(segment) < need:
            continue
        sig, bak, ovrl = session.run(None, {"input_1": segment[np.newaxis, :]})[0][0]
        scores.append((_OVRL(ovrl), _SIG(sig), _BAK(bak)))
    ovrl_mean, sig_mean, bak_mean = np.mean(scores, axis=0)
    return {"ovrl": float(ovrl_mean), "sig": float(sig_mean), "bak": float(bak_mean)}


def quality(audio: np.ndarray, rate: int) -> float:
    """The overall score, 1 (bad) to 5 (excellent)."""
    return dnsmos(audio, rate)["ovrl"]
