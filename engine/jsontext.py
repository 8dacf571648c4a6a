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
