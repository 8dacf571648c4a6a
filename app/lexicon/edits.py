"""Undoable edits of the pronunciation lexicon, and which lines use an entry.

A lexicon (the project's, or a role's) is replaced whole by one
:class:`~app.document.commands.SetProjectField` or :class:`~app.document.commands.SetRoleField`
(never edited in place: the engine's frontend indexes a lexicon once per
dict), so undo puts the old dict back and the engine's snapshot sees a new
lexicon, re-plans and voices again only the lines whose clip key changed.
A scope is None for the project's entries, else a role's name. GUI thread only.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtGui import QUndoCommand

from app.document.commands import Macro, SetProjectField, SetRoleField
from app.document.document import Document
from engine.project.lexicon_io import Entry, merged
from engine.project.model import Line, Project
from engine.synth.frontend import apply_lexicon, clean

Scope = str | None


def lexicon_of(project: Project, scope: Scope) -> dict[str, str]:
    return project.lexicon if scope is None else project.role(scope).lexicon


def _set(doc: Document, scope: Scope, lexicon: dict[str, str]) -> QUndoCommand:
    if scope is None:
        return SetProjectField(doc, "lexicon", lexicon, "Change lexicon")
    return SetRoleField(doc, scope, "lexicon", lexicon)


def _without(lexicon: dict[str, str], word: str) -> dict[str, str]:
    """A copy without ``word`` in any case (one entry per word and scope)."""
    lower = word.lower()
    return {w: s for w, s in lexicon.items() if w.lower() != lower}


def set_entry(doc: Document, scope: Scope, word: str, say: str,
              replacing: tuple[Scope, str] | None = None) -> QUndoCommand | None:
    """Add ``word`` -> ``say`` to ``scope``, in place of the entry ``replacing``
    (its scope and word) when one is being edited. None: nothing changes."""
    project = doc.project
    steps: list[QUndoCommand] = []
    target = dict(lexicon_of(project, scope))
    if replacing is not None and replacing[0] != scope:
        steps.append(_set(doc, replacing[0], _without(lexicon_of(project, replacing[0]), replacing[1])))
    elif replacing is not None:
        target = _without(target, replacing[1])
    target = _without(target, word)
    target[word] = say
    if target == lexicon_of(project, scope) and not steps:
        return None
    steps.append(_set(doc, scope, target))
    where = "the project" if scope is None else scope
    return Macro(f"Lexicon: {word} → {say} ({where})", steps)


def remove_entry(doc: Document, scope: Scope, word: str) -> QUndoCommand:
    command = _set(doc, scope, _without(lexicon_of(doc.project, scope), word))
    command.setText(f"Remove {word} from the lexicon")
    return command


def add_entries(doc: Document, entries: Iterable[Entry], text: str) -> Macro:
    """Imported entries, one undo step (raises LexiconFileError for a role not in the cast)."""
    project_lexicon, roles = merged(doc.project, entries)
    steps = [_set(doc, None, project_lexicon)] if project_lexicon != doc.project.lexicon else []
    steps += [_set(doc, name, lexicon) for name, lexicon in roles.items()
              if lexicon != doc.project.role(name).lexicon]
    return Macro(text, steps)


def lines_using(project: Project, scope: Scope, word: str) -> list[Line]:
    """The lines that say ``word`` through this scope's entry (a role's own
    entry for the word hides the project's from that role's lines)."""
    lower = word.lower()
    overriding = {r.name for r in project.cast if any(w.lower() == lower for w in r.lexicon)}
    out = []
    for line in project.lines:
        if lower not in line.text.lower():
            continue  # most lines: no need to run the frontend
        if (scope is None and line.role in overriding) or (scope is not None and line.role != scope):
            continue
        _, used = apply_lexicon(clean(line.text), project.lexicon_for(line.role))
        if any(w == word for w, _ in used):
            out.append(line)
    return out
