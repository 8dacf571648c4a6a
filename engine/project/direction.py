"""A line's written text as it is performed: spoken phrases, pauses and directions.

Writers direct lines in the text itself: ``(whispering) He has the wrong
ticket.``, ``Tickets, please. (beat) Both of you.``, ``Come here, Lucy.
(quietly) She has been waiting.`` Everything in parentheses or square brackets
inside dialogue is direction (the screenplay convention): never spoken, never
captioned, wherever it stands. ``Line.text`` keeps what the writer wrote; this
module computes the performed view from it (and from the line's Delivery
note), so a project file is read and written as before.

- A timing direction, ``(beat)``, ``(pause)``, ``(long pause)``, ``[pause 2]``
  (seconds), is silence where it stands; the named lengths are the project's
  (:class:`~engine.project.model.Timing`).
- A delivery (``(quietly)``, ``(very angry)``, ``(a little sad)``) is performed
  from where it stands to the end of the line or the next delivery, which
  replaces it; a leading one (or the Delivery note) directs the whole line.
  Several in one group combine: ``(angry, quietly)``.
- A direction outside the vocabulary (``(to Lucy)``) is kept and shown as
  unperformed; it is still never spoken. In the Delivery note, a perspective
  (``(on radio)``, ``(O.S.)``: engine/project/staging_rules.py) is a
  "perspective" direction: the importer stages the line by it, so it is not
  performed by the voice but is not ignored either.
- ``*word*`` is emphasized: said a little higher, louder and slower.
- ``\\(``, ``\\)``, ``\\[``, ``\\]``, ``\\*`` are the characters themselves
  (a parenthesis a character must say); ``\\\\`` is a backslash.
- An unclosed ``(`` or ``[``: a vocabulary word right after it is taken as
  the direction and the rest is spoken; otherwise the words are spoken. Either
  way a one-line warning names the column (the importer adds the line).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from engine.project.deliveries import (
    INTENSITIES,
    NEUTRAL_PERFORMANCE,
    Performance,
    delivery,
    match_delivery,
    match_leading_delivery,
)
from engine.project.design import VoiceDesign
from engine.project.model import Timing
from engine.project.staging_rules import perspective_words

# What an emphasized word does (on top of the line's delivery).
EMPHASIS = Performance(VoiceDesign(f0_shift=1.5, f0_range=1.2, gain=2.0, rate=0.9))
ESCAPABLE = "()[]*\\"
_OPENERS = {"(": ")", "[": "]"}
_TERM_SPLIT = re.compile(r"\s*(?:[,;/]|\band\b|\bthen\b|[()\[\]])\s*")
_SECONDS = re.compile(r"^(?:pause|wait|silence)?\s*(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)?$")
_NAMED_PAUSES = {"beat": "beat", "a beat": "beat", "short pause": "beat", "brief pause": "beat",
                 "pause": "pause", "a pause": "pause", "pauses": "pause",
                 "long pause": "long_pause", "a long pause": "long_pause", "long beat": "long_pause",
                 "silence": "long_pause"}


@dataclass(frozen=True)
class Direction:
    """One term of a parenthesized or bracketed group, where it stands.

    ``kind``: "delivery" (performed), "pause" (a silence), "perspective" (a
    Delivery note's staging words: the line's perspective, ``name``) or
    "unknown" (kept, not performed). ``start``/``end``: the group's characters in the written
    text, brackets included (several terms of one group share them)."""

    text: str
    kind: str
    start: int
    end: int
    name: str = ""  # the vocabulary's name of a delivery; "beat" / "pause" / "long_pause" / "seconds"
    intensity: str = "default"  # light / default / strong
    seconds: float = 0.0  # an explicit pause's length ("[pause 2]")

    @property
    def performed(self) -> bool:
        return self.kind != "unknown"

    def label(self) -> str:
        """How the studio names it: ``quietly``, ``very quietly`` or ``slightly quietly``;
        ``on radio (radio)`` for a perspective."""
        if self.kind == "perspective":
            return f"{self.text} ({self.name})"
        if self.kind != "delivery":
            return self.text
        return {"light": "slightly ", "strong": "very "}.get(self.intensity, "") + self.name

    def performance(self) -> Performance:
        if self.kind != "delivery":
            return NEUTRAL_PERFORMANCE
        return delivery(self.name).performance.scaled(INTENSITIES[self.intensity])

    def pause_seconds(self, timing: Timing) -> float:
        return self._seconds(_lengths(timing))

    def _seconds(self, lengths: tuple[float, float, float]) -> float:
        if self.kind != "pause":
            return 0.0
        if self.name == "seconds":
            return self.seconds
        return lengths[("beat", "pause", "long_pause").index(self.name)]


@dataclass(frozen=True)
class Phrase:
    """Words said one way: ``pause_before`` seconds of silence first (a timing
    direction before them), then ``words`` (what is spoken, markup and
    directions removed) with ``deliveries`` in force."""

    words: str
    pause_before: float = 0.0
    deliveries: tuple[Direction, ...] = ()
    emphasized: bool = False

    def performance(self) -> Performance:
        out = NEUTRAL_PERFORMANCE
        for d in self.deliveries:
            out = out.then(d.performance())
        return out.then(EMPHASIS) if self.emphasized else out


@dataclass(frozen=True)
class DirectedLine:
    phrases: tuple[Phrase, ...]
    directions: tuple[Direction, ...]  # every direction of the text, in order (the note's not included)
    warnings: tuple[str, ...]
    trailing_pause: float = 0.0  # silence after the last words ("Gone. (long pause)")

    @property
    def spoken(self) -> str:
        """What is said and captioned: the words without directions or markup."""
        return " ".join(p.words for p in self.phrases if p.words)

    @property
    def is_plain(self) -> bool:
        """Said as written: one phrase, nothing performed, no pauses (its clip keys as it always did)."""
        return (len(self.phrases) <= 1 and not self.trailing_pause
                and all(p.pause_before == 0 and p.performance().is_neutral for p in self.phrases))


@dataclass(frozen=True)
class _Words:
    text: str
    emphasized: bool = False


@dataclass(frozen=True)
class _Group:
    inner: str
    start: int
    end: int


def parse_line(text: str, note: str = "", timing: Timing | None = None) -> DirectedLine:
    """The performed view of a line's written ``text`` and its Delivery ``note``
    (the note directs the whole line, as a leading direction does)."""
    return _parse(text, note, _lengths(timing or Timing()))


def spoken_text(text: str) -> str:
    """``text`` without its directions (captions, the cue sheet, the speech check)."""
    return _parse(text, "", _lengths(Timing())).spoken


def direction_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Where ``text``'s directions stand (brackets included): never words."""
    return tuple(sorted({(d.start, d.end) for d in _parse(text, "", _lengths(Timing())).directions}))


def lead_pause(text: str, note: str, timing: Timing) -> float:
    """Silence a line's directions ask for before its first words ("(beat) Then go.", a
    Delivery note of "beat"): the timeline adds it to the line's own pause before."""
    if not note and not text.lstrip().startswith(("(", "[")):
        return 0.0  # most lines: no parse on the timeline's path
    lengths = _lengths(timing)
    before = sum(d._seconds(lengths) for d in note_directions(note))
    directed = _parse(text, "", lengths)
    return before + (directed.phrases[0].pause_before if directed.phrases else directed.trailing_pause)


@functools.lru_cache(maxsize=4096)
def note_directions(note: str) -> tuple[Direction, ...]:
    """A Delivery note's terms, classified (``"very quietly; to Lucy"``; ``"on radio"``
    a perspective)."""
    return tuple(_classify(note, 0, len(note), staging=True))


def _lengths(timing: Timing) -> tuple[float, float, float]:
    return (timing.beat, timing.pause, timing.long_pause)


@functools.lru_cache(maxsize=4096)  # planning, captions and the studio ask for the same lines again and again
def _parse(text: str, note: str, lengths: tuple[float, float, float]) -> DirectedLine:
    tokens, warnings = _tokens(text)
    current = tuple(d for d in note_directions(note) if d.kind == "delivery")
    directions: list[Direction] = []
    phrases: list[Phrase] = []
    buffer: list[str] = []
    pending = 0.0

    def flush(emphasized: bool = False) -> None:
        nonlocal pending
        words = _collapse("".join(buffer))
        buffer.clear()
        if any(c.isalnum() for c in words):
            phrases.append(Phrase(words, pending, current, emphasized))
            pending = 0.0
        elif words and phrases:  # punctuation after a direction belongs to the words before it
            last = phrases[-1]
            phrases[-1] = Phrase(_collapse(last.words + words), last.pause_before, last.deliveries, last.emphasized)

    for token in tokens:
        if isinstance(token, _Words):
            if token.emphasized:
                flush()
                buffer.append(token.text)
                flush(emphasized=True)
            else:
                buffer.append(token.text)
            continue
        terms = _classify(token.inner, token.start, token.end)
        directions.extend(terms)
        pauses = [t for t in terms if t.kind == "pause"]
        deliveries = tuple(t for t in terms if t.kind == "delivery")
        if pauses or deliveries:
            flush()
            buffer.append(" ")
        pending += sum(p._seconds(lengths) for p in pauses)
        if deliveries:
            current = deliveries
    flush()
    return DirectedLine(tuple(phrases), tuple(directions), tuple(warnings), trailing_pause=pending)


def _collapse(text: str) -> str:
    return re.sub(r"\s+([,.;:!?])", r"\1", " ".join(text.split()))


def _classify(inner: str, start: int, end: int, staging: bool = False) -> list[Direction]:
    out: list[Direction] = []
    whole = " ".join(inner.split()).strip(" .")
    for term in [whole] if _pause_of(whole) or match_delivery(whole) else _TERM_SPLIT.split(inner):
        term = " ".join(term.split()).strip(" .!?")
        if not term:
            continue
        pause = _pause_of(term)
        if pause is not None:
            out.append(Direction(term, "pause", start, end, pause[0], seconds=pause[1]))
            continue
        found = match_delivery(term)
        seen = perspective_words(term) if staging and found is None else None
        if found is not None:
            out.append(Direction(term, "delivery", start, end, found[0].name, found[1]))
        elif seen is not None:
            out.append(Direction(term, "perspective", start, end, seen.perspective))
        else:
            out.append(Direction(term, "unknown", start, end))
    if not out and whole:
        out.append(Direction(whole, "unknown", start, end))
    return out


def _pause_of(term: str) -> tuple[str, float] | None:
    lower = term.lower()
    if lower in _NAMED_PAUSES:
        return _NAMED_PAUSES[lower], 0.0
    m = _SECONDS.match(lower)
    if m and (lower.startswith(("pause", "wait", "silence")) or lower[-1:].isalpha()):
        return "seconds", min(float(m.group(1)), 60.0)
    return None


def _tokens(text: str) -> tuple[list[_Words | _Group], list[str]]:
    """Words (escapes resolved, emphasis found) and bracket groups, in order."""
    out: list[_Words | _Group] = []
    warnings: list[str] = []
    words: list[str] = []
    i, n = 0, len(text)
    closes = _matches(text)
    emphasis_ends = _emphasis_ends(text) if "*" in text else []

    def words_done() -> None:
        if words:
            out.append(_Words("".join(words)))
            words.clear()

    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in ESCAPABLE:
            words.append(text[i + 1])
            i += 2
            continue
        if ch in _OPENERS:
            close = closes.get(i)
            if close is None:
                rest = text[i + 1:]
                found = match_leading_delivery(rest.lstrip())
                skip = len(rest) - len(rest.lstrip())
                if found is not None:
                    _, _, length = found
                    words_done()
                    out.append(_Group(rest[skip:skip + length], i, i + 1 + skip + length))
                    warnings.append(f"unclosed {ch!r} at column {i + 1}: read as the direction "
                                    f"({rest[skip:skip + length]}); close it, or write \\{ch} to say it")
                    i += 1 + skip + length
                else:
                    warnings.append(f"unclosed {ch!r} at column {i + 1}: its words are spoken; "
                                    f"close it, or write \\{ch} to say it")
                    i += 1
                continue
            words_done()
            out.append(_Group(text[i + 1:close], i, close + 1))
            i = close + 1
            continue
        if ch == "*" and i + 1 < n and not text[i + 1].isspace() and text[i + 1] != "*":
            end = emphasis_ends[i + 1]
            if end > i + 1:
                words_done()
                out.append(_Words(text[i + 1:end].replace("\\*", "*"), emphasized=True))
                i = end + 1
                continue
        if ch in ")]":  # a closer with no opener is not a word either
            warnings.append(f"unmatched {ch!r} at column {i + 1}: ignored; write \\{ch} to say it")
            i += 1
            continue
        words.append(ch)
        i += 1
    words_done()
    return out, warnings


def _matches(text: str) -> dict[int, int]:
    """Each opening bracket's closing position (nesting of either kind counted), in one
    pass: an unclosed one is absent. Linear, however many brackets a pasted line holds."""
    closes: dict[int, int] = {}
    stack: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in ESCAPABLE:
            i += 2
            continue
        if ch in "([":
            stack.append(i)
        elif ch in ")]" and stack:
            closes[stack.pop()] = i
        i += 1
    return closes


def _emphasis_ends(text: str) -> list[int]:
    """For each position, the closing ``*`` of an emphasis opened just before it, or -1:
    the next ``*`` after a non-space, unless a bracket or a line break comes first.
    One backward pass (a scan from every ``*`` was quadratic)."""
    ends = [-1] * (len(text) + 1)
    nearest = -1
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch in "([\n":
            nearest = -1
        elif ch == "*" and i > 0 and not text[i - 1].isspace() and text[i - 1] != "\\":
            nearest = i
        ends[i] = nearest
    return ends
