"""A line's text as the words a person says: lower case, written forms said.

The recognizer hears "nineteen sixty two" where the script has "1962", and
"twenty pounds" for "£20"; both sides are compared as these words. The
written forms are said by engine.text, the normalizer the voices use, so
the check expects exactly what the voice was given to say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.text import normalize

_WORD = re.compile(r"[a-zA-Z]+(?:'[a-zA-Z]+)*")


def spoken_words(text: str, language: str = "en-us", protected: Sequence[tuple[int, int]] = ()) -> list[str]:
    """The words of ``text`` as spoken, lower case, in order; ``protected``:
    (start, end) spans kept as written (the lexicon's entries)."""
    return [w.lower() for w in _WORD.findall(normalize(text, language, protected).text)]
