"""Plain-text script parser: one ``NAME: text`` line per spoken line.

This is the format people type by hand or paste from a chat, so it is strict
on purpose: any line we cannot read raises ScriptSyntaxError naming the line,
because silently skipping a line would drop words from the play.

Format (one item per line; blank lines are ignored)::

    # Title: The Last Broadcast        -> title
    # Scene 1 - The studio, 2:40 a.m.  -> SceneHeading "The studio, 2:40 a.m."
    # any other comment                -> Note (a scene note, never voiced)
    MAGGIE: It's twenty to three.      -> Dialogue MAGGIE
    Mr.  Hollis (dryly): Indeed.       -> Dialogue "MR. HOLLIS", note "dryly"
    TOM: (out of breath) Wait for me!  -> Dialogue TOM "Wait for me!", note "out of breath"
    (Foghorn, far off.)                -> Action "Foghorn, far off." (also [Foghorn, far off.])
    [pause 1.5]  [pause]  [pause 500ms] -> Pause 1.5 s / 1.0 s / 0.5 s
    OWEN: [pause 2] Hold on. [pause]   -> Pause, Dialogue, Pause
    SFX: thunder rolls                 -> SoundCue effects "thunder rolls"
    MUSIC OUT                          -> SoundCue music, out

A stage direction is a line that is nothing but a parenthetical or a bracket;
like Fountain action it is a scene note, voiced only with narrate-action. A
parenthetical opening a line's words is its delivery note: never spoken.
A line with a note but no words (``TOM: (nods)``) is kept as a scene note.

Scene comments: a comment whose first word is "Scene" (any case) is a scene;
an optional number (``1``, ``12b``) and one separator (``:``, ``-``, en or em
dash, ``.``) after it are dropped, the rest is the heading. With nothing
left the heading is "Scene N" (or "Scene"). ``# Title:`` also fills
``metadata["title"]``. A ``[pause]`` may also open the line before the name.
A line whose only words are pauses (``BOB: [pause 2]``) is an empty line.
Sound cues (engine/project/sound.py: ``SFX:``, ``FX:``, ``SOUND:``,
``AMBIENCE:``, ``ATMOS:``, ``MUSIC:`` in any case, and ``MUSIC OUT``,
``AMBIENCE OUT``, ``ATMOS OUT``) are cues, never roles.
"""

from __future__ import annotations

import math
import re

from engine.project.delivery import join_notes, split_delivery_note, stage_direction
from engine.project.sound import parse_cue
from engine.project.timeline import MAX_PAUSE_S
from engine.terminal_text import quoted

from .parsed import (
    Action,
    Dialogue,
    Element,
    Note,
    ParsedScript,
    Pause,
    SceneHeading,
    ScriptSyntaxError,
    SoundCue,
)

_NAME = re.compile(r"[^\W_](?:[^\W_]|[ .'\u2019\-])*")
_PAUSE = re.compile(r"\[\s*pause(?![^\W\d_])(?P<value>[^\]]*)\]", re.I)
_SECONDS = re.compile(r"(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?P<unit>ms|s|secs?|seconds?)?", re.I)
_TITLE = re.compile(r"#\s*title\s*:\s*(?P<title>.*)", re.I)
_SCENE = re.compile(
    r"#\s*scene\b\s*(?P<num>\d+[A-Za-z]?\b)?\s*(?:[:.\-\u2013\u2014]\s*)?(?P<heading>.*)", re.I
)


def parse_plaintext(text: str, source: str = "<string>") -> ParsedScript:
    """Parse a ``NAME: text`` script; raises ScriptSyntaxError on the first bad line."""
    script = ParsedScript(source=source)
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            _comment(line, number, script)
        elif (m := _PAUSE.fullmatch(line)) is not None:
            script.elements.append(Pause(_seconds(m.group("value"), source, number), number))
        elif (cue := parse_cue(line)) is not None:
            script.elements.append(SoundCue(cue.kind, cue.text, number, cue.out))
        elif (direction := stage_direction(line)) is not None:
            if direction:
                script.elements.append(Action(direction, number))
        else:
            script.elements.extend(_dialogue_line(line, source, number))
    return script


def _comment(line: str, number: int, script: ParsedScript) -> None:
    """``# Title:`` and ``# Scene ...`` mean something; other comments are notes to self."""
    if (m := _TITLE.fullmatch(line)) is not None:
        script.title = " ".join(m.group("title").split())
        script.metadata["title"] = script.title
    elif (m := _SCENE.fullmatch(line)) is not None:
        heading = " ".join(m.group("heading").split())
        if not heading:
            heading = f"Scene {m.group('num')}" if m.group("num") else "Scene"
        script.elements.append(SceneHeading(heading, number))
    elif text := " ".join(line[1:].split()):
        script.elements.append(Note(text, number))


def _dialogue_line(line: str, source: str, number: int) -> list[Element]:
    """``[pause] NAME (note): [pause] text [pause]`` -> Pause?, Dialogue, Pause?.

    Split by hand rather than with one big regex: a line can be anything the
    user pasted, and this stays linear however odd it is.
    """
    before: list[Element] = []
    pause, rest = _leading_pause(line, source, number)
    if pause is not None and rest:
        before.append(pause)
        line = rest
    colon, paren = line.find(":"), line.find("(")
    if 0 <= paren < colon and (close := line.find(")", paren)) != -1:
        colon = line.find(":", close)  # the note may hold a colon: "BOB (to Sue: low): hi"
    head, note = line[:colon].strip() if colon >= 0 else "", ""
    if head.endswith(")") and "(" in head:
        cut = head.rfind("(")
        head, note = head[:cut].strip(), " ".join(head[cut + 1:-1].split())
    if colon < 0 or ")" in note or not _NAME.fullmatch(head) or not any(c.isalpha() for c in head):
        raise ScriptSyntaxError(source, number, f"expected 'NAME: text', got {quoted(line, 60)}")
    name = " ".join(head.split()).upper()
    text = line[colon + 1:].strip()
    after: list[Element] = []
    pause, rest = _leading_pause(text, source, number)
    if pause is not None:
        before.append(pause)
        text = rest
    spoken_note, words = split_delivery_note(text)
    if spoken_note or words != text:  # "TOM: (out of breath) Wait": how, not what
        note, text = join_notes(note, spoken_note), words
        pause, rest = _leading_pause(text, source, number)
        if pause is not None:
            before.append(pause)
            text = rest
    if text.endswith("]") and (m := _PAUSE.fullmatch(text[text.rfind("["):])) is not None:
        after.append(Pause(_seconds(m.group("value"), source, number), number))
        text = text[:text.rfind("[")]
    text = " ".join(text.split())
    if not text and note:
        return [*before, Note(f"{name} ({note})", number), *after]
    if not text:
        raise ScriptSyntaxError(source, number, f"empty line for {name}")
    # A [pause 2] inside the words is a timing direction of the line (engine/project/direction.py).
    return [*before, Dialogue(name, text, number, note=note), *after]


def _leading_pause(text: str, source: str, number: int) -> tuple[Pause | None, str]:
    """Split ``[pause 2] rest`` into (Pause, "rest"); (None, text) without a pause."""
    if text.startswith("[") and (end := text.find("]")) != -1:
        m = _PAUSE.fullmatch(text[:end + 1])
        if m is not None:
            return Pause(_seconds(m.group("value"), source, number), number), text[end + 1:].strip()
    return None, text


def _seconds(value: str, source: str, number: int) -> float:
    """``""`` -> 1.0, ``"1.5"``/``"1.5s"`` -> 1.5, ``"500ms"`` -> 0.5; else a syntax error."""
    value = value.strip()
    if not value:
        return 1.0
    m = _SECONDS.fullmatch(value)
    if m is None:
        raise ScriptSyntaxError(
            source, number, f"pause length must be seconds or milliseconds like 1.5 or 500ms, got '{value[:30]}'"
        )
    seconds = float(m.group("num"))
    if (m.group("unit") or "").lower() == "ms":
        seconds /= 1000.0
    if seconds < 0:
        raise ScriptSyntaxError(source, number, f"pause length must not be negative, got '{value}'")
    if not math.isfinite(seconds) or seconds > MAX_PAUSE_S:
        raise ScriptSyntaxError(source, number, f"pause length is at most {MAX_PAUSE_S:g} seconds, got "
                                f"'{value[:30]}'")
    return seconds
