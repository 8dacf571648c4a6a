"""Text normalization: written forms ("£20", "14th", "Dr.", "11:20") to the
words a speaker says, the same for the voices, the word timings and the
speech check (docs/dev/text-normalization.md).

Rules by category live in their own modules (quantities, dates, counting,
abbreviations, symbols); engine.text.normalizer runs them. Their order is
their priority where two could read the same place.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.text import abbreviations, counting, dates, quantities, symbols
from engine.text.normalizer import (
    RULES_VERSION,
    Normalized,
    Rewrite,
    Rule,
    apply,
    is_normalized_language,
    rewrites,
)

__all__ = ["ENGLISH", "RULES_VERSION", "Normalized", "Rewrite", "Rule", "is_normalized_language", "normalize"]

ENGLISH: tuple[Rule, ...] = (
    symbols.RULES                # addresses first: their dots and digits are not numbers
    + quantities.RULES[:3]       # money and percentages before the numbers inside them
    + dates.RULES                # "7pm", "11:20", "14 March 2019" before units ("7 m") and ordinals
    + quantities.RULES[3:]       # units, fractions ("3/4")
    + dates.NUMERIC_RULES        # then "3/14" is a date
    + abbreviations.RULES
    + counting.RULES
    + symbols.LAST_RULES
    + counting.LAST_RULES        # any number left
)


def normalize(text: str, language: str = "en-us", protected: Sequence[tuple[int, int]] = (),
              rules: Sequence[Rule] = ENGLISH) -> Normalized:
    """``text`` as said by a voice of ``language`` (an espeak-ng code), with
    the rewrites made; ``protected``: (start, end) spans left as written."""
    found = rewrites(text, rules, language, protected)
    return Normalized(apply(text, found), found)
