"""Text frontend: what of a line is spoken, and in which units.

Decisions made here, deliberately:
- Markup is never read aloud: HTML/SSML-like tags, Fountain emphasis
  (``*``, ``_``), bracketed stage directions (``[laughs]``) and emoji are
  removed. ``[[phonemes]]`` blocks are kept for Piper.
- Numbers and abbreviations are left to espeak-ng, which expands them well.
- The project lexicon replaces whole words (case-insensitive) by a respelling
  or a ``[[phoneme]]`` block; the entries actually used go into the cache
  key, so editing one entry re-synthesizes only the lines that use it.
- Long sentences are split at clause and then word boundaries so no unit
  exceeds what the model handles well (VITS degrades on very long inputs).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from engine.synth.errors import TextError

MAX_UNIT_CHARS = 240

_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_STAGE = re.compile(r"(?<!\[)\[(?!\[)[^\[\]]*\](?!\])")
_EMPHASIS = re.compile(r"(?<!\w)[*_]+|[*_]+(?!\w)")
_PHONEME_BLOCK = re.compile(r"(\[\[.*?\]\])")
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)]*\s+")
# Not sentence ends: "Mr. Alder", "Dr. No", "J. R. Hartley".
_ABBREVIATION = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Capt|Col|Gen|Lt|Sgt|Rev|No|vs|etc|a\.m|p\.m)|\b[A-Z])\.$")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")
_CLAUSE_END = re.compile(r"(?<=[,;:—–])\s+")
_SPACES = re.compile(r"\s+")
_TRANSLATE = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "…": "...", "\u00a0": " "})


@dataclass(frozen=True)
class PreparedText:
    """What will be spoken: normalized units plus the lexicon entries used."""

    units: tuple[str, ...]
    lexicon_used: tuple[tuple[str, str], ...]

    @property
    def normalized(self) -> str:
        return " ".join(self.units)


def _is_emoji(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or 0xFE00 <= cp <= 0xFE0F
        or cp in (0x200D, 0x20E3) or 0x1F1E6 <= cp <= 0x1F1FF
        or (unicodedata.category(ch) == "So" and cp > 0x2000)
    )


def clean(text: str) -> str:
    """Remove everything that must not be read aloud; keep ``[[phonemes]]``."""
    parts = _PHONEME_BLOCK.split(text)
    out = []
    for part in parts:
        if part.startswith("[[") and part.endswith("]]"):
            out.append(part)
            continue
        part = unicodedata.normalize("NFC", part).translate(_TRANSLATE)
        part = _TAG.sub(" ", part)
        part = _STAGE.sub(" ", part)
        part = _EMPHASIS.sub("", part)
        part = "".join(" " if _is_emoji(c) else c for c in part)
        part = "".join(c for c in part if unicodedata.category(c)[0] != "C" or c in "\n\t")
        out.append(part)
    return _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", "".join(out))).strip()


def apply_lexicon(text: str, lexicon: Mapping[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Replace whole words; return the text and the (sorted) entries used."""
    if not lexicon:
        return text, ()
    used: dict[str, str] = {}
    by_lower = {word.lower(): word for word in lexicon}
    # One pass with one alternation, longest first ("New York" wins over
    # "York"): a replacement is never rewritten by another entry.
    alternation = "|".join(re.escape(w) for w in sorted(lexicon, key=len, reverse=True))
    pattern = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE)

    def replace(match: re.Match[str]) -> str:
        word = by_lower[match.group(0).lower()]
        used[word] = lexicon[word]
        return lexicon[word]

    # ``[[phonemes]]`` blocks are the producer's exact pronunciation: never touched.
    parts = _PHONEME_BLOCK.split(text)
    out = [part if part.startswith("[[") and part.endswith("]]") else pattern.sub(replace, part)
           for part in parts]
    return "".join(out), tuple(sorted(used.items()))


def split_units(text: str, max_chars: int = MAX_UNIT_CHARS) -> list[str]:
    """Chunks of at most ``max_chars``: whole sentences where they fit, long
    sentences split at clauses, then at word boundaries.

    Short text stays one unit: espeak-ng splits sentences itself (and knows
    abbreviations), so splitting here is only about the model's input limit.
    """
    if len(text) <= max_chars:
        return [text]
    pieces: list[str] = []
    for sentence in _sentences(text):
        if len(sentence) <= max_chars:
            pieces.append(sentence)
            continue
        for clause in _CLAUSE_END.split(sentence.strip()):
            pieces.extend([clause] if len(clause) <= max_chars else clause.split(" "))
    return _pack(pieces, max_chars)


def _sentences(text: str) -> list[str]:
    """Split at sentence ends, but not after abbreviations and initials."""
    pieces = _SENTENCE_END.split(text)
    sentences: list[str] = []
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        if sentences and _ABBREVIATION.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


def _pack(pieces: list[str], max_chars: int) -> list[str]:
    """Join pieces greedily into units of at most ``max_chars``. A unit never
    ends on an abbreviation ("Mr."): that word moves on with what follows it."""
    units: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + 1 + len(piece) > max_chars:
            head, _, tail = current.rpartition(" ")
            if head and _ABBREVIATION.search(tail) and len(tail) + 1 + len(piece) <= max_chars:
                units.append(head)
                current = f"{tail} {piece}"
            else:
                units.append(current)
                current = piece
        else:
            current = f"{current} {piece}".strip()
    if current:
        units.append(current)
    return units


def caption_text(text: str) -> str:
    """What captions show: the words and stage directions, without markup
    or ``[[phoneme]]`` blocks (``[laughs]`` stays: it helps deaf viewers)."""
    text = _PHONEME_BLOCK.sub(" ", text)
    text = _TAG.sub(" ", text)
    text = _EMPHASIS.sub("", text)
    return _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", text)).strip()


def prepare(text: str, lexicon: Mapping[str, str] | None = None,
            max_chars: int = MAX_UNIT_CHARS) -> PreparedText:
    """Clean, apply the lexicon and split; raise TextError if nothing is left."""
    if not text or not text.strip():
        raise TextError("text is empty")
    cleaned = clean(text)
    spoken, used = apply_lexicon(cleaned, lexicon or {})
    if not any(c.isalnum() for c in _PHONEME_BLOCK.sub("x", spoken)):
        raise TextError(f"nothing speakable in {text.strip()[:60]!r} (only markup, emoji or punctuation)")
    return PreparedText(units=tuple(split_units(spoken, max_chars)), lexicon_used=used)
