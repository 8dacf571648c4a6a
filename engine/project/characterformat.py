"""A role's character (gender, age, evidence) in the ``.radioplay`` file: the
``"character"`` object of a cast entry, written only when something is known."""

from __future__ import annotations

from typing import Any

from engine.project.formatreader import Reader
from engine.project.model import AGES, GENDERS, Character

FIELDS = ("gender", "age", "evidence", "by_producer")


def character_to_dict(c: Character) -> dict[str, Any]:
    return {"gender": c.gender, "age": c.age, "evidence": c.evidence, "by_producer": c.by_producer}


def character_from_dict(r: Reader, value: Any, path: str) -> Character:
    """A stored character; an unknown field or value is a one-line error naming its path."""
    d = r.obj(value, path)
    unknown = sorted(set(d) - set(FIELDS))
    if unknown:
        raise r.fail(f"{path}.{unknown[0]}", f"unknown field (known: {', '.join(sorted(FIELDS))})")
    gender = r.text(d, "gender", path, "")
    if gender not in ("", *GENDERS):
        raise r.fail(f"{path}.gender", f"unknown gender {gender!r} (choose {', '.join(GENDERS)} or \"\")")
    age = r.text(d, "age", path, "")
    if age not in ("", *AGES):
        raise r.fail(f"{path}.age", f"unknown age {age!r} (choose {', '.join(AGES)} or \"\")")
    return Character(gender=gender, age=age, evidence=r.text(d, "evidence", path, ""),
                     by_producer=r.flag(d, "by_producer", path, False))
