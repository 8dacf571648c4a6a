"""How strictly the table read judges the reader (``radioplay rehearse --strictness``).

A strictness is how much of the line must be heard before it counts as said,
how a heard word is matched to the line's words, and whether a long pause
after most of a line accepts a paraphrased ending:

- ``loose``: a third of the line's words, one of its last three; a word
  matches another alike in its first letters ("waited" for "waiting"); a
  long pause after half of it ends the line. For a first read, script in hand.
- ``normal`` (the default): half of the words, one of the last two; exact
  words; a long pause after 70 % of it ends the line.
- ``strict``: 85 % of the words, the last one heard; exact words; no
  paraphrase: only the line's own end ends it (or the give-up time). For
  learning the lines word for word.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.listen.follow import NORMAL_JUDGING, Judging


@dataclass(frozen=True)
class Strictness:
    name: str
    judging: Judging
    paraphrase_coverage: float | None  # a long pause after this share of the line ends it; None: never
    summary: str  # how the studio describes it


STRICTNESS: dict[str, Strictness] = {s.name: s for s in (
    Strictness("loose", Judging(end_words=3, min_coverage=0.34, stems=True), 0.5,
               "a third of the line, words alike count, paraphrase welcome"),
    Strictness("normal", NORMAL_JUDGING, 0.7, "half of the line and its end, paraphrase after 70 %"),
    Strictness("strict", Judging(end_words=1, min_coverage=0.85), None,
               "85 % of the words and the last one, word for word"),
)}
NORMAL = STRICTNESS["normal"]


def strictness(name: str) -> Strictness:
    try:
        return STRICTNESS[name]
    except KeyError:
        raise ValueError(f"--strictness {name!r}: one of {', '.join(STRICTNESS)}") from None
