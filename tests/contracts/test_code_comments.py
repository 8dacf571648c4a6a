"""Comments say why the code is as it is, in the present tense; the figures that justified it
live in docs/dev/benchmarks.md (the current table) and docs/dev/benchmark-history.md, once.

The patterns a comment or docstring of engine/ or app/ may not hold:
- a date (``2026-12-07``): a measurement of a day, which the code outlives;
- a load average (``load 14``, ``load average 3.2``, ``(load 8-10)``): a measurement of a machine;
- a before/after timing or size (``85 -> 80 s``, ``1.9 GB → 1.3 GB``): a change's history.
Code (strings the program uses) is not read: only ``#`` comments and docstrings.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

from tests.support.paths import REPO

UNIT = r"(?:ms|s|min|CPU-s|MB|MiB|GB|GiB|KB|KiB)"
FORBIDDEN = {
    "a date": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
    "a load average": re.compile(r"\bload(?: average)?(?: of| at)? ~?\d+(?:\.\d+)?\b(?!-?\s*(?:line|role|voice|clip|file))"),
    "a before/after figure": re.compile(rf"\d[\d.,]*\s?{UNIT}?\s?(?:->|→)\s?\d[\d.,]*\s?{UNIT}\b"),
}


def prose(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every ``#`` comment and every docstring of ``source``."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield body[0].lineno, body[0].value.value


def findings(source: str) -> list[tuple[int, str, str]]:
    found = []
    for line, text in prose(source):
        for what, pattern in FORBIDDEN.items():
            if match := pattern.search(text):
                found.append((line, what, match.group(0)))
    return found


def test_no_comment_or_docstring_holds_a_date_a_load_or_a_before_after_figure() -> None:
    found = []
    for folder in ("engine", "app"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for line, what, text in findings(path.read_text(encoding="utf-8")):
                found.append(f"{path.relative_to(REPO)}:{line}: {what} ({text!r})")
    assert not found, "move these figures to docs/dev/benchmarks.md or its history:\n" + "\n".join(found)


def test_the_check_finds_each_pattern_and_passes_plain_prose() -> None:
    planted = '''"""Voices a line (measured 2026-12-07)."""
x = 1  # 85 -> 80 s on a cold render
def f() -> None:
    """Quicker now (load 14)."""
y = "2026-12-07 -> 3 s"  # a string the program uses is not prose
z = 2  # the loader reads 3 files; a clip of 10 s moves to 12 s at rate 0.8
'''
    assert [(line, what) for line, what, _ in findings(planted)] == [
        (2, "a before/after figure"), (1, "a date"), (4, "a load average")]
    assert Path(__file__).read_text(encoding="utf-8")  # the checker reads files as the test above does
