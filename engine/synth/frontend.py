"""Text frontend: what of a line is spoken, and in which units.

Decisions made here, deliberately:
- Markup is never read aloud: HTML/SSML-like tags, Fountain emphasis
  (``*``, ``_``), bracketed stage directions (``[laughs]``) and emoji are
  removed. ``[[phonemes]]`` blocks are kept for Piper.
- Written forms (numbers, money, dates, times, units, abbreviations, roman
  numerals, addresses, symbols) are said as words by engine.text before
  espeak-ng sees them: espeak-ng reads "£20" as "pound twenty". The lexicon
  goes first and its replacements (and ``[[phoneme]]`` blocks) are left as
  they are, so an entry for a written form ("St." -> "Saint") wins. The
  spoken text is the units, hence the cache key: new rules re-voice only
  the lines they read differently.
- The lexicon replaces whole words (case-insensitive) by a respelling or a
  ``[[phoneme]]`` block; the entries actually used go into the cache key, so
  editing one entry re-synthesizes only the lines that use it. A role's
  entries come as a ChainMap over the project's (``Project.lexicon_for``):
  each layer is indexed once and looked up in order, the role's first.
- Long sentences are split at clause and then word boundaries so no unit
  exceeds what the model handles well (VITS degrades on very long inputs).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass

from engine.synth.errors import TextError
from engine.text import normalize

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
_WORD_CHAR = re.compile(r"\w")
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


@dataclass(frozen=True)
class _LexiconIndex:
    """A lexicon's keys by their lower case, and the key lengths there are, longest first."""

    by_lower: dict[str, str]
    lengths: tuple[int, ...]


# Built once per lexicon, not once per line: a production's lexicon can hold 150,000 entries
# and every line is planned through here. Keyed by the mapping's identity (kept alive here, so
# the id is not reused) and checked against its size: callers hand a production's lexicon,
# which is replaced rather than edited in place (the loader and the session's snapshots).
_INDEXES: dict[int, tuple[Mapping[str, str], int, _LexiconIndex]] = {}
_INDEXES_LOCK = threading.Lock()
_MAX_INDEXES = 8


def _index(lexicon: Mapping[str, str]) -> _LexiconIndex:
    with _INDEXES_LOCK:
        entry = _INDEXES.get(id(lexicon))
    if entry is not None and entry[0] is lexicon and entry[1] == len(lexicon):
        return entry[2]
    # A key of no words would match between any two words: never an entry.
    words = [word for word in lexicon if word.strip()]
    by_lower = {word.lower(): word for word in words}
    index = _LexiconIndex(by_lower, tuple(sorted({len(w) for w in words}, reverse=True)))
    with _INDEXES_LOCK:
        if len(_INDEXES) >= _MAX_INDEXES:
            _INDEXES.pop(next(iter(_INDEXES)))
        _INDEXES[id(lexicon)] = (lexicon, len(lexicon), index)
    return index


def _is_word_char(ch: str) -> bool:
    return _WORD_CHAR.match(ch) is not None


_Layer = tuple[Mapping[str, str], _LexiconIndex]


def _replace_words(text: str, layers: list[_Layer], lengths: tuple[int, ...], used: dict[str, str],
                   spans: list[tuple[int, int]] | None = None, offset: int = 0,
                   found_at: list[tuple[int, int]] | None = None) -> str:
    """Left to right, at each place a word may start, the longest entry that ends where a word
    may end (the first layer that has it); a replacement is never looked at again. Linear in the
    text, whatever the lexicon's size. ``spans``: gets each replacement's (start, end) in the
    result, plus ``offset``; ``found_at``: each entry's (start, end) in ``text``, plus ``offset``."""
    out: list[str] = []
    written = offset  # characters of the result so far
    n, p, copied = len(text), 0, 0
    while p < n:
        if p == 0 or not _is_word_char(text[p - 1]):
            for length in lengths:
                end = p + length
                if end > n or (end < n and _is_word_char(text[end])):
                    continue
                found = _lookup(text[p:end].lower(), layers)
                if found is not None:
                    word, say = found
                    out.append(text[copied:p])
                    out.append(say)
                    written += p - copied
                    if spans is not None:
                        spans.append((written, written + len(say)))
                    if found_at is not None:
                        found_at.append((offset + p, offset + end))
                    written += len(say)
                    used[word] = say
                    p = copied = end
                    break
            else:
                p += 1
            continue
        p += 1
    out.append(text[copied:])
    return "".join(out)


def _lookup(lower: str, layers: list[_Layer]) -> tuple[str, str] | None:
    for lexicon, index in layers:
        word = index.by_lower.get(lower)
        say = lexicon.get(word) if word is not None else None
        if word is not None and say is not None:
            return word, say
    return None


def apply_lexicon(text: str, lexicon: Mapping[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Replace whole words (case-insensitive); return the text and the (sorted) entries used.

    "New York" wins over "York" (longest first, across layers), and a
    replacement is never rewritten by another entry. A ChainMap's maps are
    layers: for one word, the first that has it wins."""
    said, used, _ = lexicon_applied(text, lexicon)
    return said, used


def lexicon_applied(text: str, lexicon: Mapping[str, str]
                    ) -> tuple[str, tuple[tuple[str, str], ...], list[tuple[int, int]]]:
    """:func:`apply_lexicon`, and the (start, end) in the result of what the producer
    decided: each replacement and each ``[[phoneme]]`` block (the normalizer leaves them)."""
    layers, lengths = _layers(lexicon)
    used: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    out: list[str] = []
    at = 0
    # ``[[phonemes]]`` blocks are the producer's exact pronunciation: never touched.
    for block, part in split_phonemes(text):
        if block:
            spans.append((at, at + len(part)))
        elif lengths:
            part = _replace_words(part, layers, lengths, used, spans, at)
        out.append(part)
        at += len(part)
    return "".join(out), tuple(sorted(used.items())), spans


def lexicon_spans(text: str, lexicon: Mapping[str, str]) -> list[tuple[int, int]]:
    """Where in ``text`` the lexicon has entries, and its ``[[phoneme]]`` blocks:
    what the normalizer leaves as written (the speech check expects those words
    as written, said as their entries say)."""
    layers, lengths = _layers(lexicon)
    spans: list[tuple[int, int]] = []
    at = 0
    for block, part in split_phonemes(text):
        if block:
            spans.append((at, at + len(part)))
        elif lengths:
            _replace_words(part, layers, lengths, {}, None, at, spans)
        at += len(part)
    return spans


def _layers(lexicon: Mapping[str, str]) -> tuple[list[_Layer], tuple[int, ...]]:
    maps = lexicon.maps if isinstance(lexicon, ChainMap) else [lexicon]
    layers = [(m, _index(m)) for m in maps]
    lengths = layers[0][1].lengths if len(layers) == 1 else tuple(
        sorted({n for _, index in layers for n in index.lengths}, reverse=True))
    return layers, lengths


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
            if len(clause) <= max_chars:
                pieces.append(clause)
                continue
            for word in clause.split(" "):  # a "word" longer than a unit (19,990 digits) is cut: the
                # model's attention grows with the square of its input
                pieces.extend(word[k:k + max_chars] for k in range(0, len(word), max_chars))
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


def spoken_form(text: str, lexicon: Mapping[str, str] | None = None, language: str = "en-us") -> str:
    """What a voice of ``language`` says for ``text``: cleaned, the lexicon
    applied, written forms said as words (engine.text), not yet split."""
    said, _, protected = lexicon_applied(clean(text), lexicon or {})
    return normalize(said, language, protected).text


def prepare(text: str, lexicon: Mapping[str, str] | None = None,
            max_chars: int = MAX_UNIT_CHARS, language: str = "en-us") -> PreparedText:
    """Clean, apply the lexicon, say written forms as words (for ``language``,
    the voice's espeak-ng language) and split; raise TextError if nothing is left."""
    if not text or not text.strip():
        raise TextError("text is empty")
    cleaned = clean(text)
    said, used, protected = lexicon_applied(cleaned, lexicon or {})
    spoken = normalize(said, language, protected).text
    if not any(c.isalnum() for c in _without_phonemes(spoken, "x")):
        raise TextError(f"nothing speakable in {text.strip()[:60]!r} (only markup, emoji or punctuation)")
    return PreparedText(units=tuple(split_units(spoken, max_chars)), lexicon_used=used)
