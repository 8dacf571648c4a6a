"""Predict how many samples a voice model will produce, before it runs.

Why: to let inference write into the clip store in place, a block must be
reserved before the output length is known. A VITS voice's output is close to
linear in the input length: ``samples = length_scale * (a_v * phonemes + b_v)``
with per-voice ``a_v`` (samples per phoneme id) and ``b_v`` (padding, edges).
Both are fitted online per voice by ordinary least squares on
(phonemes, samples / length_scale), kept as running means and co-moments
(Welford), so memory per voice is constant and the fit needs no history.

The reservation is the prediction plus a margin taken from the voice's recent
under-predictions (their ``quantile``, 0.9 by default, between ``margin_floor``
and ``margin_cap``): a voice that is predicted well reserves little, a voice
just loaded (prior only) reserves the cap. Each observation is scored against
the prediction made *before* it updates the fit, so the reported errors and
misses are honest out-of-sample numbers.

"Phonemes" is whatever count the caller uses consistently (Piper: the number
of phoneme ids, pads included); the fit learns the scale.

Threads: every public method may be called from any thread (one lock).
"""

from __future__ import annotations

import math
import threading
from collections import deque
from dataclasses import dataclass, field

import numpy as np

PRIOR_SAMPLES_PER_PHONEME = 1100.0  # at 22050 Hz: ~50 ms per phoneme id, pads included
PRIOR_RATE = 22050


@dataclass(frozen=True)
class PredictorReport:
    observations: int  # lifetime
    misses: int  # lifetime: actual > reserve_size at the time
    miss_rate: float
    p50_error: float  # |predicted - actual| / actual over the last ``window`` observations
    p90_error: float
    voices: int


@dataclass
class _VoiceFit:
    prior_a: float
    n: int = 0
    mean_x: float = 0.0
    mean_y: float = 0.0
    m2x: float = 0.0  # sum of (x - mean_x)^2
    cxy: float = 0.0  # sum of (x - mean_x)(y - mean_y)
    sxx: float = 0.0  # raw sums for the through-origin fit used while x barely varies
    sxy: float = 0.0
    shortfalls: deque[float] = field(default_factory=deque)  # actual / predicted - 1
    margin: float = 0.0

    def coefficients(self) -> tuple[float, float]:
        if self.n >= 3 and self.m2x / self.n >= 1.0:  # phoneme counts vary: full line
            a = self.cxy / self.m2x
            return a, self.mean_y - a * self.mean_x
        if self.sxx > 0.0:  # one length seen so far: a line through the origin
            return self.sxy / self.sxx, 0.0
        return self.prior_a, 0.0

    def add(self, x: float, y: float) -> None:
        self.n += 1
        dx = x - self.mean_x
        self.mean_x += dx / self.n
        self.mean_y += (y - self.mean_y) / self.n
        self.m2x += dx * (x - self.mean_x)
        self.cxy += dx * (y - self.mean_y)
        self.sxx += x * x
        self.sxy += x * y


class LengthPredictor:
    """Per-voice output-length model with an adaptive reservation margin."""

    def __init__(self, sample_rate: int = PRIOR_RATE, *, margin_floor: float = 0.05,
                 margin_cap: float = 0.5, quantile: float = 0.9, window: int = 4096,
                 voice_window: int = 256, min_margin_observations: int = 8) -> None:
        if not 0.0 <= margin_floor <= margin_cap:
            raise ValueError("need 0 <= margin_floor <= margin_cap")
        self.sample_rate = sample_rate
        self.margin_floor = margin_floor
        self.margin_cap = margin_cap
        self.quantile = quantile
        self.voice_window = voice_window
        self.min_margin_observations = min_margin_observations
        self._rates: dict[str, int] = {}
        self._fits: dict[str, _VoiceFit] = {}
        self._errors: deque[float] = deque(maxlen=window)
        self._lock = threading.Lock()
        self.observations = 0
        self.misses = 0

    def set_sample_rate(self, voice: str, sample_rate: int) -> None:
        """The voice model's output rate, which scales the prior (before any
        observation of that voice; later the fit has taken over anyway)."""
        with self._lock:
            self._rates[voice] = sample_rate
            fit = self._fits.get(voice)
            if fit is not None and fit.n == 0:
                fit.prior_a = PRIOR_SAMPLES_PER_PHONEME * sample_rate / PRIOR_RATE

    def set_prior(self, voice: str, samples_per_phoneme: float) -> None:
        """The voice's backend knows its typical length per phoneme unit (a
        Kokoro token speaks longer than a Piper id): the prior until the fit
        has observations of its own. Without it every voice starts from Piper's."""
        with self._lock:
            fit = self._fit(voice)
            if fit.n == 0:
                fit.prior_a = samples_per_phoneme

    def _fit(self, voice: str) -> _VoiceFit:
        fit = self._fits.get(voice)
        if fit is None:
            rate = self._rates.get(voice, self.sample_rate)
            fit = _VoiceFit(PRIOR_SAMPLES_PER_PHONEME * rate / PRIOR_RATE,
                            shortfalls=deque(maxlen=self.voice_window), margin=self.margin_cap)
            self._fits[voice] = fit
        return fit

    @staticmethod
    def _predict(fit: _VoiceFit, phonemes: int, length_scale: float) -> int:
        a, b = fit.coefficients()
        return max(0, round(length_scale * (a * phonemes + b)))

    def _reserve(self, fit: _VoiceFit, phonemes: int, length_scale: float) -> int:
        return math.ceil(self._predict(fit, phonemes, length_scale) * (1.0 + fit.margin))

    def predict(self, voice: str, phonemes: int, length_scale: float = 1.0) -> int:
        """Expected model output in samples."""
        with self._lock:
            return self._predict(self._fit(voice), phonemes, length_scale)

    def reserve_size(self, voice: str, phonemes: int, length_scale: float = 1.0) -> int:
        """Samples to reserve before inference: the prediction plus the margin."""
        with self._lock:
            return self._reserve(self._fit(voice), phonemes, length_scale)

    def margin(self, voice: str) -> float:
        with self._lock:
            return self._fit(voice).margin

    def observe(self, voice: str, phonemes: int, length_scale: float, actual_samples: int) -> bool:
        """Score the current prediction against what the model produced, then
        update the fit. Returns True if the reservation would have missed."""
        if length_scale <= 0.0:
            raise ValueError(f"length_scale must be positive, got {length_scale}")
        with self._lock:
            fit = self._fit(voice)
            predicted = self._predict(fit, phonemes, length_scale)
            missed = actual_samples > self._reserve(fit, phonemes, length_scale)
            self.observations += 1
            self.misses += missed
            self._errors.append(abs(predicted - actual_samples) / max(actual_samples, 1))
            fit.shortfalls.append(actual_samples / max(predicted, 1) - 1.0)
            if len(fit.shortfalls) >= self.min_margin_observations:
                tail = float(np.quantile(np.fromiter(fit.shortfalls, dtype=np.float64), self.quantile))
                fit.margin = min(self.margin_cap, max(self.margin_floor, tail))
            fit.add(float(phonemes), actual_samples / length_scale)
            return missed

    def report(self) -> PredictorReport:
        with self._lock:
            errors = np.fromiter(self._errors, dtype=np.float64)
            p50, p90 = (np.quantile(errors, [0.5, 0.9]).tolist() if errors.size else [0.0, 0.0])
            return PredictorReport(
                observations=self.observations,
                misses=self.misses,
                miss_rate=self.misses / self.observations if self.observations else 0.0,
                p50_error=float(p50),
                p90_error=float(p90),
                voices=len(self._fits),
            )
