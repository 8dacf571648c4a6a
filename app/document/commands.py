"""Undo commands: every edit of the production is one of these.

Each command stores just what it needs to go both ways and applies it
through the Document primitives, so views and the engine follow undo and
redo exactly as they follow the original edit. Typing in one line's text
merges into one command per editing session (``merge_key``), and repeated
changes of one cast setting merge the same way; a session that ends where it
began leaves no command at all.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtGui import QUndoCommand

from app.document.document import Document
from engine.project.model import Line, Role
from engine.project.timeline import layout, start_if

# QUndoCommand.id() values: commands with the same id may merge.
TYPING_ID = 1001
ROLE_SETTING_ID = 1002


class SetLineField(QUndoCommand):
    """One field of one line; text typing with the same merge key merges."""

    def __init__(self, doc: Document, line_id: str, field: str, value: Any, *,
                 merge_key: object | None = None, text: str | None = None) -> None:
        super().__init__(text or _line_label(field))
        self.doc, self.line_id, self.field = doc, line_id, field
        self.new = value
        self.old = getattr(doc.project.line(line_id), field)
        self.merge_key = merge_key

    def id(self) -> int:
        return TYPING_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt override
        if not isinstance(other, SetLineField) or other.merge_key != self.merge_key:
            return False
        if (other.line_id, other.field) != (self.line_id, self.field):
            return False
        self.new = other.new
        # Typed back to where it started (or put back by Escape): the stack drops the step
        # rather than keep an edit that changes nothing, or leave one to redo.
        self.setObsolete(self.new == self.old)
        return True

    def redo(self) -> None:
        self.doc.apply_line_field(self.line_id, self.field, self.new)

    def undo(self) -> None:
        self.doc.apply_line_field(self.line_id, self.field, self.old)


class SetLineFields(QUndoCommand):
    """Several fields of one line at once (a clip move sets start, overlap, pause)."""

    def __init__(self, doc: Document, line_id: str, values: Mapping[str, Any], text: str) -> None:
        super().__init__(text)
        self.doc, self.line_id, self.new = doc, line_id, dict(values)
        line = doc.project.line(line_id)
        self.old = {f: getattr(line, f) for f in values}

    def redo(self) -> None:
        self.doc.apply_line_fields(self.line_id, self.new)

    def undo(self) -> None:
        self.doc.apply_line_fields(self.line_id, self.old)


class SetRoleField(QUndoCommand):
    """A cast setting: ``voice`` (whole VoiceParams), ``voice.speed``, ``gain_db``, ..."""

    def __init__(self, doc: Document, role: str, field: str, value: Any, *, merge: bool = False) -> None:
        super().__init__(f"Change {_role_label(field)} of {role}")
        self.doc, self.role, self.field, self.new = doc, role, field, value
        current = doc.project.role(role)
        if field == "voice":
            self.old = current.voice
        elif field.startswith("voice."):
            self.old = getattr(current.voice, field.removeprefix("voice."))
        else:
            self.old = getattr(current, field)
        self.merge = merge

    def id(self) -> int:
        return ROLE_SETTING_ID if self.merge else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt override
        if not isinstance(other, SetRoleField) or not other.merge:
            return False
        if (other.role, other.field) != (self.role, self.field):
            return False
        self.new = other.new
        return True

    def redo(self) -> None:
        self.doc.apply_role_field(self.role, self.field, self.new)

    def undo(self) -> None:
        self.doc.apply_role_field(self.role, self.field, self.old)


class SetProjectField(QUndoCommand):
    """A project-wide setting: the title, the master effect preset."""

    def __init__(self, doc: Document, field: str, value: Any, text: str) -> None:
        super().__init__(text)
        self.doc, self.field, self.new = doc, field, value
        self.old = getattr(doc.project, field)

    def redo(self) -> None:
        self.doc.apply_project_field(self.field, self.new)

    def undo(self) -> None:
        self.doc.apply_project_field(self.field, self.old)


class InsertLine(QUndoCommand):
    def __init__(self, doc: Document, index: int, line: Line) -> None:
        super().__init__(f"Add line for {line.role}")
        self.doc, self.index, self.line = doc, index, line

    def redo(self) -> None:
        self.doc.apply_insert_line(self.index, copy.copy(self.line))

    def undo(self) -> None:
        self.doc.apply_remove_line(self.line.id)


class RemoveLine(QUndoCommand):
    def __init__(self, doc: Document, line_id: str) -> None:
        super().__init__("Delete line")
        self.doc, self.line_id = doc, line_id
        self.index = doc.line_index(line_id)
        self.line = copy.copy(doc.project.line(line_id))

    def redo(self) -> None:
        self.doc.apply_remove_line(self.line_id)

    def undo(self) -> None:
        self.doc.apply_insert_line(self.index, copy.copy(self.line))


class Macro(QUndoCommand):
    """Several commands as one undo step. The steps are kept here in Python rather than
    as Qt child commands, whose Python wrappers PySide may collect early."""

    def __init__(self, text: str, steps: Sequence[QUndoCommand]) -> None:
        super().__init__(text)
        self.steps = tuple(steps)

    def redo(self) -> None:
        for step in self.steps:
            step.redo()

    def undo(self) -> None:
        for step in reversed(self.steps):
            step.undo()


def remove_lines(doc: Document, line_ids: list[str]) -> Macro:
    """One undo step that deletes several lines."""
    ordered = sorted(line_ids, key=doc.line_index, reverse=True)  # later first: indexes stay valid
    return Macro("Delete line" if len(ordered) == 1 else f"Delete {len(ordered)} lines",
                 [RemoveLine(doc, line_id) for line_id in ordered])


class InsertRole(QUndoCommand):
    def __init__(self, doc: Document, index: int, role: Role) -> None:
        super().__init__(f"Add role {role.name}")
        self.doc, self.index, self.role = doc, index, role

    def redo(self) -> None:
        self.doc.apply_insert_role(self.index, copy.deepcopy(self.role))

    def undo(self) -> None:
        self.doc.apply_remove_role(self.role.name)


class RemoveRole(QUndoCommand):
    """Only for roles without lines (the cast panel says so otherwise)."""

    def __init__(self, doc: Document, name: str) -> None:
        super().__init__(f"Delete role {name}")
        self.doc, self.name = doc, name
        self.index = doc.project.role_names().index(name)
        self.role = copy.deepcopy(doc.project.role(name))

    def redo(self) -> None:
        self.doc.apply_remove_role(self.name)

    def undo(self) -> None:
        self.doc.apply_insert_role(self.index, copy.deepcopy(self.role))


class RenameRole(QUndoCommand):
    def __init__(self, doc: Document, old: str, new: str) -> None:
        super().__init__(f"Rename {old} to {new}")
        self.doc, self.old, self.new = doc, old, new

    def redo(self) -> None:
        self.doc.apply_rename_role(self.old, self.new)

    def undo(self) -> None:
        self.doc.apply_rename_role(self.new, self.old)


def move_clip(doc: Document, line_id: str, new_start: float, durations: Mapping[str, float]) -> SetLineFields:
    """The undo command for a clip dragged on the timeline to ``new_start`` seconds.

    The placement is kept relative where the model can say it, because
    relative placements survive later edits of earlier lines: after its
    natural place -> a longer ``pause_before``; over the previous line -> an
    ``overlap`` (an interruption); anywhere else -> a pinned ``start``.
    ``durations`` are the clip lengths the timeline shows (estimates for
    lines not voiced yet: a relative placement then moves with the real
    lengths, as the producer meant).
    """
    new_start = max(0.0, float(new_start))
    project = doc.project
    index = doc.line_index(line_id)
    line = project.line(line_id)
    cleared: dict[str, Any] = {"start": None, "overlap": 0.0, "with_previous": False, "pause_before": 0.0}
    natural = _natural_start(doc, line_id, durations)
    values: dict[str, Any]
    if index == 0 or natural is None:
        values = {**cleared, "pause_before": new_start} if index == 0 else {**cleared, "start": new_start}
    else:
        before = layout(project, durations)[index - 1]
        if new_start >= natural:
            values = {**cleared, "pause_before": round(new_start - natural, 3)}
        elif before.start <= new_start < before.end and before.end - new_start <= 60:
            values = {**cleared, "overlap": round(before.end - new_start, 3)}
        else:
            values = {**cleared, "start": round(new_start, 3)}
    if not _lands_at(doc, line_id, values, durations, new_start):
        values = {**cleared, "start": round(new_start, 3)}
    values = {k: v for k, v in values.items() if getattr(line, k) != v}
    return SetLineFields(doc, line_id, values, f"Move {line.role}'s line")


def _natural_start(doc: Document, line_id: str, durations: Mapping[str, float]) -> float | None:
    """Where the line would start with no pause, overlap or pin of its own."""
    natural = {"start": None, "overlap": 0.0, "with_previous": False, "pause_before": 0.0}
    return start_if(doc.project, durations, line_id, natural)


def _lands_at(doc: Document, line_id: str, values: Mapping[str, Any], durations: Mapping[str, float],
              target: float) -> bool:
    return abs(start_if(doc.project, durations, line_id, values) - target) < 0.002


_LINE_LABELS = {"text": "Edit text", "role": "Change speaker", "note": "Edit delivery note",
                "pause_before": "Change pause", "start": "Move line", "overlap": "Change overlap"}
_ROLE_LABELS = {"voice": "voice", "voice.voice": "voice", "voice.speaker": "speaker", "voice.speed": "speed",
                "voice.pitch": "pitch", "voice.variation": "variation", "gain_db": "gain", "pan": "pan",
                "priority": "priority", "mute": "mute", "solo": "solo", "colour": "colour", "effect": "effect"}


def _line_label(field: str) -> str:
    return _LINE_LABELS.get(field, f"Change {field}")


def _role_label(field: str) -> str:
    return _ROLE_LABELS.get(field, field)
