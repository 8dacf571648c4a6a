"""Written forms to spoken words: the rules engine.

A rule is a category, a pattern and a function that says a match aloud (or
declines, returning None, so a later rule may try the same place). All rules
are matched over the whole text; at each place the earliest match wins, ties
going to the rule listed first (engine.text.rules: web addresses before
money before times ... before plain numbers). What a rule rewrites is kept
as a :class:`Rewrite` (where in the written text, what is said), so word
timings can be mapped back onto the written words and captions keep the
written form.

Spans the producer has decided already (lexicon replacements, ``[[phoneme]]``
blocks) are ``protected``: no rule touches them, so the lexicon wins.

Only English is normalized. Other languages pass through unchanged:
espeak-ng's own rules read their numbers (its Spanish, French, Italian,
Portuguese and Hindi voices spell digits in their language), and Kokoro's
Japanese and Mandarin styles speak English text here (kokoro_phonemes), so
they go through the English rules. Adding a language is a rule list in
``RULES`` under its code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Part of the clip's identity only through what it changes: a clip is keyed by
# its spoken text, so a new rule set re-voices exactly the lines it reads
# differently. Bumped with every change of what the rules say.
RULES_VERSION = "en-1"

_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z']*)\W*$")
_WORD_AFTER = re.compile(r"^\W*?([A-Za-z][A-Za-z']*)")
_SPACES = re.compile(r"[ \t]+")
_SPACE_BEFORE_PUNCT = re.compile(r" +([,.;:!?])")


@dataclass(frozen=True)
class Context:
    """What a rule may look at around its match."""

    text: str
    start: int
    end: int
    language: str

    def word_before(self) -> str:
        """The word just before the match, as written ("" at the start)."""
        m = _WORD_BEFORE.search(self.text[max(0, self.start - 40):self.start])
        return m.group(1) if m else ""

    def word_after(self) -> str:
        m = _WORD_AFTER.search(self.text[self.end:self.end + 40])
        return m.group(1) if m else ""

    def gap_before(self) -> str:
        """The characters between the previous word and the match."""
        head = self.text[max(0, self.start - 40):self.start]
        m = _WORD_BEFORE.search(head)
        return head[m.end(1):] if m else head

    def ends_sentence(self) -> bool:
        """Whether the match's final full stop also ends the sentence: it is
        followed by nothing, or by a capital letter or opening quote."""
        if not self.text[self.start:self.end].endswith("."):
            return False
        rest = self.text[self.end:].lstrip()
        return not rest or rest[0].isupper() or rest[0] in "\"'“‘(["


Speaker = Callable[[re.Match[str], Context], str | None]


@dataclass(frozen=True)
class Rule:
    category: str
    pattern: re.Pattern[str]
    speak: Speaker


@dataclass(frozen=True)
class Rewrite:
    """``text[start:end]`` (written) is said as ``spoken``."""

    start: int
    end: int
    written: str
    spoken: str
    category: str


@dataclass(frozen=True)
class Normalized:
    text: str  # what is said
    rewrites: tuple[Rewrite, ...]

    @property
    def changed(self) -> bool:
        return bool(self.rewrites)


def is_normalized_language(language: str) -> bool:
    return language.lower().replace("_", "-").startswith("en")


def rewrites(text: str, rules: Sequence[Rule], language: str = "en-us",
             protected: Sequence[tuple[int, int]] = ()) -> tuple[Rewrite, ...]:
    """The rewrites the rules make in ``text``, in order, none overlapping each
    other or a protected (start, end) span."""
    if not is_normalized_language(language):
        return ()
    candidates: list[tuple[int, int, re.Match[str], Rule]] = []
    for priority, rule in enumerate(rules):
        candidates.extend((m.start(), priority, m, rule) for m in rule.pattern.finditer(text) if m.end() > m.start())
    candidates.sort(key=lambda c: (c[0], c[1]))
    out: list[Rewrite] = []
    pos = 0
    for start, _, m, rule in candidates:
        if start < pos or any(a < m.end() and start < b for a, b in protected):
            continue
        try:
            spoken = rule.speak(m, Context(text, start, m.end(), language))
        except (ArithmeticError, ValueError, LookupError):
            spoken = None  # a form no rule of this kind can read (a 400-digit number): the next rule's
        if spoken is None:
            continue
        out.append(Rewrite(start, m.end(), m.group(), spoken, rule.category))
        pos = m.end()
    return tuple(out)


def apply(text: str, found: Sequence[Rewrite]) -> str:
    """``text`` with its rewrites said: each spoken form set off by spaces
    ("A&E" -> "A and E"), spaces then tidied."""
    if not found:
        return text
    parts: list[str] = []
    pos = 0
    for rewrite in found:
        parts.append(text[pos:rewrite.start])
        parts.append(f" {rewrite.spoken} ")
        pos = rewrite.end
    parts.append(text[pos:])
    joined = _SPACES.sub(" ", "".join(parts))
    return _SPACE_BEFORE_PUNCT.sub(r"\1", joined).strip()
