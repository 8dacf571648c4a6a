"""A stored voice design (engine.project.design) read back: each field checked, named where it fails."""

from __future__ import annotations

from typing import Any

from engine.project.design import FIELD_LIMITS, NEUTRAL, VoiceDesign
from engine.project.fileerrors import finite, join_path, kind_of
from engine.project.formatreader import Reader


def design_from_dict(r: Reader, value: Any, path: str, role: str) -> VoiceDesign:
    """A stored voice design (engine.project.design): each field a number in
    its bounds, no unknown field; ``role`` ("role 'X': ") leads each error."""
    if value is None:
        return NEUTRAL
    if not isinstance(value, dict):
        raise r.fail(path, f"{role}expected an object of design fields, got {kind_of(value)}")
    for key in value:
        if key not in FIELD_LIMITS:
            raise r.fail(join_path(path, str(key)), f"{role}unknown design field (known: {', '.join(FIELD_LIMITS)})")
    values: dict[str, float] = {}
    for key, (lo, hi) in FIELD_LIMITS.items():
        number = value.get(key, getattr(NEUTRAL, key))
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not finite(number):
            raise r.fail(join_path(path, key), f"{role}expected a number, got {kind_of(number)}")
        if not lo <= number <= hi:
            raise r.fail(join_path(path, key), f"{role}{number} is out of range [{lo:g}, {hi:g}]")
        values[key] = float(number)
    return VoiceDesign(**values)
