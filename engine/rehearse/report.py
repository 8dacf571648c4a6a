"""What a table read reports: per line, and the figures of the whole run.

The JSON keys are a contract (``radioplay rehearse --json``): ``lines`` (all
lines of the run), ``live_lines`` (those read live), ``missed``,
``gap_p50_ms`` and ``gap_p95_ms`` (from the end of a live line's speech to
the first sound of the reply), ``false_starts`` (a reply that began while
the reader was still speaking) and ``manual_advances``; ``accuracy`` (the
share of the live lines' words heard) and ``per_line`` with each line's
``expected``, ``heard``, ``accuracy``, ``missed_words`` and ``extra_words``
(``radioplay rehearse --report FILE`` writes the same per line).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from engine.listen.follow import Progress


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
    pass_no: int = 1  # the pass of a looped section
    # What the listener heard of a live line (the recognizer's words; unhearable words left out):
    expected: str | None = None  # the line's words, as spoken
    heard: str | None = None
    accuracy: float | None = None  # the share of the expected words heard, in order
    missed_words: list[str] = field(default_factory=list)
    extra_words: list[str] = field(default_factory=list)  # heard, not in the line

    def score(self, progress: Progress) -> None:
        self.expected = " ".join(progress.expected)
        self.heard = " ".join(progress.said)
        self.accuracy = round(progress.coverage, 3)
        self.missed_words = list(progress.missed_words)
        self.extra_words = list(progress.extra_words)

    @property
    def expected_count(self) -> int:
        return len(self.expected.split()) if self.expected else 0

    @property
    def heard_count(self) -> int:
        return len(self.heard.split()) if self.heard else 0


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
            "accuracy": self.accuracy(),
        }

    def accuracy(self) -> float | None:
        """The share of the live lines' words heard (every word counts once)."""
        scored = [r for r in self.results if r.live and r.accuracy is not None]
        expected = sum(r.expected_count for r in scored)
        if not expected:
            return None
        return round(sum(r.accuracy * r.expected_count for r in scored if r.accuracy is not None) / expected, 3)

    def accuracy_lines(self) -> list[dict[str, Any]]:
        """The per-line accuracy report: each live line, what was expected and heard."""
        return [{"line_id": r.line_id, "role": r.role, "pass": r.pass_no, "outcome": r.outcome,
                 "words_expected": r.expected_count, "words_heard": r.heard_count, "accuracy": r.accuracy,
                 "expected": r.expected, "heard": r.heard, "missed_words": r.missed_words,
                 "extra_words": r.extra_words} for r in self.results if r.live]

    def accuracy_table(self) -> str:
        """The per-line accuracy report as text (the CLI prints it after a run)."""
        rows = [f"{'line':<10} {'role':<10} {'words':>5} {'heard':>5} {'accuracy':>8}  missed / extra"]
        for r in self.results:
            if not r.live:
                continue
            acc = f"{r.accuracy * 100:.0f} %" if r.accuracy is not None else "-"
            tag = f"{r.line_id}#{r.pass_no}" if r.pass_no > 1 else r.line_id
            rows.append(f"{tag:<10} {r.role:<10} {r.expected_count:>5} {r.heard_count:>5} {acc:>8}  "
                        f"{' '.join(r.missed_words) or '-'} / {' '.join(r.extra_words) or '-'}"
                        + ("  (missed)" if r.outcome == "missed" else ""))
        return "\n".join(rows)

    def to_json(self) -> dict[str, Any]:
        return {**self.figures(), "prompts": sum(r.prompts for r in self.results), "gap_basis": self.gap_basis,
                "gaps_ms": [round(g, 1) for g in self.gaps_ms], "vad": self.vad, "recognizer": self.recognizer,
                "order": [r.line_id for r in self.results], "per_line": [asdict(r) for r in self.results]}

    def summary(self) -> str:
        f = self.figures()
        gaps = (f"reply gap p50 {f['gap_p50_ms']:.0f} ms, p95 {f['gap_p95_ms']:.0f} ms"
                if f["gap_p50_ms"] is not None else "no reply gap measured")
        accuracy = f", {f['accuracy'] * 100:.0f} % of the words heard" if f["accuracy"] is not None else ""
        return (f"{f['lines']} lines, {f['live_lines']} read live: {f['missed']} missed, {gaps}, "
                f"{f['false_starts']} false starts, {f['manual_advances']} manual advances{accuracy}")
