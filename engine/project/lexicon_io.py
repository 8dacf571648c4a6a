"""Pronunciation lexicons in files: the ``.radioplay`` file's lexicon objects,
W3C PLS 1.0 and a simple CSV.

The project's ``[[...]]`` phoneme strings are IPA as espeak-ng writes it
(Piper reads the symbols one by one; ``engine.check.pronounce`` reads them as
IPA too), so PLS exports them with ``alphabet="ipa"`` and imports only
``ipa`` phonemes. Whether every symbol is one the voices know is the synth
floor's question: the reader takes a ``phoneme_problem`` checker
(``engine.synth.lexicon_check.phoneme_problem``) rather than importing it.

PLS is XML from other people's tools: the document type declaration is
refused outright (no entity is ever expanded, so no "billion laughs" and no
external file is read). Every problem is one line naming the file, the line
and the lexeme or field.
"""

from __future__ import annotations

import csv
import io
import xml.parsers.expat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.fsutil import atomic_write_text, read_regular_bytes
from engine.output_paths import CSV_LEXICON, PLS_LEXICON, OutputFile, output_file
from engine.project.defaults import lexicon_entry_too_long
from engine.project.model import Project
from engine.terminal_text import echo

PLS_NS = "http://www.w3.org/2005/01/pronunciation-lexicon"
PLS_ALPHABET = "ipa"
CSV_HEADER = ("word", "say", "role")
MAX_FILE_BYTES = 64 * 1024 * 1024  # a 150,000-entry lexicon is a few MB


class LexiconFileError(ValueError):
    """A lexicon file that cannot be read: ``file: line N: lexeme 'x': problem``."""


@dataclass(frozen=True)
class Entry:
    """One pronunciation: ``say`` is a respelling or ``[[phonemes]]``; ``role``
    None is the project's entry, else that role's (it wins for the role's lines)."""

    word: str
    say: str
    role: str | None = None


class Reader(Protocol):
    """What :class:`engine.project.fileformat._Reader` offers here."""

    def fail(self, path: str, problem: str) -> ValueError: ...
    def obj(self, value: Any, path: str) -> dict[str, Any]: ...
    def encodable(self, value: str, path: str) -> None: ...


def lexicon_from_dict(r: Reader, value: Any, path: str) -> dict[str, str]:
    """A ``"lexicon"`` object of the project file (top level, or a role's)."""
    lexicon = r.obj(value, path)
    for word, say in lexicon.items():
        r.encodable(word, f"{path}.{word!r}")
        if not word.strip():  # it would match between every two words
            raise r.fail(f"{path}.{word!r}", "an entry needs a word to respell, not an empty key")
        if not isinstance(say, str) or not say.strip():
            raise r.fail(f"{path}.{word}", "expected a non-empty respelling or [[phonemes]]")
        if (long := lexicon_entry_too_long(word, say)) is not None:
            raise r.fail(f"{path}.{word[:60]!r}", f"lexicon entry {word[:60]!r}: {long}")
        r.encodable(say, f"{path}.{word}")
    return dict(lexicon)


# ------------------------------------------------------------------ PLS


def write_pls(path: Path, entries: Iterable[Entry], language: str = "en-US",
              guard: Callable[[], None] | None = None) -> int:
    """Write the entries as PLS 1.0 (atomically); returns how many. A respelling
    is an ``<alias>``, ``[[...]]`` a ``<phoneme>``."""
    # Here, not at the top: saxutils imports urllib.request (0.1 s), which every project load paid.
    from xml.sax.saxutils import escape, quoteattr

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<lexicon version="1.0" xmlns="{PLS_NS}" alphabet="{PLS_ALPHABET}" xml:lang={quoteattr(language)}>']
    count = 0
    for entry in entries:
        say = entry.say.strip()
        if is_phonemes(say):
            body = f"<phoneme>{escape(say[2:-2].strip())}</phoneme>"
        else:
            body = f"<alias>{escape(say)}</alias>"
        out.append(f"  <lexeme><grapheme>{escape(entry.word)}</grapheme>{body}</lexeme>")
        count += 1
    out.append("</lexicon>\n")
    atomic_write_text(Path(path), "\n".join(out), guard)
    return count


def is_phonemes(say: str) -> bool:
    say = say.strip()
    return say.startswith("[[") and say.endswith("]]") and "]]" not in say[2:-2]


class _Pls:
    """An expat walk of a PLS document into entries (no tree, no DTD)."""

    def __init__(self, file: Path, phoneme_problem: Callable[[str], str | None] | None) -> None:
        self.file, self.check = file, phoneme_problem
        self.parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
        self.parser.StartDoctypeDeclHandler = self._doctype
        self.parser.EntityDeclHandler = self._entity
        self.parser.ExternalEntityRefHandler = self._external
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.CharacterDataHandler = self._text
        self.entries: list[Entry] = []
        self.alphabet = ""
        self.stack: list[str] = []
        self.graphemes: list[str] = []
        self.say: str | None = None
        self.lexeme_line = 0
        self.phoneme_alphabet = ""
        self.buffer: list[str] = []

    def fail(self, problem: str, line: int | None = None) -> LexiconFileError:
        return LexiconFileError(f"{self.file}: line {line or self.parser.CurrentLineNumber}: {problem}")

    def _doctype(self, *_: object) -> None:
        raise self.fail("a document type declaration (<!DOCTYPE>) is not allowed in a lexicon")

    def _entity(self, *_: object) -> None:
        raise self.fail("entity declarations are not allowed in a lexicon")

    def _external(self, *_: object) -> int:
        raise self.fail("external entities are not allowed in a lexicon")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        ns, _, local = name.rpartition(" ")
        depth = len(self.stack)
        self.stack.append(local)
        if depth == 0:
            if local != "lexicon" or ns != PLS_NS:
                raise self.fail(f"not a PLS lexicon: the root is <{local}> (expected <lexicon xmlns=\"{PLS_NS}\">)")
            if attrs.get("version") != "1.0":
                raise self.fail(f"lexicon version {attrs.get('version')!r} is not supported (expected \"1.0\")")
            self.alphabet = attrs.get("alphabet", "")
        elif depth == 1 and local == "lexeme":
            self.graphemes, self.say, self.lexeme_line = [], None, self.parser.CurrentLineNumber
        elif depth == 2 and local in ("grapheme", "alias", "phoneme"):
            self.buffer = []
            self.phoneme_alphabet = attrs.get("alphabet", self.alphabet)

    def _text(self, data: str) -> None:
        self.buffer.append(data)

    def _end(self, name: str) -> None:
        local = self.stack.pop()
        depth = len(self.stack)
        text = " ".join("".join(self.buffer).split())
        if depth == 2 and local == "grapheme":
            self.graphemes.append(text)
        elif depth == 2 and local in ("alias", "phoneme") and self.say is None:  # the first is preferred
            self.say = self._phoneme(text) if local == "phoneme" else text
        elif depth == 1 and local == "lexeme":
            self._lexeme()

    def _phoneme(self, text: str) -> str:
        where = f"lexeme {self._name()!r}: phoneme"
        if self.phoneme_alphabet.lower() != PLS_ALPHABET:
            raise self.fail(f"{where}: alphabet {self.phoneme_alphabet or '(none)'!r} cannot be converted to the "
                            f"voices' phonemes (only \"{PLS_ALPHABET}\" can; use an <alias> respelling)")
        if not text:
            raise self.fail(f"{where}: is empty")
        problem = self.check(text) if self.check is not None else None
        if problem is not None:
            raise self.fail(f"{where}: {problem}")
        return f"[[{text}]]"

    def _name(self) -> str:
        return self.graphemes[0] if self.graphemes else "(no grapheme yet)"

    def _lexeme(self) -> None:
        line = self.lexeme_line
        if not self.graphemes or not any(g.strip() for g in self.graphemes):
            raise self.fail("lexeme: grapheme: a lexeme needs a non-empty <grapheme>", line)
        if not self.say:
            raise self.fail(f"lexeme {self._name()!r}: needs an <alias> or a <phoneme>", line)
        for grapheme in self.graphemes:
            if (long := lexicon_entry_too_long(grapheme, self.say)) is not None:
                raise self.fail(f"lexeme {grapheme[:60]!r}: {long}", line)
        self.entries.extend(Entry(g, self.say) for g in self.graphemes if g.strip())

    def parse(self, data: bytes) -> list[Entry]:
        try:
            self.parser.Parse(data, True)
        except xml.parsers.expat.ExpatError as exc:
            raise LexiconFileError(f"{self.file}: line {exc.lineno}: not well-formed XML "
                                   f"({xml.parsers.expat.ErrorString(exc.code)})") from None
        return self.entries


def read_pls(path: Path, phoneme_problem: Callable[[str], str | None] | None = None) -> list[Entry]:
    """The entries of a PLS file (all project entries: PLS has no roles)."""
    return _Pls(Path(path), phoneme_problem).parse(_read(Path(path)))


# ------------------------------------------------------------------ CSV


def write_csv(path: Path, entries: Iterable[Entry], guard: Callable[[], None] | None = None) -> int:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    count = 0
    for entry in entries:
        writer.writerow((entry.word, entry.say, entry.role or ""))
        count += 1
    atomic_write_text(Path(path), buffer.getvalue(), guard)
    return count


def read_csv(path: Path, phoneme_problem: Callable[[str], str | None] | None = None) -> list[Entry]:
    """``word,say[,role]`` with that header; an empty role is the project's."""
    path = Path(path)
    try:
        text = _read(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LexiconFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in next(rows, [])]
        if header[:2] != ["word", "say"] or header[2:] not in ([], ["role"]):
            raise LexiconFileError(f"{path}: line 1: expected the header \"word,say\" or \"word,say,role\"")
        entries = []
        for row in rows:
            line = rows.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) > len(header):
                raise LexiconFileError(f"{path}: line {line}: {len(row)} fields, the header has {len(header)}")
            word, say, role = (row + ["", ""])[:2] + [row[2] if len(row) > 2 else ""]
            if not word.strip():
                raise LexiconFileError(f"{path}: line {line}: word: is empty")
            if not say.strip():
                raise LexiconFileError(f"{path}: line {line}: say: {word!r} has nothing to say")
            if (long := lexicon_entry_too_long(word.strip(), say.strip())) is not None:
                raise LexiconFileError(f"{path}: line {line}: {word.strip()[:60]!r}: {long}")
            problem = phoneme_problem(say.strip()[2:-2]) if phoneme_problem and is_phonemes(say) else None
            if problem is not None:
                raise LexiconFileError(f"{path}: line {line}: say: {word!r}: {problem}")
            entries.append(Entry(word.strip(), say.strip(), role.strip() or None))
    except csv.Error as exc:
        raise LexiconFileError(f"{path}: line {rows.line_num}: {exc}") from None
    return entries


# ------------------------------------------------------------------ either


def read_lexicon(path: Path, phoneme_problem: Callable[[str], str | None] | None = None) -> list[Entry]:
    """PLS (``.pls``, ``.xml``) or CSV (``.csv``), by the file's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix in (".pls", ".xml"):
        return read_pls(path, phoneme_problem)
    if suffix == ".csv":
        return read_csv(path, phoneme_problem)
    raise LexiconFileError(f"{path}: unknown lexicon format {suffix or '(no suffix)'!r} (use .pls or .csv)")


def lexicon_output(path: str | Path, *, option: str = "", inputs: Iterable[tuple[str, str | Path]] = (),
                   overwrite: bool = False) -> OutputFile:
    """Where a lexicon export goes, checked by the rule of every output (engine/output_paths.py):
    PLS for ``.pls``/``.xml``, CSV for ``.csv``. Raises LexiconFileError for another
    suffix, OutputPathError for a name that must not be replaced."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".pls", ".xml", ".csv"):
        raise LexiconFileError(f"{echo(path)}: unknown lexicon format {suffix or '(no suffix)'!r} (use .pls or .csv)")
    return output_file(path, CSV_LEXICON if suffix == ".csv" else PLS_LEXICON, option=option, inputs=inputs,
                       overwrite=overwrite)


def write_lexicon(target: OutputFile | Path, entries: Iterable[Entry]) -> int:
    """PLS keeps the project's entries only (it has no roles); CSV keeps all. A bare path is
    checked as :func:`lexicon_output` checks it (without ``overwrite``)."""
    out = target if isinstance(target, OutputFile) else lexicon_output(target)
    if out.writes is PLS_LEXICON:
        return write_pls(out.path, (e for e in entries if e.role is None), guard=out.check_again)
    return write_csv(out.path, entries, guard=out.check_again)


def _read(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise LexiconFileError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MB: not a lexicon")
        return read_regular_bytes(path)
    except OSError as exc:
        raise LexiconFileError(f"{path}: cannot read: {exc.strerror or exc}") from None


# ------------------------------------------------------------------ a project's entries


def entries_of(project: Project) -> list[Entry]:
    """Every entry: the project's, then each role's in cast order."""
    out = [Entry(word, say) for word, say in project.lexicon.items()]
    for role in project.cast:
        out.extend(Entry(word, say, role.name) for word, say in role.lexicon.items())
    return out


def merged(project: Project, entries: Iterable[Entry]) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The project lexicon and the changed role lexicons with ``entries`` added
    (an entry replaces the same word, in any case, of its scope). New dicts:
    the project's are left alone. Raises LexiconFileError for a role not in the cast."""
    project_lexicon = dict(project.lexicon)
    roles: dict[str, dict[str, str]] = {}
    cast = {r.name: r for r in project.cast}
    by_lower: dict[str | None, dict[str, str]] = {}  # per scope, lower case -> the word as written
    for entry in entries:
        if entry.role is None:
            target = project_lexicon
        elif entry.role in cast:
            target = roles.setdefault(entry.role, dict(cast[entry.role].lexicon))
        else:
            raise LexiconFileError(f"entry {entry.word!r}: role {entry.role!r} is not in the cast")
        lower = by_lower.get(entry.role)
        if lower is None:
            lower = by_lower[entry.role] = {w.lower(): w for w in target}
        same = lower.get(entry.word.lower())
        if same is not None:
            del target[same]
        target[entry.word] = entry.say
        lower[entry.word.lower()] = entry.word
    return project_lexicon, roles
