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
- A pause longer than one direction may ask for (``[pause 600]``) is capped
  to it with a warning; what a whole line may ask for is checked by
  engine/project/bounds.py against the table in engine/project/defaults.py.

Parsing is linear in the text (tests/contracts/test_linear_time.py), and so
are its warnings: past a few of one kind in one line they are summarized.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass

from engine.project.defaults import LINE_BOUNDS
from engine.project.deliveries import (
    INTENSITIES,
    LONGEST_DELIVERY_CHARS,
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
_SPACE_RUN = re.compile(r"\s*")
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
    asked: float = 0.0  # what a capped explicit pause asked for (0: not capped)

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
    emphases: tuple[int, ...] = ()  # where each emphasized word's ``*`` stands in the text

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
    start: int = 0


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
    noted = note_directions(note)
    current = tuple(d for d in noted if d.kind == "delivery")
    warnings += [("capped", _capped_warning(d, "in the Delivery note")) for d in noted if d.asked]
    directions: list[Direction] = []
    # Each phrase's words as parts joined once at the end: punctuation after a direction
    # is added to the phrase before it, and rebuilding that phrase each time was quadratic.
    parts: list[list[str]] = []
    settings: list[tuple[float, tuple[Direction, ...], bool]] = []  # pause before, deliveries, emphasized
    emphases: list[int] = []
    buffer: list[str] = []
    pending = 0.0

    def flush(emphasized: bool = False) -> None:
        nonlocal pending
        raw = "".join(buffer)
        buffer.clear()
        if any(c.isalnum() for c in raw):
            parts.append([_collapse(raw)])
            settings.append((pending, current, emphasized))
            pending = 0.0
        elif parts:  # punctuation after a direction belongs to the words before it, without a space
            parts[-1].append(_collapse(raw))

    for token in tokens:
        if isinstance(token, _Words):
            if token.emphasized:
                flush()
                buffer.append(token.text)
                emphases.append(token.start)
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
        warnings += [("capped", _capped_warning(t, f"at column {t.start + 1}")) for t in pauses if t.asked]
        if deliveries:
            current = deliveries
    flush()
    phrases = tuple(Phrase("".join(words), before, acting, emphasized)
                    for words, (before, acting, emphasized) in zip(parts, settings, strict=True))
    return DirectedLine(phrases, tuple(directions), _summarized(warnings), trailing_pause=pending,
                        emphases=tuple(emphases))


def _collapse(text: str) -> str:
    return re.sub(r"\s+([,.;:!?])", r"\1", " ".join(text.split()))


def _capped_warning(pause: Direction, where: str) -> str:
    return (f"{pause.text!r} {where}: {pause.asked:g} s is longer than one pause may be; capped to "
            f"{pause.seconds:g} s (a longer silence goes before the next line, as its pause)")


def _summarized(warnings: list[tuple[str, str]]) -> tuple[str, ...]:
    """At most ``warnings_per_kind`` of one kind, then one line for the rest: (kind, warning) in order."""
    most = LINE_BOUNDS.warnings_per_kind
    total = Counter(kind for kind, _ in warnings)
    seen: Counter[str] = Counter()
    out: list[str] = []
    for kind, warning in warnings:
        seen[kind] += 1
        if seen[kind] < most or total[kind] <= most:
            out.append(warning)
        elif seen[kind] == most:
            out.append(f"{warning} (and {total[kind] - most:,} more like it in this line)")
    return tuple(out)


def _classify(inner: str, start: int, end: int, staging: bool = False) -> list[Direction]:
    out: list[Direction] = []
    whole = " ".join(inner.split()).strip(" .")
    # Split with its spaces collapsed: the pattern's \s* around a separator backtracks over a
    # long run of spaces from each of its positions.
    for term in [whole] if _pause_of(whole) or match_delivery(whole) else _TERM_SPLIT.split(" ".join(inner.split())):
        term = " ".join(term.split()).strip(" .!?")
        if not term:
            continue
        pause = _pause_of(term)
        if pause is not None:
            name, seconds = pause
            most = LINE_BOUNDS.direction_pause_s
            out.append(Direction(term, "pause", start, end, name, seconds=min(seconds, most),
                                 asked=seconds if seconds > most else 0.0))
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
    """(name, seconds asked for) of a timing direction, None for any other term."""
    lower = term.lower()
    if lower in _NAMED_PAUSES:
        return _NAMED_PAUSES[lower], 0.0
    m = _SECONDS.match(lower)
    if m and (lower.startswith(("pause", "wait", "silence")) or lower[-1:].isalpha()):
        return "seconds", float(m.group(1))
    return None


def _tokens(text: str) -> tuple[list[_Words | _Group], list[tuple[str, str]]]:
    """Words (escapes resolved, emphasis found) and bracket groups, in order; (kind, warning)s."""
    out: list[_Words | _Group] = []
    warnings: list[tuple[str, str]] = []
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
                # Only the vocabulary's longest word after the spaces is looked at: a line of
                # unclosed brackets must not copy the rest of the line for each of them.
                skip = _SPACE_RUN.match(text, i + 1).end() - (i + 1)  # type: ignore[union-attr]
                found = match_leading_delivery(text[i + 1 + skip:i + 2 + skip + LONGEST_DELIVERY_CHARS])
                if found is not None:
                    _, _, length = found
                    words_done()
                    named = text[i + 1 + skip:i + 1 + skip + length]
                    out.append(_Group(named, i, i + 1 + skip + length))
                    warnings.append((f"unclosed {ch} taken", f"unclosed {ch!r} at column {i + 1}: read as the "
                                     f"direction ({named}); close it, or write \\{ch} to say it"))
                    i += 1 + skip + length
                else:
                    warnings.append((f"unclosed {ch}", f"unclosed {ch!r} at column {i + 1}: its words are spoken; "
                                                       f"close it, or write \\{ch} to say it"))
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
                out.append(_Words(text[i + 1:end].replace("\\*", "*"), emphasized=True, start=i))
                i = end + 1
                continue
        if ch in ")]":  # a closer with no opener is not a word either
            warnings.append((f"unmatched {ch}", f"unmatched {ch!r} at column {i + 1}: ignored; write \\{ch} to say it"))
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
