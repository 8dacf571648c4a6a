"""File names made from names in a user's file (role stems now; per-line
files and per-scene chapters later): the one place that turns them into
names, so every export obeys the same rules.

A name from a project is hostile until proven otherwise: ``../../evil``,
``/abs``, ``a\\0b``, ``CON``, ``...`` or a 10 kB role name must each become
one plain file name inside the output folder, and two roles must never
share a file, also where the file system folds case or Unicode forms
(macOS, Windows), which is why uniqueness is checked on the folded name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

# Room for a numbered suffix and an extension inside the 255-byte limit of
# common file systems, with a margin for a folder's own name on Windows.
MAX_NAME_BYTES = 100
FALLBACK = "role"
# Names Windows reserves for devices, also with any extension (``NUL.wav``).
_RESERVED = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
             *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10)),
             *(f"COM{d}" for d in "¹²³"), *(f"LPT{d}" for d in "¹²³")}
_UNSAFE = re.compile(r"[^\w.\-]+", flags=re.UNICODE)


def safe_stem(name: str, max_bytes: int = MAX_NAME_BYTES) -> str:
    """One portable file name stem (no extension) for ``name``.

    Only letters, digits, ``_``, ``.`` and ``-`` survive (every run of anything
    else, separators and NUL included, becomes one ``_``), so the result can
    never name a folder or leave one. No leading or trailing dot or
    underscore (no hidden files, no ``.``/``..``, nothing Windows would trim),
    no reserved device name, at most ``max_bytes`` bytes of UTF-8 cut on a
    character boundary; what is left empty becomes ``role``.
    """
    text = unicodedata.normalize("NFC", name)
    safe = _UNSAFE.sub("_", text.strip()).strip("._")
    safe = _truncate(safe, max_bytes).rstrip("._")
    if not safe:
        return FALLBACK
    base, dot, rest = safe.partition(".")
    if base.upper() in _RESERVED:  # NUL.txt is the device too: mark the base, NUL_.txt
        safe = _truncate(f"{base}_{dot}{rest}", max_bytes).rstrip(".")
        if safe.partition(".")[0].upper() in _RESERVED:  # cut back to the name by a tiny max_bytes
            return FALLBACK
    return safe


def _truncate(text: str, max_bytes: int) -> str:
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    return encoded[:max_bytes].decode("utf-8", errors="ignore")


@dataclass(frozen=True)
class FileName:
    """Where one name went: ``file`` is the name on disk; ``shared_with`` is
    the earlier name whose file it would have overwritten (None if none)."""

    name: str
    file: str
    shared_with: str | None = None


def unique_file_names(names: Sequence[str], extension: str, max_bytes: int = MAX_NAME_BYTES) -> list[FileName]:
    """A distinct safe file name per name, in order: the first name to claim a
    file keeps it, later ones that sanitize alike get ``-2``, ``-3`` ...
    (deterministic: it depends only on the order of ``names``)."""
    taken: dict[str, str] = {}  # folded file name -> the name that holds it
    out: list[FileName] = []
    for name in names:
        stem = safe_stem(name, max_bytes)
        file = stem + extension
        shared = taken.get(_fold(file))
        n = 1
        while _fold(file) in taken:
            n += 1
            suffix = f"-{n}"
            file = _truncate(stem, max_bytes - len(suffix)).rstrip("._") + suffix + extension
        taken[_fold(file)] = name
        out.append(FileName(name, file, shared))
    return out


def _fold(file: str) -> str:
    """Names a case-insensitive or Unicode-normalizing file system treats as one."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", file).casefold())


STEM_NAME_STYLES = ("plain", "broadcast")


def broadcast_stem(title: str, name: str, rate: int, bits: int, channels: int = 2) -> str:
    """The post-house style of a stem's name (no extension):
    ``TITLE_DXSTEM_2ch_48k_32b``; title and name are made safe apart so that
    a long title cannot cut the stem's own name or its format off."""
    return f"{safe_stem(title, 40)}_{safe_stem(name, 40)}STEM_{channels}ch_{rate / 1000:g}k_{bits}b"
