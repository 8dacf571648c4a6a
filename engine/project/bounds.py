"""Whether a line asks for more than a line may: the one check of the bounds table.

``MAX_LINE_CHARS`` bounds what a line holds, not what it asks for: twenty
thousand characters of ``[pause 60]`` are 30 hours of silence, of ``*a*`` five
thousand phrases each inferred and shaped on its own. The limits are one table,
:class:`~engine.project.defaults.LineBounds`; this module checks a line, or a
whole project, against it. Every way a line comes in asks the same function:
the loader (engine/project/fileformat.py), the importers
(engine/project/importers/build.py), the studio's script editor, the service
(engine/serve/params.py), and the synthesizer once more before it plans
(engine/synth/synthesizer.py), so a line built in code is refused too.

A refusal is an :class:`Overstep`: which field, the direction where the line
went over (its text and column), and what was asked against what is allowed;
callers put the file and line in front. What one direction asks for past its
own bound (``[pause 600]``) is not refused but capped, with a warning, where
the line is parsed (engine/project/direction.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.project.defaults import LINE_BOUNDS, LineBounds
from engine.project.direction import DirectedLine, Direction, note_directions, parse_line
from engine.project.model import Line, Project, Timing
from engine.project.timeline import CHARS_PER_SECOND

# A digit is said as a word ("seven"), and a run of them one by one: a line of digits is
# about six times as long spoken as written.
_DIGIT_CHARS = 6


@dataclass(frozen=True)
class Overstep:
    """Where and how a line asks for more than its bounds allow."""

    field: str  # "text" or "note"; "" for the line as a whole
    problem: str  # what was asked, against the bound
    direction: str = ""  # the direction (or emphasized word) where the bound was passed, as written
    column: int = 0  # its column in the field (1-based; 0: the field as a whole)
    advice: str = ""  # what the producer can do instead

    def __str__(self) -> str:
        where = f" by {self.direction!r} at column {self.column:,} of the {_FIELD[self.field]}" if self.column else ""
        return f"{self.problem}{where}" + (f"; {self.advice}" if self.advice else "")


_FIELD = {"text": "line", "note": "Delivery note"}


def line_overstep(text: str, note: str = "", timing: Timing | None = None,
                  bounds: LineBounds = LINE_BOUNDS) -> Overstep | None:
    """The first bound a line's ``text`` and Delivery ``note`` pass, or None."""
    if len(text) > bounds.line_chars:
        return Overstep("text", f"the line is {len(text):,} characters; at most {bounds.line_chars:,}",
                        advice="split it into several lines")
    if len(note) > bounds.note_chars:
        return Overstep("note", f"the Delivery note is {len(note):,} characters; at most {bounds.note_chars:,}",
                        advice="stage business belongs in the scene's notes")
    if _undirected(text, note) and _said_chars(text) <= bounds.spoken_s * CHARS_PER_SECOND:
        return None  # most lines: no direction, no parse (the loader asks of every line)
    timing = timing or Timing()
    return directed_overstep(parse_line(text, note, timing), text, note, timing, bounds)


def directed_overstep(directed: DirectedLine, text: str, note: str, timing: Timing,
                      bounds: LineBounds = LINE_BOUNDS) -> Overstep | None:
    """The first bound a parsed line passes (``text`` and ``note`` are what it was parsed from)."""
    terms: list[tuple[str, Direction]] = [("note", d) for d in note_directions(note)]
    terms += [("text", d) for d in directed.directions]
    silence = 0.0
    for count, (field, d) in enumerate(terms, start=1):
        written = (note if field == "note" else text)[d.start:d.end]
        if count > bounds.directions:
            return Overstep(field, f"it has more than {bounds.directions} directions", _shown(written),
                            d.start + 1, "direct a long speech as several lines")
        silence += d.pause_seconds(timing)
        if silence > bounds.line_pause_s:
            return Overstep(field, f"its pauses add up to more than {bounds.line_pause_s:g} s", _shown(written),
                            d.start + 1, "a longer silence goes before the next line, as its pause")
    speech = planned_size(directed).speech_s
    if speech > bounds.spoken_s:
        return Overstep("text", f"its words take about {_duration(speech)} to say; at most "
                                f"{_duration(bounds.spoken_s)} in one line", advice="split it into several lines")
    if len(directed.emphases) > bounds.emphasized:
        at = directed.emphases[bounds.emphasized]
        word = text[at:text.find("*", at + 1) + 1] or text[at:]
        return Overstep("text", f"it emphasizes more than {bounds.emphasized} words", _shown(word), at + 1)
    return None


@dataclass(frozen=True)
class PlannedSize:
    """What a parsed line comes to before anything is synthesized: an estimate made
    from its words and directions alone (the service refuses on it, engine/serve/params.py)."""

    said_chars: int  # its words' characters, a digit counted as the word it is said as
    speech_s: float  # those at the voice's pace (timeline.CHARS_PER_SECOND at speed 1)
    silence_s: float  # its timing directions, and the pauses its deliveries add after each sentence
    phrases: int  # parts performed on their own (each inferred and shaped apart)

    @property
    def seconds(self) -> float:
        return self.speech_s + self.silence_s


def planned_size(directed: DirectedLine, pace: float = 1.0) -> PlannedSize:
    """``pace``: how much faster than normal the voice speaks (its speed times its design's rate)."""
    said = 0
    silence = 0.0
    for phrase in directed.phrases:
        said += _said_chars(phrase.words)
        ends = sum(phrase.words.count(mark) for mark in ".!?;:,")
        silence += phrase.pause_before + phrase.performance().phrase_pause * max(1, ends)
    return PlannedSize(said, said / (CHARS_PER_SECOND * pace), silence + directed.trailing_pause,
                       len(directed.phrases))


def line_pause(line: Line, timing: Timing) -> float:
    """Seconds of silence a line asks for: its pause before and its timing directions."""
    if _undirected(line.text, line.note):
        return line.pause_before
    directed = parse_line(line.text, line.note, timing)
    inside = sum(p.pause_before for p in directed.phrases) + directed.trailing_pause
    return line.pause_before + inside + sum(d.pause_seconds(timing) for d in note_directions(line.note))


def project_overstep(project: Project, bounds: LineBounds = LINE_BOUNDS) -> tuple[int, Overstep] | None:
    """The first line of ``project`` past its bounds, or where the silence all lines ask
    for passes the project's bound: (index of the line, what)."""
    silence = 0.0
    for index, line in enumerate(project.lines):
        problem = line_overstep(line.text, line.note, project.timing, bounds)
        if problem is not None:
            return index, problem
        silence += line_pause(line, project.timing)
        if silence > bounds.project_pause_s:
            return index, Overstep("", f"the pauses of the lines up to this one add up to more than "
                                           f"{bounds.project_pause_s / 3600:g} hours")
    return None


def edited_overstep(project: Project, *lines: Line, bounds: LineBounds = LINE_BOUNDS) -> str | None:
    """What is wrong when ``lines`` (edited copies of ``project``'s lines, by id, or new ones)
    pass a bound, their own or the project's, or None: what the studio asks before it takes
    an edit, so it never holds (and saves) a production the loader refuses."""
    for line in lines:
        if (problem := line_overstep(line.text, line.note, project.timing, bounds)) is not None:
            return f"line {line.id}: {problem}"
    edited = {line.id: line for line in lines}
    before = {other.id: other for other in project.lines if other.id in edited}
    more = sum(line_pause(line, project.timing) for line in lines) - sum(
        line_pause(line, project.timing) for line in before.values())
    if more <= 0:  # typing words: no more silence than before, no need to add up every line's
        return None
    kept = [edited.pop(other.id, other) for other in project.lines]
    silence = sum(line_pause(line, project.timing) for line in [*kept, *edited.values()])
    if silence > bounds.project_pause_s:
        return f"the pauses of all lines would add up to more than {bounds.project_pause_s / 3600:g} hours"
    return None


def _undirected(text: str, note: str) -> bool:
    """Neither a note nor anything in the text that could be a direction or emphasis."""
    return not note and not any(mark in text for mark in "([*")


def _said_chars(words: str) -> int:
    return len(words) + (_DIGIT_CHARS - 1) * sum(c.isdigit() for c in words)


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} hours" if seconds >= 5400 else f"{seconds / 60:.0f} minutes"


def _shown(written: str, most: int = 40) -> str:
    """A direction as the producer wrote it, short enough for a one-line message."""
    one_line = " ".join(written.split())
    return one_line if len(one_line) <= most else one_line[:most - 1] + "…"
