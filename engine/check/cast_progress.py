"""How far a measured cast has got, how long it has left, and stopping it.

The measured cast (engine/check/casting.py) reports after every clip it voices and hears:
what it is doing (which role, which voice), how many roles are settled, the fraction done
and an estimate of the time left. The work still ahead is counted in units the caster
weighs (a candidate embedded, a DNSMOS score, a line heard in a word check, as many lines
as a check usually takes); the estimate is that count at the pace measured so far in this
run, so a loaded machine gets a longer estimate instead of a wrong one. A cancel event is
looked at after every clip: the cast stops within one clip's time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


class CastCancelled(Exception):
    """The measured cast was stopped before it finished (the quick cast stays)."""


@dataclass(frozen=True)
class CastProgress:
    message: str  # "ELSIE MORGAN: hearing kokoro:jf_nezumi as older woman say her lines"
    fraction: float  # 0..1
    settled: int  # roles whose voice is decided
    roles: int
    remaining_s: float | None  # None until something was measured in this run

    def describe(self) -> str:
        """One line for a terminal or a progress label."""
        left = f", {remaining_text(self.remaining_s)}" if self.remaining_s is not None else ""
        return f"{self.settled} of {self.roles} roles cast{left}: {self.message}"


def remaining_text(seconds: float) -> str:
    if seconds < 60:
        return f"about {max(5, round(seconds / 5) * 5):.0f} s left"
    return f"about {seconds / 60:.0f} min left" if seconds >= 90 else "about a minute left"


STORED = 0.02  # a step whose result was stored, in units: it moves the bar, it costs next to nothing


class CastWork:
    """The work of one measured cast: what is done, what is expected, the reports."""

    def __init__(self, roles: int, report: Callable[[CastProgress], None] | None = None,
                 cancel: threading.Event | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.roles, self.report, self.cancel, self.clock = roles, report, cancel, clock
        self.start = clock()
        self.done = 0.0  # work measured in this run, in the caster's units
        self.ahead = 0.0  # work still expected
        self.settled = 0
        self.shown = 0.0  # the fraction last reported: a bar never moves back
        self.message = "reading the installed voices"

    def stop_if_cancelled(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise CastCancelled("casting cancelled")

    def plan(self, work: float) -> None:
        """The work still expected, counted afresh."""
        self.ahead = max(0.0, work)

    def expect(self, work: float) -> None:
        """More work is expected (or, negative, less: a check that stopped early)."""
        self.ahead = max(0.0, self.ahead + work)

    def did(self, work: float, expected: float, message: str | None = None) -> None:
        """A step expected to cost ``expected`` cost ``work`` (0: its result was stored,
        counted as a little)."""
        self.done += work or STORED
        self.ahead = max(0.0, self.ahead - expected)
        self.tell(message)

    def tell(self, message: str | None = None, settled: int | None = None) -> None:
        self.stop_if_cancelled()
        if message is not None:
            self.message = message
        if settled is not None:
            self.settled = max(self.settled, settled)  # roles cast again to be told apart still count
        if self.report is None:
            return
        total = self.done + self.ahead
        self.shown = max(self.shown, self.done / total if total else 0.0, self.settled / max(1, self.roles))
        pace = (self.clock() - self.start) / self.done if self.done >= 1 else None
        self.report(CastProgress(self.message, min(1.0, self.shown), self.settled, self.roles,
                                 None if pace is None else self.ahead * pace))
