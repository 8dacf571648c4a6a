"""How a piece of work grows with its input: the ratio the linear-time checks bound."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

LINEAR = 8.0  # at 4n linear work takes 4 times as long, quadratic work 16 times


def growth(run: Callable[[str], object], make: Callable[[int], str], n: int, attempts: int = 3) -> float:
    """How much longer the work takes at 4n than at n (the lowest of up to ``attempts`` measurements)."""
    small, large = make(n), make(4 * n)
    run(small)  # warm caches (regex compilation) outside the measurement
    ratio = float("inf")
    for _ in range(attempts):
        ratio = min(ratio, _best(lambda: run(large)) / _best(lambda: run(small), repeats=5))
        if ratio < LINEAR:
            break
    return ratio


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
