"""A terminal progress bar that stays quiet when output is not a TTY."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class TerminalProgress:
    """Callable as ``progress(stage, done, total)``; redraws at most 10 times a second."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.width = width
        self._last = 0.0
        self._stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if stage == self._stage and done < total and now - self._last < 0.1:
            return
        if self._stage and stage != self._stage:
            self.stream.write("\n")
        self._stage, self._last = stage, now
        frac = done / total if total else 1.0
        filled = int(frac * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{stage:<13} [{bar}] {done}/{total}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self._stage:
            self.stream.write("\n")
            self.stream.flush()
