"""How work grows from n to 4n, measured in thread CPU time (the method of
tests/contracts/test_linear_time.py): linear work grows about 4 times,
quadratic work about 16 times; a ratio, never a wall-clock threshold."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

LINEAR = 8.0  # at 4n linear work takes 4 times as long, quadratic work 16 times


def _best(work: Callable[[], object], repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.disable()
        try:
            start = time.thread_time()
            work()
            best = min(best, time.thread_time() - start)
        finally:
            gc.enable()
    return best


def growth(run: Callable[[Any], object], make: Callable[[int], Any], n: int, attempts: int = 3) -> float:
    """How much longer the work takes at 4n than at n (the lowest of up to ``attempts`` measurements)."""
    small, large = make(n), make(4 * n)
    run(small)  # warm caches outside the measurement
    ratio = float("inf")
    for _ in range(attempts):
        ratio = min(ratio, _best(lambda: run(large)) / _best(lambda: run(small), repeats=5))
        if ratio < LINEAR:
            break
    return ratio
