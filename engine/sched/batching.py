"""Batch size per device, chosen by measurement and adapted from what runs.

On two CPU cores Piper is fastest one line at a time (padding wastes work
and ONNX Runtime already uses the cores), so the CPU runs one line at a time
(:meth:`BatchSizer.for_device`); on a GPU larger batches win, by how much
depends on the card. So nothing is assumed there: before the first batch of a
voice that batches, each candidate size runs the same small workload and the
fastest wins (:meth:`BatchSizer.measure_once`); afterwards every batch's
throughput feeds an exponential average per size, and a neighbouring size is
tried now and then so a changed load can move the choice. A batch holds one
voice and one set of settings (a role's lines: ``Job.batch_key``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from engine.synth.backends.base import InferenceSettings, LoadedVoice, PhonemeUnit
from engine.synth.backends.synth_device import SynthDevice

_ALPHA = 0.2
SIGNIFICANT = 0.05
_EXPLORE_EVERY = 50
DEVICE_CANDIDATES = (1, 2, 4, 8, 16)  # a GPU's: measured on its first batch
MEASURE_REPEATS = 4  # the measurement's workload: a batch's units this many times over


class BatchSizer:
    """Thread-safe; ``size`` is read by inference workers before each batch."""

    def __init__(self, candidates: Sequence[int] = (1, 2, 4, 8), fixed: int | None = None) -> None:
        self.candidates = sorted(set(candidates))
        self.size = fixed or 1
        self.fixed = fixed is not None
        self.measured: dict[int, float] = {}  # model samples per second, by batch size
        self.sample_rate = 1
        self._ewma: dict[int, float] = {}
        self._batches = 0
        self._lock = threading.Lock()
        self._measuring = threading.Lock()

    @classmethod
    def for_device(cls, device: SynthDevice | None) -> BatchSizer:
        """The CPU's one line at a time (the fastest there, above); a GPU's measured
        among DEVICE_CANDIDATES on the first batch it runs."""
        if device is None or device.kind == "cpu":
            return cls(fixed=1)
        return cls(DEVICE_CANDIDATES)

    @property
    def unmeasured(self) -> bool:
        """Whether the sizes are still to be measured (never for a fixed size)."""
        return not self.fixed and not self.measured and len(self.candidates) > 1

    def measure_once(self, model: LoadedVoice, settings: InferenceSettings, units: list[PhonemeUnit]) -> int:
        """:meth:`measure` on ``units`` (MEASURE_REPEATS times over) by the first worker
        that asks; the others wait for its answer."""
        with self._measuring:
            if self.unmeasured:
                self.measure(model, settings, units * MEASURE_REPEATS)
            return self.size

    def measure(self, model: LoadedVoice, settings: InferenceSettings, units: list[PhonemeUnit],
                clock: Callable[[], float] = time.perf_counter) -> int:
        """Time each candidate on ``units`` (run twice, best kept); pick the fastest."""
        if self.fixed:
            return self.size
        if not model.can_batch:
            self.candidates = [1]
            self.size = 1
            return 1
        model.infer_batch(units[:1], settings)  # warm-up: first run allocates arenas
        for size in self.candidates:
            best = 0.0
            for _ in range(2):
                started = clock()
                samples = 0
                for i in range(0, len(units), size):
                    samples += sum(a.shape[0] for a in model.infer_batch(units[i:i + size], settings))
                best = max(best, samples / max(clock() - started, 1e-9))
            self.measured[size] = best
        with self._lock:
            self.size = self._smallest_near_best(self.measured)
            self._ewma = dict(self.measured)
            self.sample_rate = model.sample_rate
        return self.size

    @staticmethod
    def _smallest_near_best(rates: dict[int, float]) -> int:
        """The smallest size within SIGNIFICANT of the fastest: a batch waits for
        its longest line, so a larger one must be clearly faster to be worth it
        (measured differences of 1-2 % on CPU are noise)."""
        best = max(rates.values())
        return min(size for size, rate in rates.items() if rate >= best * (1 - SIGNIFICANT))

    def measured_audio_s_per_s(self) -> dict[int, float]:
        """The start-up measurement in model audio-seconds per second, by size."""
        return {size: rate / self.sample_rate for size, rate in self.measured.items()}

    def observe(self, size: int, samples: int, seconds: float) -> None:
        """Feed one finished batch; may change :attr:`size`."""
        if self.fixed or seconds <= 0 or len(self.candidates) == 1:
            return
        with self._lock:
            rate = samples / seconds
            old = self._ewma.get(size)
            self._ewma[size] = rate if old is None else (1 - _ALPHA) * old + _ALPHA * rate
            self._batches += 1
            best = self._smallest_near_best(self._ewma)
            index = self.candidates.index(best)
            if self._batches % _EXPLORE_EVERY == 0:
                # Try a neighbour once in a while so stale averages get refreshed.
                neighbours = [c for c in self.candidates[max(0, index - 1): index + 2] if c != best]
                self.size = neighbours[(self._batches // _EXPLORE_EVERY) % len(neighbours)] if neighbours else best
            else:
                self.size = best
