"""Where a command may write a file a user named: the one rule for every output path.

An atomic write renames a new file over whatever the name holds, so a wrong
name loses data without a word: ``--report p.radioplay`` replaced the project
with a report, ``revise -o draft.txt`` the writer's draft with project JSON,
``-o`` onto a FIFO or a device node replaced it with a regular file (as root,
``-o /dev/null`` would replace the system's). Every writer of a file a user
names resolves and checks it here, before any work starts (a long render
fails in its first second, not at its end), and again just before the rename
(:meth:`OutputFile.check_again`, the ``guard`` of engine/fsutil.py's atomic
writes). The rule:

- never an input of the same command: compared by device and inode, so
  another spelling, a hard link or a symbolic link to it is the same file;
  ``--overwrite`` does not change this;
- never a file of another kind: a device, a FIFO, a socket, a folder where a
  file goes;
- never through a symbolic link that leads out of the folder it is in; one
  inside the folder is followed (the file it names is replaced, the link
  stays, as an editor saves through it);
- an existing file is replaced only when it holds what the command writes
  (sniffed from its first bytes with :data:`CONTENTS`) or nothing; anything
  else only with the command's ``--overwrite`` (in the studio, the file
  dialog's own "replace it?" question);
- a trailing slash means a folder: the file goes inside it under the
  command's own name for it where it has one (``revise -o drafts/``: the
  project's name), and is refused where it has none; an existing folder
  named without the slash is refused (a file was meant); missing folders
  on the way are created.

A file a command read and saves back in place (``check --fix``, ``lexicon
--import``, ``revise`` without ``-o``, the studio's Save) goes through
:func:`in_place`: a symbolic link to it is followed wherever it leads (the
file was read through it) and the link stays.

Errors are :class:`OutputPathError`, one line naming the option, the path as
given and the reason; the command line exits with status 2 (a usage error)
and nothing is written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.fsutil import describe_mode, open_regular
from engine.terminal_text import echo

# How much of an existing file is read to tell what it holds.
SNIFF_BYTES = 8192
# The flag that lets a command replace a file holding something else; the same on every verb.
OVERWRITE_FLAG = "--overwrite"
_BOM = b"\xef\xbb\xbf"


class OutputPathError(ValueError):
    """A named output cannot be written: one line, the option, the path and why."""


@dataclass(frozen=True)
class Content:
    """What a file holds, as a message names it, told from the file's first bytes."""

    name: str
    looks: Callable[[bytes], bool]


def _start(head: bytes) -> bytes:
    return head.removeprefix(_BOM).lstrip(b" \t\r\n")


def _json_with(key: bytes) -> Callable[[bytes], bool]:
    return lambda head: _start(head).startswith(b"{") and key in head


def _text(head: bytes) -> bool:
    if b"\0" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a character cut at the end of the sample is still text
        return exc.start >= len(head) - 3 and exc.reason == "unexpected end of data"
    return True


# What a file holds: one line per kind, specific before general. An existing file is
# :func:`sniff`-ed as the first that its first bytes look like; a command writes one of them.
PROJECT = Content("a Radioplay project", _json_with(b'"format_version"'))
TABLE_READ_REPORT = Content("a table-read report", _json_with(b'"live_lines"'))
PLS_LEXICON = Content("a PLS lexicon", lambda h: _start(h).startswith(b"<") and b"<lexicon" in h)
CSV_LEXICON = Content("a CSV lexicon", lambda h: _start(h).startswith(b"word,say"))
WAV = Content("a WAV file", lambda h: h[:4] in (b"RIFF", b"RF64", b"BW64") and h[8:12] == b"WAVE")
FLAC = Content("a FLAC file", lambda h: h.startswith(b"fLaC"))
MP3 = Content("an MP3 file", lambda h: h.startswith(b"ID3") or (len(h) > 1 and h[0] == 0xFF and h[1] >= 0xE0))
MP4 = Content("an MPEG-4 file", lambda h: h[4:8] == b"ftyp")
JSON = Content("a JSON file", lambda h: _start(h)[:1] in (b"{", b"["))
TEXT = Content("a text file", _text)
BINARY = Content("binary data", lambda h: True)
EMPTY = Content("nothing", lambda h: not h)
CONTENTS = (EMPTY, PROJECT, TABLE_READ_REPORT, PLS_LEXICON, CSV_LEXICON, WAV, FLAC, MP3, MP4, JSON, TEXT, BINARY)


def sniff(head: bytes) -> Content:
    """What a file whose first bytes are ``head`` holds (:data:`CONTENTS`)."""
    return next(c for c in CONTENTS if c.looks(head))


def _head(path: Path) -> bytes:
    with open_regular(path) as f:  # never blocks, whatever took the name since the stat
        return f.read(SNIFF_BYTES)


def stat_inputs(inputs: Iterable[tuple[str, str | Path]]) -> list[tuple[str, os.stat_result]]:
    """Each input that exists, with its stat (device and inode decide sameness)."""
    found = []
    for what, path in inputs:
        try:
            found.append((what, os.stat(path)))
        except (OSError, ValueError):
            continue
    return found


def problem_with(path: Path, writes: Content, inputs: Sequence[tuple[str, os.stat_result]] = (),
                 overwrite: bool = False, folder: Path | None = None) -> str | None:
    """Why the file ``path`` must not be replaced by one holding ``writes``, or None.

    ``path`` is the name the rename goes to (its folder resolved); ``inputs``:
    (what, stat) of the command's inputs; ``folder``: where a symbolic link
    must stay (default: ``path``'s folder)."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be examined ({exc.strerror or exc})"
    if stat.S_ISLNK(found.st_mode):
        target = Path(os.path.realpath(path))
        if not target.is_relative_to(Path(os.path.realpath(folder or path.parent))):
            return f"is a symbolic link leading out of its folder (to {echo(target)}); name the file itself"
        try:
            found = os.stat(path)
        except OSError:
            return None  # a link to nothing yet inside the folder: the write creates its file
    if not stat.S_ISREG(found.st_mode):
        return f"is {describe_mode(found.st_mode)}, not a regular file; it would be replaced by one"
    for what, seen in inputs:
        if (seen.st_dev, seen.st_ino) == (found.st_dev, found.st_ino):
            return f"is {what}, which this command reads; choose another file"
    if overwrite or found.st_size == 0:
        return None
    try:
        holds = sniff(_head(path))
    except OSError as exc:
        return f"cannot be read to tell what it holds ({exc.strerror or exc}); {OVERWRITE_FLAG} replaces it"
    if holds in (EMPTY, writes):
        return None
    return f"holds {holds.name}, not {writes.name}; {OVERWRITE_FLAG} replaces it"


def folder_problem(folder: Path) -> str | None:
    """Why files cannot be created in ``folder`` (made first where missing), or None."""
    existing = folder
    while True:
        try:
            found = os.stat(existing)
            break
        except (FileNotFoundError, NotADirectoryError):  # missing, or under a file: look further up
            if existing.parent == existing:
                return None
            existing = existing.parent
        except OSError as exc:
            return f"cannot reach {echo(existing)} ({exc.strerror or exc})"
    if not stat.S_ISDIR(found.st_mode):
        kind = "a file" if stat.S_ISREG(found.st_mode) else describe_mode(found.st_mode)
        return f"{echo(existing)} is {kind}, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"cannot write in {echo(existing)}: permission denied"
    return None


@dataclass(frozen=True)
class OutputFile:
    """A checked output: ``path`` is where the file goes (a link inside its
    folder followed). Pass :meth:`check_again` as the atomic write's guard."""

    path: Path
    given: str  # as the user typed it, for messages
    shown: str  # the file as the user named it: ``given``, or the name inside the folder it means
    option: str
    writes: Content
    inputs: tuple[tuple[str, str], ...] = ()
    overwrite: bool = False

    def check_again(self) -> None:
        """The same rule just before the rename (the name may hold something else by now)."""
        problem = folder_problem(self.path.parent) or problem_with(
            self.path, self.writes, stat_inputs(self.inputs), self.overwrite)
        if problem is not None:
            raise OutputPathError(_message(self.option, self.given, problem))


def _message(option: str, given: str, problem: str) -> str:
    return f"{option} {echo(given)}: {problem}".lstrip()


def _means_folder(given: str) -> bool:
    return given.endswith("/") or (os.sep != "/" and given.endswith(os.sep))


def output_file(given: str | Path, writes: Content, *, option: str = "", inputs: Iterable[tuple[str, str | Path]] = (),
                overwrite: bool = False, default_name: str | None = None) -> OutputFile:
    """Resolve and check the file a user named for ``writes`` (see the module doc).

    ``inputs``: (what, path) of what the command reads ("the draft (NEW_SCRIPT)");
    ``default_name``: the file's name when ``given`` means a folder (None: refused).
    Raises :class:`OutputPathError`."""
    text, inputs = str(given), list(inputs)
    if not text:
        raise OutputPathError(_message(option, "''", "an empty name; give a file name"))
    if "\0" in text:
        raise OutputPathError(_message(option, text, "a file name cannot hold a NUL character"))
    path = shown = Path(text)
    if _means_folder(text):
        if default_name is None:
            raise OutputPathError(_message(option, text, f"ends with a slash (a folder); {option or 'this'} "
                                                         "needs a file name"))
        path = shown = path / default_name
    if path.is_dir():
        raise OutputPathError(_message(option, text, "is a folder; name a file (a trailing slash writes inside "
                                                     "the folder)" if default_name else "is a folder; name a file"))
    problem = folder_problem(path.parent)
    if problem is not None:
        raise OutputPathError(_message(option, text, problem))
    folder = Path(os.path.realpath(path.parent)) if path.parent.exists() else path.parent.absolute()
    named = folder / path.name
    seen = stat_inputs(inputs)
    problem = problem_with(named, writes, seen, overwrite)
    if problem is not None:
        raise OutputPathError(_message(option, text, problem))
    if named.is_symlink():
        named = Path(os.path.realpath(named))  # inside the folder (checked): the link stays, its file is replaced
    return OutputFile(named, text, str(shown), option, writes, tuple((what, str(p)) for what, p in inputs), overwrite)


def in_place(path: str | Path, writes: Content = PROJECT) -> OutputFile:
    """The file a command read, to save back: a link to it is followed wherever
    it leads (the link stays); refused when the name now holds no regular file."""
    real = Path(os.path.realpath(path))
    try:
        found = os.stat(real)
    except FileNotFoundError:
        return OutputFile(real, str(path), str(path), "", writes, overwrite=True)
    except OSError as exc:
        raise OutputPathError(_message("", str(path), f"cannot be examined ({exc.strerror or exc})")) from None
    if not stat.S_ISREG(found.st_mode):
        raise OutputPathError(_message("", str(path), f"is {describe_mode(found.st_mode)}, not a regular file; "
                                                      "it would be replaced by one"))
    return OutputFile(real, str(path), str(path), "", writes, overwrite=True)
