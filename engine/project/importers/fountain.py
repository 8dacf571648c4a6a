"""Fountain screenplay parser (https://fountain.io/syntax) -> ParsedScript.

Writers bring scripts from Highland, Slugline, Fade In, Beat... so we read the
Fountain syntax they all share, but only keep what matters for audio: who says
what (with the delivery note), scene breaks, action and transitions. Page
layout (sections, synopses, page breaks, emphasis) is dropped, never spoken.

The parser never raises: a screenplay is prose and any text is *some* valid
Fountain, so problems we can spot (a cue nobody speaks after, an unclosed
boneyard) become ``warnings`` naming the line instead.

Decisions where the spec is loose (kept deliberately simple):

* Boneyard ``/* */`` and notes ``[[ ]]`` are cut before anything else; a line
  that held nothing but a comment vanishes (it is neither text nor a blank
  line), so a note between two dialogue lines does not end the speech.
  Line numbers are unaffected. A note may not contain an empty line (spec).
  An unclosed ``/*`` is warned about and the marker ignored, so no text is lost.
* A paragraph only starts with a scene heading, cue or transition; after a
  heading or transition the rest of the same paragraph is action (a heading
  not followed by a blank line is still taken as a heading).
* An unforced upper-case line standing alone is action (spec), unless that
  name speaks elsewhere in the script: then it is a cue missing its dialogue,
  dropped with a warning.
* A parenthetical after the last dialogue line is dropped with a warning.
* Only an exact two-space line keeps a block going; other whitespace-only
  lines are blank. Tabs count as four spaces.
"""

from __future__ import annotations

import re

from engine.project.delivery import join_notes, split_delivery_note
from engine.project.sound import parse_cue

from .parsed import Action, Dialogue, Element, ParsedScript, SceneHeading, SoundCue, Transition

_KEEP = "  "  # the spec's "two spaces" line: looks blank, but isn't
_TITLE_KEYS = {"title", "credit", "author", "authors", "source", "draft date", "date",
               "contact", "copyright", "notes", "revision", "format"}
_TP_KEY = re.compile(r"([A-Za-z][A-Za-z0-9 _'\-]*):(.*)")
_HEADING = re.compile(r"(?:int\.?/ext|ext\.?/int|i/e|e/i|int|ext|est)[. ]", re.I)
_SCENE_NO = re.compile(r"\s*#[\w.\-]+#$")
_CENTERED = re.compile(r">\s*(.*?)\s*<")
_CUE_PUNCT = set(" .'\u2019-&,/#")
_ESC = {"\\*": "\ue000", "\\_": "\ue001"}
_EMPHASIS = [
    # Spans cannot hold their own marker, which keeps a stray ``*`` linear.
    re.compile(r"\*\*\*(?=\S)([^*]+?)(?<=\S)\*\*\*"),
    re.compile(r"\*\*(?=\S)((?:[^*]|\*(?!\*))+?)(?<=\S)\*\*"),
    re.compile(r"\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*"),
    re.compile(r"(?<![A-Za-z0-9])_(?=[^\s_])([^_]+?)(?<=[^\s_])_(?![A-Za-z0-9])"),
]

Line = tuple[int, str]


def parse_fountain(text: str, source: str = "<string>") -> ParsedScript:
    """Parse Fountain ``text``; ``source`` (usually the file name) is only a label."""
    script = ParsedScript(source=source)
    notes: list[tuple[int, str]] = []
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    lines = _visible_lines(text, notes)
    start = _title_page(lines, script)
    parser = _Body(script, notes)
    paragraph: list[Line] = []
    for line in lines[start:] + [(0, "")]:
        if line[1]:
            paragraph.append(line)
        elif paragraph:
            parser.paragraph(paragraph, prev_blank=True)
            paragraph = []
    parser.finish()
    script.warnings.extend(msg for _, msg in sorted(notes, key=lambda n: n[0]))
    return script


def _visible_lines(text: str, notes: list[tuple[int, str]]) -> list[Line]:
    """Cut boneyard and notes (keeping newlines) and number the lines that remain.

    Blank lines become ``""``, the two-space line stays ``"  "``, and a line that
    held only comment is dropped, so later stages never see it at all.
    """
    out: list[str] = []
    touched: set[int] = set()
    pos, line = 0, 1
    opener = re.compile(r"/\*|\[\[")
    last_close, blank = text.rfind("*/"), -1
    # The next ``]]`` and the next empty line are found once and reused until
    # passed: searching again for every ``[[`` made unclosed notes quadratic.
    note_close = -1
    while (m := opener.search(text, pos)) is not None:
        line += text.count("\n", pos, m.start())
        out.append(text[pos:m.start()])
        closer = "*/" if m.group() == "/*" else "]]"
        if closer == "]]":  # a note ends at its paragraph (spec), so look no further
            if blank < m.end():
                blank = text.find("\n\n", m.end()) % (len(text) + 1)  # -1 -> len(text)
            if note_close < m.end():
                note_close = text.find("]]", m.end()) % (len(text) + 1)
            end = note_close if note_close + 2 <= blank else -1
        else:
            end = text.find(closer, m.end()) if m.end() <= last_close else -1
        if closer == "]]" and end == -1:
            out.append(m.group())  # not a note: keep it as text
            pos = m.end()
            continue
        if end == -1:
            notes.append((line, f"line {line}: boneyard '/*' is never closed with '*/'; marker ignored"))
            touched.add(line)
            pos = m.end()
            continue
        spanned = text.count("\n", m.start(), end)
        out.append("\n" * spanned)
        touched.update(range(line, line + spanned + 1))
        line += spanned
        pos = end + 2
    out.append(text[pos:])
    result: list[Line] = []
    for number, raw in enumerate("".join(out).split("\n"), start=1):
        if raw.strip():
            result.append((number, raw.rstrip()))
        elif number not in touched:
            result.append((number, _KEEP if raw == _KEEP else ""))
    return result


def _inline(text: str) -> str:
    """Drop emphasis markup but keep the words; ``\\*`` and ``\\_`` are literal."""
    for escape, placeholder in _ESC.items():
        text = text.replace(escape, placeholder)
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\1", text)
    return text.replace("\ue000", "*").replace("\ue001", "_")


def _title_page(lines: list[Line], script: ParsedScript) -> int:
    """Read ``Key: value`` lines at the very top; return where the body starts.

    To not mistake ``FADE IN:`` for a title page, it needs a known key or a key
    in mixed case, and every line must be a key or an indented continuation.
    """
    i = 0
    while i < len(lines) and not lines[i][1].strip():
        i += 1
    entries: list[tuple[str, list[str]]] = []
    while i < len(lines) and lines[i][1].strip():
        raw = lines[i][1]
        m = _TP_KEY.fullmatch(raw)
        if raw[0] == " " and entries:
            entries[-1][1].append(raw.strip())
        elif m:
            entries.append((m.group(1).strip(), [m.group(2).strip()] if m.group(2).strip() else []))
        else:
            return 0
        i += 1
    if not any(k.lower() in _TITLE_KEYS or k != k.upper() for k, _ in entries):
        return 0
    for key, values in entries:
        key, value = key.lower(), "\n".join(_inline(v) for v in values)
        script.metadata[key] = f"{script.metadata[key]}\n{value}" if key in script.metadata else value
        if key == "title":
            script.title = " ".join(" ".join(_inline(v) for v in values).split())
    return i


def _split_cue(text: str, forced: bool) -> tuple[str, tuple[str, ...], bool] | None:
    """``BOB (V.O.) ^`` -> ("BOB", ("V.O.",), True); None if it is no cue."""
    text = text.rstrip()
    dual = text.endswith("^")
    text = text[:-1].rstrip() if dual else text
    extensions: list[str] = []
    end = len(text)  # an index, not slices: a cue of a million ``()`` stays linear
    while end and text[end - 1] == ")":
        start = text.rfind("(", 0, end - 1)
        if start < 0 or text.find(")", start, end - 1) != -1:
            return None
        extensions.append(text[start + 1:end - 1].strip())
        end = start
        while end and text[end - 1].isspace():
            end -= 1
    extensions.reverse()
    text = text[:end]
    name = " ".join(text.split())
    if not name or "(" in name or ")" in name or "^" in name:
        return None
    if not forced and not (any(c.isupper() for c in name) and not any(c.islower() for c in name)
                           and all(c.isalnum() or c in _CUE_PUNCT for c in name)):
        return None
    return name, tuple(extensions), dual


def _join_parenthetical(text: str, body: list[Line], i: int) -> tuple[str, int]:
    """``(softly,`` / ``almost a whisper)`` over lines: join if it closes cleanly."""
    for j in range(i, len(body)):
        line = body[j][1].strip()
        if not line or "(" in line or (")" in line and not line.endswith(")")):
            break
        if line.endswith(")"):
            return " ".join([text] + [t.strip() for _, t in body[i:j + 1]]), j + 1
    return text, i


class _Body:
    """Turns paragraphs (runs of non-blank lines) into elements, in order."""

    def __init__(self, script: ParsedScript, notes: list[tuple[int, str]]) -> None:
        self.out: list[Element] = script.elements
        self.notes = notes
        self.lonely: list[tuple[int, str, int]] = []  # (element index, name, line)

    def paragraph(self, lines: list[Line], prev_blank: bool) -> None:
        # Walk by index: slicing off one line at a time made a paragraph of a
        # million section or heading lines quadratic.
        last_text = max((i for i, (_, t) in enumerate(lines) if t.strip()), default=-1)
        for i, (number, raw) in enumerate(lines):
            text = raw.strip()
            if not text or text.startswith(("#", "=")):  # sections, synopses, page breaks
                continue
            if text.startswith(".") and text[1:2] not in (".", "") and text[1:].strip():
                heading = text[1:].strip()
            elif prev_blank and _HEADING.match(text):
                heading = text
            else:
                heading = None
            if heading is not None:
                self.out.append(SceneHeading(_inline(_SCENE_NO.sub("", heading)).strip(), number))
                prev_blank = False
                continue
            alone = i >= last_text  # nothing but blanks follows in this paragraph
            if text.startswith(">") and not text.endswith("<"):
                transition = text[1:].strip()
            elif prev_blank and alone and text.endswith("TO:") and text == text.upper():
                transition = text
            else:
                transition = None
            if transition is not None:
                if transition:
                    self.out.append(Transition(transition, number))
                prev_blank = False
                continue
            if (sound := parse_cue(_inline(text))) is not None:  # SFX:, MUSIC OUT...: a cue, never a role
                self.out.append(SoundCue(sound.kind, sound.text, number, sound.out))
                prev_blank = False
                continue
            forced = text.startswith("@")
            cue = _split_cue(text[1:] if forced else text, forced) if forced or prev_blank else None
            if cue and (forced or not alone):
                self.dialogue(cue, number, lines[i + 1:])
                return
            if cue:
                self.lonely.append((len(self.out), cue[0], number))
            self.action(lines[i:])
            return

    def dialogue(self, cue: tuple[str, tuple[str, ...], bool], cue_line: int, body: list[Line]) -> None:
        """Emit one Dialogue per run of text; a parenthetical starts a new one."""
        name, extensions, dual = cue
        texts: list[str] = []
        notes: list[str] = []  # joined once: growing one string per parenthetical was quadratic
        start, emitted = cue_line, False
        i = 0
        while i < len(body):
            number, text = body[i][0], body[i][1].strip()
            i += 1
            if not text:
                continue
            if text.startswith("(") and ")" not in text:
                text, i = _join_parenthetical(text, body, i)
            inner, words = split_delivery_note(text)
            if text.startswith("(") and (inner or not words):  # ``(beat)`` or ``(beat) Then go.``
                inner = " ".join(_inline(inner).split())
                if texts:
                    emitted |= self._say(name, texts, start, extensions, join_notes(*notes), dual)
                    texts, notes, start = [], [inner] if inner else [], number
                elif inner:
                    notes.append(inner)
                if not words:
                    continue
                text = words
            texts.append(_inline(text[1:] if text.startswith("~") else text))
        note = join_notes(*notes)
        if texts and self._say(name, texts, start, extensions, note, dual):
            return
        if emitted and note:
            self.notes.append((start, f"line {start}: parenthetical '({note})' has no dialogue after it"))
        elif not emitted:
            self.notes.append((cue_line, f"line {cue_line}: character cue '{name}' has no dialogue"))

    def _say(self, name: str, texts: list[str], line: int, extensions: tuple[str, ...],
             note: str, dual: bool) -> bool:
        spoken = " ".join(" ".join(texts).split())
        if spoken:
            self.out.append(Dialogue(name, spoken, line, extensions, note, dual))
        return bool(spoken)

    def action(self, lines: list[Line]) -> None:
        """One Action per paragraph; centered ``> <``, ``~`` lyrics and ``!`` are unwrapped."""
        kept: list[str] = []
        first = 0
        for number, raw in lines:
            text = raw.strip()
            if re.fullmatch(r"={3,}", text):
                continue
            if (m := _CENTERED.fullmatch(text)) is not None:
                text = m.group(1)
            elif text.startswith(("~", "!")):
                text = text[1:]
            text = " ".join(_inline(text).split())
            if (sound := parse_cue(text)) is not None:  # a cue inside an action paragraph
                self._flush_action(kept, first)
                kept, first = [], 0
                self.out.append(SoundCue(sound.kind, sound.text, number, sound.out))
                continue
            if text and not first:
                first = number
            kept.append(text)
        self._flush_action(kept, first)

    def _flush_action(self, kept: list[str], first: int) -> None:
        joined = "\n".join(kept).strip("\n")
        if joined:
            self.out.append(Action(joined, first))

    def finish(self) -> None:
        """A lone upper-case line naming a speaker is a cue missing its dialogue."""
        speakers = {e.character for e in self.out if isinstance(e, Dialogue)}
        drop = set()
        for index, name, line in self.lonely:
            element = self.out[index] if index < len(self.out) else None
            if name in speakers and isinstance(element, Action) and element.source_line == line:
                drop.add(index)
                self.notes.append((line, f"line {line}: character cue '{name}' has no dialogue"))
        self.out[:] = [e for i, e in enumerate(self.out) if i not in drop]
