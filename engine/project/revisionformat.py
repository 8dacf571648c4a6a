"""Script revisions in the ``.radioplay`` file (format version 3).

Kept beside :mod:`engine.project.fileformat`, which calls it with its own line
reader and writer, so a line in a revision's history is stored exactly as a
line of the script is (its takes, lock and recording included). Files of
versions 1 and 2 have no ``revisions`` and load unchanged; a project never
revised writes none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.project.formatreader import Reader
from engine.project.model import Line, Project, Revision

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
LineWriter = Callable[[Line, "Path | None"], dict[str, Any]]
LineReader = Callable[[Any, Any, str, "Path | None"], Line]


def revisions_to_dict(project: Project, folder: Path | None, line_to_dict: LineWriter) -> dict[str, Any]:
    if not project.revisions:
        return {}
    return {"revisions": [{
        "name": rev.name, "date": rev.date, "colour": rev.colour, "script": rev.script,
        "changed": list(rev.changed), "added": list(rev.added), "flagged": list(rev.flagged),
        "earlier": [line_to_dict(line, folder) for line in rev.earlier],
        "removed": [line_to_dict(line, folder) for line in rev.removed],
    } for rev in project.revisions]}


def revisions_from_dict(r: Reader, root: dict[str, Any], folder: Path | None,
                        line_from_dict: LineReader) -> list[Revision]:
    revisions: list[Revision] = []
    for i, rd in enumerate(r.items(root.get("revisions", []), "revisions")):
        path = f"revisions[{i}]"
        rd = r.obj(rd, path)
        date = r.text(rd, "date", path)
        if not _DATE.match(date):
            raise r.fail(f"{path}.date", f"expected a day as YYYY-MM-DD, got {date!r}")
        colour = r.text(rd, "colour", path)
        if not _COLOUR.match(colour):
            raise r.fail(f"{path}.colour", f"expected #rrggbb, got {colour!r}")
        revisions.append(Revision(
            name=r.text(rd, "name", path, empty=False), date=date, colour=colour,
            script=r.text(rd, "script", path, ""),
            changed=_ids(r, rd, "changed", path), added=_ids(r, rd, "added", path),
            flagged=_ids(r, rd, "flagged", path),
            earlier=[line_from_dict(r, ld, f"{path}.earlier[{j}]", folder)
                     for j, ld in enumerate(r.items(rd.get("earlier", []), f"{path}.earlier"))],
            removed=[line_from_dict(r, ld, f"{path}.removed[{j}]", folder)
                     for j, ld in enumerate(r.items(rd.get("removed", []), f"{path}.removed"))],
        ))
    return revisions


def _ids(r: Reader, d: dict[str, Any], key: str, path: str) -> tuple[str, ...]:
    out: list[str] = []
    for j, value in enumerate(r.items(d.get(key, []), f"{path}.{key}")):
        if not isinstance(value, str) or not value:
            raise r.fail(f"{path}.{key}[{j}]", f"expected a line id, got {value!r}")
        out.append(value)
    return tuple(out)
