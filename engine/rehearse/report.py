"""What a table read reports: per line, and the figures of the whole run.

The JSON keys are a contract (``radioplay rehearse --json``): ``lines`` (all
lines of the run), ``live_lines`` (those read live), ``missed``,
``gap_p50_ms`` and ``gap_p95_ms`` (from the end of a live line's speech to
the first sound of the reply), ``false_starts`` (a reply that began while
the reader was still speaking) and ``manual_advances``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np


@dataclass
class LineResult:
    line_id: str
    role: str
    live: bool
    outcome: str  # played | recognized | manual | missed
    gap_ms: float | None = None  # live lines followed by a reply
    decided_ms: float | None = None  # of which: until the end of the line was decided (the rest is playback)
    false_start: bool = False
    speech_s: float | None = None  # how long the reader spoke
    prompts: int = 0
    take: str | None = None  # the recorded take's file


@dataclass
class Report:
    results: list[LineResult] = field(default_factory=list)
    gap_basis: str = "vad"  # where a line's end is taken from: the VAD, or the recording (simulated reader)
    vad: str = ""
    recognizer: str = ""

    @property
    def gaps_ms(self) -> list[float]:
        return [r.gap_ms for r in self.results if r.gap_ms is not None]

    def percentile(self, q: float) -> float | None:
        gaps = self.gaps_ms
        return round(float(np.percentile(gaps, q)), 1) if gaps else None

    def figures(self) -> dict[str, Any]:
        live = [r for r in self.results if r.live]
        return {
            "lines": len(self.results),
            "live_lines": len(live),
            "missed": sum(r.outcome == "missed" for r in live),
            "gap_p50_ms": self.percentile(50),
            "gap_p95_ms": self.percentile(95),
            "false_starts": sum(r.false_start for r in live),
            "manual_advances": sum(r.outcome == "manual" for r in live),
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.figures(), "prompts": sum(r.prompts for r in self.results), "gap_basis": self.gap_basis,
                "gaps_ms": [round(g, 1) for g in self.gaps_ms], "vad": self.vad, "recognizer": self.recognizer,
                "order": [r.line_id for r in self.results], "per_line": [asdict(r) for r in self.results]}

    def summary(self) -> str:
        f = self.figures()
        gaps = (f"reply gap p50 {f['gap_p50_ms']:.0f} ms, p95 {f['gap_p95_ms']:.0f} ms"
                if f["gap_p50_ms"] is not None else "no reply gap measured")
        return (f"{f['lines']} lines, {f['live_lines']} read live: {f['missed']} missed, {gaps}, "
                f"{f['false_starts']} false starts, {f['manual_advances']} manual advances")
