"""Text normalization: the share of the table said right, and what it costs a line.

    python bench/normalize.py [--repeat N]

The table is tests/engine/text/data/normalization_table.tsv (266 written forms
with their spoken forms, from the BBC, Guardian and Chicago style guides). Cost
is measured on the table's forms and on the bundled samples' lines, against a
baseline measured in the same run: the frontend without the normalizer
(clean + lexicon + split, what every line cost before). nemo-text-processing is
measured by bench/normalize_nemo.py, in a virtualenv of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.synth import frontend  # noqa: E402
from engine.text import Normalized, normalize  # noqa: E402
from tests.support.normalize_table import rows, score  # noqa: E402


def sample_lines() -> list[str]:
    out = []
    for path in sorted((REPO / "samples").glob("*.radioplay")):
        out += [line["text"] for line in json.loads(path.read_text())["lines"] if line["text"].strip()]
    return out


def per_line_us(texts: list[str], repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        for text in texts:
            try:
                frontend.prepare(text)
            except Exception:  # noqa: BLE001 - a line of nothing speakable costs what it costs
                pass
    return (time.perf_counter() - started) / (repeat * len(texts)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    table = rows()
    share, per, wrong = score(lambda text, language: normalize(text, language).text, table)
    forms = [row.written for row in table]
    lines = sample_lines()
    results: dict[str, object] = {"table_rows": len(table), "table_share": round(share, 4),
                                  "per_category": {k: f"{r}/{t}" for k, (r, t) in per.items()}, "wrong": wrong}
    for name, texts in (("table_forms", forms), ("sample_lines", lines)):
        with_rules = per_line_us(texts, args.repeat)
        original = frontend.normalize
        frontend.normalize = lambda text, language="en-us", protected=(): Normalized(text, ())  # type: ignore[assignment,misc]
        try:
            without = per_line_us(texts, args.repeat)
        finally:
            frontend.normalize = original
        results[name] = {"lines": len(texts), "prepare_us": round(with_rules, 1),
                         "baseline_prepare_us": round(without, 1), "normalizer_us": round(with_rules - without, 1),
                         "ratio": round(with_rules / without, 2)}
    # 40 kB lines built to make a regular expression backtrack (each once took seconds to minutes),
    # against 40 kB of plain words: linear means the same order of time.
    plain = "the quick brown fox " * 2000
    started = time.perf_counter()
    normalize(plain)
    base = time.perf_counter() - started
    hostile = {}
    for name, text in (("a-a-", "a-" * 20_000), ("1-1-", "1-" * 20_000), ("a+a+", "a+" * 20_000),
                       ("9,9,", "9," * 20_000), ("9, 9, ", "9, " * 13_000), ("1 1 ", "1 " * 20_000)):
        started = time.perf_counter()
        normalize(text)
        seconds = time.perf_counter() - started
        hostile[name] = {"s": round(seconds, 3), "ratio_to_plain_words": round(seconds / base, 1)}
    results["hostile_40kB"] = {"plain_words_s": round(base, 3), **hostile}
    results["load"] = os.getloadavg()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
