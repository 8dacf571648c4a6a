"""Text from outside quoted back on a terminal: control characters escaped, length capped.

A name, a key or a line a user's file holds may carry anything: a NUL, an ESC
sequence that recolours or clears the terminal or sets its title, a BEL, a
carriage return that hides what came before it on the line, a bidirectional
override that shows the text in another order, or a megabyte of one key.
Whatever quotes such text in a message (``radioplay``'s errors and reports,
the service's answers) passes it through here, so the message stays one
readable line of bounded length:

- :func:`echo` for a value inside a message: every control character
  escaped (CR and LF too: a value never breaks the line) and the value cut
  to ``limit`` characters with its full length said;
- :func:`terminal_line` for a line printed whole (a report's row): the
  same, tabs kept;
- :func:`print_error` for the ``radioplay: error:`` line every verb ends
  with: each line of the message as :func:`terminal_line` makes it.

Escapes read like Python's (``\\x1b``, ``\\n``, ``\\u202e``) and are also
valid inside a JSON string (``\\u001b`` would be, ``\\x1b`` is not, so JSON
output is never passed through here: ``json.dumps`` escapes what JSON needs).
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterable
from typing import TextIO

# A value quoted inside a message (a key, a name, a path) is cut to this many characters.
ECHO_CHARS = 120
# A line printed whole (a report row, one line of an error) is cut to this many.
LINE_CHARS = 2000

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Characters that change how the rest of a line shows without being visible: the
# bidirectional embeddings, overrides and isolates, and the line and paragraph separators.
_INVISIBLE = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")


def _escaped(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _needs_escape(ch: str) -> bool:
    return ch in _INVISIBLE or unicodedata.category(ch) == "Cc"


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with every control character (C0, DEL, C1) and every invisible
    direction or line-separator character escaped, except those in ``keep``."""
    if text.isprintable() and not any(ch in _INVISIBLE for ch in text):
        return text  # the common case, one C-level pass
    return "".join(ch if ch in keep or not _needs_escape(ch) else _escaped(ch) for ch in text)


def _capped(text: str, limit: int, keep: str) -> str:
    if len(text) <= limit:
        return escape_controls(text, keep)
    return f"{escape_controls(text[:limit], keep)}\u2026 ({len(text):,} characters)"


def echo(value: object, limit: int = ECHO_CHARS) -> str:
    """A value quoted inside a one-line message: controls escaped (line breaks
    too), at most ``limit`` characters of it, then ``… (N characters)``."""
    return _capped(str(value), limit, keep="")


def quoted(value: object, limit: int = ECHO_CHARS) -> str:
    """:func:`echo` between single quotes: ``'SUE\\x1b[31m'``."""
    return f"'{echo(value, limit)}'"


def terminal_line(text: str, limit: int = LINE_CHARS) -> str:
    """One line printed whole: controls escaped except tabs, cut to ``limit`` characters."""
    return _capped(text, limit, keep="\t")


def print_lines(lines: Iterable[str], file: TextIO | None = None) -> None:
    """Each of ``lines`` printed as :func:`terminal_line` makes it (standard output by default)."""
    for line in lines:
        print(terminal_line(line), file=file if file is not None else sys.stdout)


def print_error(message: str, status: int = 1) -> int:
    """``radioplay: error: MESSAGE`` on standard error; returns ``status``.
    A message of several lines (a list of lines that cannot be voiced) keeps
    its line breaks; within each line every control character is escaped and
    the line is capped, so what a file or an argument held cannot reach the
    terminal raw."""
    shown = "\n".join(terminal_line(part) for part in message.split("\n"))
    print(f"radioplay: error: {shown}", file=sys.stderr)
    return status
