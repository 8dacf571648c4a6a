"""Script revisions in the project: each revision's name, date and colour, the lines it
changed, and what it replaced (kept as history, never thrown away).

Screenwriters mark each revision of a shooting script in a colour of a fixed order
(white, then blue, pink, yellow, green, goldenrod, buff, salmon, cherry) and each
changed line with a mark in the margin; the production keeps the same record:
``Project.revisions`` (:class:`engine.project.model.Revision`, a plain record like the
other parts of a project) in the order they were applied, the newest last. A line's
mark is the newest revision that changed it (:func:`marks`); what it said before, with
the takes, lock and recording it had then, is in that revision's ``earlier``; a line a
revision took out of the script is in its ``removed``, whole.
"""

from __future__ import annotations

import unicodedata

from engine.project.defaults import MAX_REVISION_NAME_CHARS, too_long
from engine.project.model import Line, Project, Revision

# The industry's order of revision colours (white is the first draft, not a revision).
REVISION_COLOURS: tuple[tuple[str, str], ...] = (
    ("Blue", "#4a7bd0"), ("Pink", "#e58bb5"), ("Yellow", "#e2c83a"), ("Green", "#4caf6a"),
    ("Goldenrod", "#d4a017"), ("Buff", "#d8c49a"), ("Salmon", "#f08a6c"), ("Cherry", "#c2185b"),
    ("Tan", "#b48a60"),
)


def revision_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a revision (a page header, a menu entry, a report's
    first line: one short line), or None."""
    if (long := too_long(name, MAX_REVISION_NAME_CHARS)) is not None:
        return long
    control = next((ch for ch in name if unicodedata.category(ch) in ("Cc", "Zl", "Zp")), None)
    if control is not None:
        return f"holds a control character (U+{ord(control):04X}); a name is one line of text"
    return None


def next_revision_look(project: Project) -> tuple[str, str]:
    """The name and colour the next revision takes: the next colour in the order."""
    name, colour = REVISION_COLOURS[len(project.revisions) % len(REVISION_COLOURS)]
    rounds = len(project.revisions) // len(REVISION_COLOURS)
    return (f"{name} Revision" if not rounds else f"Double {name} Revision" if rounds == 1
            else f"{name} Revision {rounds + 1}"), colour


def marks(project: Project) -> dict[str, Revision]:
    """Line id -> the newest revision that changed or added it (for lines still in the script)."""
    present = {line.id for line in project.lines}
    out: dict[str, Revision] = {}
    for revision in project.revisions:
        for line_id in (*revision.changed, *revision.added):
            if line_id in present:
                out[line_id] = revision
    return out


def history_of(project: Project, line_id: str) -> list[tuple[Revision, Line]]:
    """What a line said before each revision that changed it, oldest first."""
    return [(revision, line) for revision in project.revisions for line in revision.earlier if line.id == line_id]


def removed_lines(project: Project) -> list[tuple[Revision, Line]]:
    """Every line a revision took out, with the revision, oldest first."""
    return [(revision, line) for revision in project.revisions for line in revision.removed]
