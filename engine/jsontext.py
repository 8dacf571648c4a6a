"""JSON from outside (a catalogue, a request body): parsed or one clear error.

``json.loads`` lets three things through that later code trips over with a
traceback: ``Infinity``/``NaN`` and numbers like ``1e400`` (which become
infinite floats: OverflowError in ``int()``), and nesting deep enough to
exhaust the stack (RecursionError, which is not a ValueError). Every JSON
text that does not come from this program is read here instead.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any


class JSONTextError(ValueError):
    """Not usable JSON; the message says why (no source: the caller adds it)."""


def _no_constant(name: str) -> Any:
    raise JSONTextError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONTextError(f"the number {text[:40]} is out of range")
    return value


def loads_untrusted(data: bytes | str) -> Any:
    """The JSON value of ``data``; JSONTextError for invalid JSON, a
    non-finite number or nesting too deep to parse."""
    try:
        return json.loads(data, parse_constant=_no_constant, parse_float=_finite)
    except JSONTextError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONTextError(f"invalid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise JSONTextError("invalid JSON: nested too deeply") from None
    except UnicodeDecodeError:
        raise JSONTextError("invalid JSON: not UTF-8 text") from None
    except ValueError as exc:  # an integer with more digits than Python converts
        raise JSONTextError(f"invalid JSON: {str(exc).splitlines()[0][:120]}") from None


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def first_too_deep(text: str, max_depth: int) -> int:
    """Offset of the first bracket nested deeper than ``max_depth`` (strings skipped), or 0:
    where to point a reader at a file ``json`` could not parse for its depth."""
    depth = 0
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return m.start()
        elif token in "]}":
            depth -= 1
    return 0


def first_long_number(text: str) -> int:
    """Offset of the first number of a thousand digits or more (past Python's int limit), or 0."""
    m = re.search(r"\d{1000,}", text)
    return m.start() if m else 0


def line_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
