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


def split_phonemes(text: str) -> list[tuple[bool, str]]:
    """``a [[h@'loU]] b`` -> [(False, "a "), (True, "[[h@'loU]]"), (False, " b")].

    A block is ``[[`` ... ``]]`` on one line. Found with ``str.find`` and
    positions that only move forward: a lazy regex rescanned the rest of the
    line from every unclosed ``[[`` (40 kB of them took 20 s).
    """
    parts: list[tuple[bool, str]] = []
    last = pos = 0
    close = newline = -1
    while (opening := text.find("[[", pos)) != -1:
        if close < opening + 2:
            close = text.find("]]", opening + 2)
            if close == -1:
                break  # no block can close after here
        if newline < opening:
            newline = text.find("\n", opening) % (len(text) + 1)  # -1 -> len(text)
        if newline < close:  # every opening before that newline closes after it
            pos = newline + 1
            continue
        if opening > last:
            parts.append((False, text[last:opening]))
        parts.append((True, text[opening:close + 2]))
        last = pos = close + 2
    if last < len(text) or not parts:
        parts.append((False, text[last:]))
    return parts


def _without_phonemes(text: str, replacement: str) -> str:
    return "".join(replacement if block else part for block, part in split_phonemes(text))


def clean(text: str) -> str:
    """Remove everything that must not be read aloud; keep ``[[phonemes]]``."""
    out = []
    for block, part in split_phonemes(text):
        if block:
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
    # A key of no words would match between every two words: never an entry.
    words = sorted((w for w in lexicon if w.strip()), key=len, reverse=True)
    if not words:
        return text, ()
    used: dict[str, str] = {}
    by_fold = {}
    for word in reversed(words):  # the longest spelling of a folded key wins, as in the pattern
        by_fold[word.casefold()] = word
    # One pass with one alternation, longest first ("New York" wins over
    # "York"): a replacement is never rewritten by another entry.
    alternation = "|".join(re.escape(w) for w in words)
    pattern = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE)

    def entry_for(found: str) -> str:
        # The regex's case-insensitive match is not case folding ("ſ" matches
        # "s", "İ" folds to two letters), so when folding misses, ask the
        # regex which entry it matched, in the order the alternation tried them.
        word = by_fold.get(found.casefold())
        if word is not None:
            return word
        return next(w for w in words if re.fullmatch(re.escape(w), found, re.IGNORECASE))

    def replace(match: re.Match[str]) -> str:
        word = entry_for(match.group(0))
        used[word] = lexicon[word]
        return lexicon[word]

    # ``[[phonemes]]`` blocks are the producer's exact pronunciation: never touched.
    out = [part if block else pattern.sub(replace, part) for block, part in split_phonemes(text)]
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
    groups: list[list[str]] = []
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        # Only the last piece can end the sentence in an abbreviation: testing
        # it (not the sentence built so far) keeps "Mr. Mr. Mr. ..." linear.
        if groups and _ends_with_abbreviation(groups[-1][-1]):
            groups[-1].append(piece)
        else:
            groups.append([piece])
    return [" ".join(group) for group in groups]


def _ends_with_abbreviation(text: str) -> bool:
    # The longest abbreviation is five characters ("Prof."); eight leave room
    # for the word boundary before it without scanning a long text.
    return _ABBREVIATION.search(text[-8:]) is not None


def _pack(pieces: list[str], max_chars: int) -> list[str]:
    """Join pieces greedily into units of at most ``max_chars``. A unit never
    ends on an abbreviation ("Mr."): that word moves on with what follows it."""
    units: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + 1 + len(piece) > max_chars:
            head, _, tail = current.rpartition(" ")
            if head and _ends_with_abbreviation(tail) and len(tail) + 1 + len(piece) <= max_chars:
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
    text = _without_phonemes(text, " ")
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
    if not any(c.isalnum() for c in _without_phonemes(spoken, "x")):
        raise TextError(f"nothing speakable in {text.strip()[:60]!r} (only markup, emoji or punctuation)")
    return PreparedText(units=tuple(split_units(spoken, max_chars)), lexicon_used=used)
