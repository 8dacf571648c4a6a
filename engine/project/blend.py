"""A Kokoro voice as it is written in a project: one style vector or a blend.

A role's voice is ``"af_heart"`` (one style vector of the voices file) or a
weighted mix ``"af_heart:0.6+af_bella:0.4"``: the style vectors are summed
with these weights (divided by their sum, so ``3`` and ``2`` mean 60/40).
The string is the file-format representation on purpose: it keeps
``VoiceParams.voice`` one string for the studio, the CLI and the service,
the file reproduces the mix exactly, and a producer can type or read it.

It lives in the project floor because the file loader validates it; the
Kokoro backend (engine.synth) resolves the names against its voices file.
"""

from __future__ import annotations

import math
import re

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
MAX_PARTS = 8


class BlendError(ValueError):
    """A Kokoro voice string is malformed (the message says what and where)."""


def parse_blend(spec: str) -> tuple[tuple[str, float], ...]:
    """``"a:0.6+b:0.4"`` -> ``(("a", 0.6), ("b", 0.4))``; ``"a"`` -> ``(("a", 1.0),)``.

    Names repeat at most once, weights are finite and positive. Raises
    BlendError with a one-line reason.
    """
    if not spec.strip():
        raise BlendError("empty Kokoro voice (write a style name such as af_heart, or a blend "
                         "such as af_heart:0.6+af_bella:0.4)")
    parts = [p.strip() for p in spec.split("+")]
    if len(parts) > MAX_PARTS:
        raise BlendError(f"a blend mixes at most {MAX_PARTS} style vectors, got {len(parts)}")
    out: list[tuple[str, float]] = []
    for part in parts:
        name, sep, weight_text = part.partition(":")
        name = name.strip()
        if not _NAME.match(name):
            raise BlendError(f"bad style name {name!r} in {spec!r} (letters, digits, _ . -)")
        weight = 1.0
        if sep:
            try:
                weight = float(weight_text)
            except ValueError:
                raise BlendError(f"weight {weight_text.strip()!r} of {name!r} is not a number") from None
            if not math.isfinite(weight) or weight <= 0:
                raise BlendError(f"weight of {name!r} must be a positive number, got {weight_text.strip()}")
        elif len(parts) > 1:
            raise BlendError(f"{name!r} needs a weight in a blend (write {name}:0.5)")
        if any(name == seen for seen, _ in out):
            raise BlendError(f"style {name!r} appears twice in {spec!r}")
        out.append((name, weight))
    return tuple(out)


def canonical_blend(spec: str) -> str:
    """One spelling per mix (weights normalized, names sorted): the cache key
    part, so ``a:3+b:2`` and ``b:0.4+a:0.6`` share their clips."""
    parts = parse_blend(spec)
    if len(parts) == 1:
        return parts[0][0]
    total = sum(w for _, w in parts)
    return "+".join(f"{name}:{w / total:.6g}" for name, w in sorted(parts))
