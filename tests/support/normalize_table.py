"""The normalization table (tests/engine/text/data/normalization_table.tsv) and
how a normalizer's reading of it is scored: as words, lower case, punctuation
and hyphens ignored (what a listener, or the recognizer, could tell apart)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TABLE = Path(__file__).resolve().parents[1] / "engine" / "text" / "data" / "normalization_table.tsv"


@dataclass(frozen=True)
class Row:
    category: str
    written: str
    spoken: str
    language: str
    line: int


def rows(path: Path = TABLE) -> list[Row]:
    out = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        category, written, spoken = raw.split("\t")
        language = "en-gb"
        if written.startswith("en-us:"):
            language, written = "en-us", written[len("en-us:"):]
        out.append(Row(category, written, spoken, language, number))
    return out


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]+(?:'[a-z]+)*", text.lower().replace("-", " "))


def score(say: Callable[[str, str], str], table: list[Row]) -> tuple[float, dict[str, tuple[int, int]], list[str]]:
    """(share right, per category (right, total), the wrong ones as 'line: written -> said')."""
    per: dict[str, tuple[int, int]] = {}
    wrong = []
    for row in table:
        said = say(row.written, row.language)
        ok = words(said) == words(row.spoken)
        right, total = per.get(row.category, (0, 0))
        per[row.category] = (right + ok, total + 1)
        if not ok:
            wrong.append(f"{row.line}: {row.written!r} -> {said!r} (expected {row.spoken!r})")
    return sum(r for r, _ in per.values()) / max(1, len(table)), per, wrong
