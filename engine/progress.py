"""A terminal progress bar that stays quiet when output is not a TTY."""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO


class ProgressRate:
    """Which of a renderer's progress reports to show: a stage's start and end always,
    in between at most ``per_second`` (the renderer reports every block: 1,536 on the
    sample). Not thread-safe: one per reporting thread."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second
        self.stage = ""  # the stage of the last report shown
        self._last = -math.inf

    def due(self, stage: str, done: int, total: int) -> bool:
        """Whether to show this report (remembered as shown when it is)."""
        now = time.monotonic()
        if stage == self.stage and done < total and now - self._last < self.interval:
            return False
        self.stage, self._last = stage, now
        return True


class TerminalProgress:
    """Callable as ``progress(stage, done, total)``; redraws at most 10 times a second."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.width = width
        self._rate = ProgressRate(10)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        previous = self._rate.stage
        if not self._rate.due(stage, done, total):
            return
        if previous and stage != previous:
            self.stream.write("\n")
        frac = done / total if total else 1.0
        filled = int(frac * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{stage:<13} [{bar}] {done}/{total}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self._rate.stage:
            self.stream.write("\n")
            self.stream.flush()
