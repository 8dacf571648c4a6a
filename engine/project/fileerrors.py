"""How a project file's error names what it found: a value's kind, its path in the file.

Shared by the file format and the formats of its parts (engine/project/*format.py), so every
error reads the same ("cast[0].voice.speed: expected a number, got a string").
"""

from __future__ import annotations

import math
from typing import Any

from engine.terminal_text import echo


def finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # a JSON integer too large for a float
        return False


# A key of the file shown in a path (an unknown field's name may be a megabyte long).
KEY_CHARS = 60


def join_path(path: str, key: str) -> str:
    """``path.key``, the key escaped and capped (engine/terminal_text.py): it comes from the file."""
    shown = echo(key, KEY_CHARS)
    return f"{path}.{shown}" if path else shown


def kind_of(value: Any) -> str:
    kind = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value))
    if kind is not None:  # never repr() a container: it may be huge or nested past the recursion limit
        return kind
    if isinstance(value, int) and abs(value) >= 10**30:
        return "a number too large"
    return repr(value)[:40]
