"""The open production: its Project, file path, undo stack and change signals.

Every edit goes through an undo command (app/document/commands.py) which calls one
of the ``apply_*`` primitives here; each primitive mutates the plain engine
Project and emits one fine-grained signal. The Qt models, the timeline and
the engine thread listen to those signals, so whatever made the change
(typing, a spin box, a clip drag, undo or redo) every view and the engine
see it the same way.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from app.document.files import FileIdentity
from engine.project.model import Line, Project, Role, new_line_id
from engine.project.sound import SoundClip
from engine.project.starting_voices import suggest_new_role

# Line fields an edit may change, and whether they affect timing only.
LINE_FIELDS = ("text", "role", "note", "pause_before", "start", "overlap", "with_previous", "scene",
               "take", "takes", "locked", "recording", "read_takes", "perspective", "perspective_evidence", "position")
# Role fields outside the voice (mix settings and looks; the role's lexicon, replaced whole).
ROLE_FIELDS = ("colour", "gain_db", "pan", "mute", "solo", "priority", "effect", "lexicon", "character")
VOICE_FIELDS = ("voice", "speaker", "speed", "pitch", "variation")
# "sounds", "sound_lanes" and "lexicon" are replaced whole (app/sound/edits.py, app/lexicon/edits.py),
# never changed in place.
# "scenes": replaced whole (a scene's room is set by replacing the list: app/script/staging.py).
PROJECT_FIELDS = ("title", "master_effect", "sounds", "sound_lanes", "sound_suggestions", "lexicon", "timing", "scenes")
# What applying a script revision replaces (apply_revision), each field whole.
REVISION_FIELDS = ("cast", "scenes", "lines", "sound_lanes", "sounds", "revisions")


class Document(QObject):
    """Owned by the main window; lives on the GUI thread only."""

    lineChanged = Signal(str)  # line id: text/role/note/pause/start/overlap changed
    linesReset = Signal()  # lines added, removed or reordered
    roleChanged = Signal(str, str)  # role name, field ("voice.speed", "gain_db", ...)
    castReset = Signal()  # roles added, removed or renamed
    projectReplaced = Signal()  # New, Open, Import, Recover: a different Project object
    projectChanged = Signal(str)  # a project-wide setting ("title", "master_effect", ...)
    pathChanged = Signal()

    def __init__(self, project: Project | None = None, path: Path | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = project if project is not None else Project()
        self.path: Path | None = None
        # The script an unsaved import was made from: Save As starts beside it, not in the last folder used.
        self.source: Path | None = None
        # The file at ``path`` as it was last read or written here: recovery checks it is still that file.
        self.identity: FileIdentity | None = None
        self.set_path(path)
        self.undo = QUndoStack(self)
        self.undo.setUndoLimit(500)
        # sound clips by id, for the ``project.sounds`` list it was made from (replaced whole on each edit)
        self._sounds_by_id: tuple[list[SoundClip], dict[str, SoundClip]] = ([], {})
        # The stack emits indexChanged while it is destroyed, after the Python side of its
        # listeners may be gone: silence it as soon as the document starts going.
        undo = self.undo
        self.destroyed.connect(lambda: undo.blockSignals(True))

    # ---- whole documents ------------------------------------------------
    def replace(self, project: Project, path: Path | None, *, modified: bool = False,
                identity: FileIdentity | None = None, source: Path | None = None) -> None:
        self.project = project
        self.source = Path(source).absolute() if source is not None else None
        self.undo.clear()
        if modified:
            self.undo.resetClean()  # no clean state: the title keeps its [*] until saved
        else:
            self.undo.setClean()
        self.set_path(path, identity)
        self.projectReplaced.emit()

    def set_path(self, path: Path | None, identity: FileIdentity | None = None) -> None:
        """Absolute, so a path typed relative to one working folder never names a file in another."""
        self.path = Path(path).absolute() if path is not None else None
        self.identity = identity if path is not None else None
        self.pathChanged.emit()

    def is_modified(self) -> bool:
        return not self.undo.isClean()

    def display_name(self) -> str:
        return self.path.name if self.path else f"{self.project.title or 'Untitled'} (unsaved)"

    # ---- primitives used by undo commands ---------------------------------
    def apply_line_field(self, line_id: str, field: str, value: Any) -> Any:
        if field not in LINE_FIELDS:
            raise ValueError(f"unknown line field {field!r}")
        line = self.project.line(line_id)
        old = getattr(line, field)
        setattr(line, field, value)
        self.lineChanged.emit(line_id)
        return old

    def apply_line_fields(self, line_id: str, values: dict[str, Any]) -> dict[str, Any]:
        line = self.project.line(line_id)
        old = {f: getattr(line, f) for f in values}
        for f, v in values.items():
            if f not in LINE_FIELDS:
                raise ValueError(f"unknown line field {f!r}")
            setattr(line, f, v)
        self.lineChanged.emit(line_id)
        return old

    def apply_role_field(self, name: str, field: str, value: Any) -> Any:
        role = self.project.role(name)
        if field.startswith("voice."):
            sub = field.removeprefix("voice.")
            if sub not in VOICE_FIELDS:
                raise ValueError(f"unknown voice field {sub!r}")
            old = getattr(role.voice, sub)
            role.voice = role.voice.with_changes(**{sub: value})
        elif field == "voice":
            old, role.voice = role.voice, value
        elif field in ROLE_FIELDS:
            old = getattr(role, field)
            setattr(role, field, value)
        else:
            raise ValueError(f"unknown role field {field!r}")
        self.roleChanged.emit(name, field)
        return old

    def apply_project_field(self, field: str, value: Any) -> Any:
        if field not in PROJECT_FIELDS:
            raise ValueError(f"unknown project field {field!r}")
        old = getattr(self.project, field)
        setattr(self.project, field, value)
        self.projectChanged.emit(field)
        return old

    def apply_insert_line(self, index: int, line: Line) -> None:
        self.project.lines.insert(index, line)
        self.linesReset.emit()

    def apply_remove_line(self, line_id: str) -> tuple[int, Line]:
        for index, line in enumerate(self.project.lines):
            if line.id == line_id:
                del self.project.lines[index]
                self.linesReset.emit()
                return index, line
        raise KeyError(f"unknown line {line_id!r}")

    def apply_insert_role(self, index: int, role: Role) -> None:
        self.project.cast.insert(index, role)
        self.castReset.emit()

    def apply_remove_role(self, name: str) -> tuple[int, Role]:
        for index, role in enumerate(self.project.cast):
            if role.name == name:
                del self.project.cast[index]
                self.castReset.emit()
                return index, role
        raise KeyError(f"unknown role {name!r}")

    def apply_rename_role(self, old: str, new: str) -> None:
        self.project.role(old).name = new
        for line in self.project.lines:
            if line.role == old:
                line.role = new
        self.castReset.emit()
        self.linesReset.emit()

    def apply_revision(self, project: Project) -> Project:
        """Everything a script revision changes at once (engine/project/revision_apply.py): the
        cast, scenes, lines, sounds and revisions of ``project`` into the open production, which
        stays the same object (the engine link keeps its session). Returns what it had, for undo."""
        old = Project(**{f: getattr(self.project, f) for f in REVISION_FIELDS})
        for f in REVISION_FIELDS:
            setattr(self.project, f, getattr(project, f))
        self.linesReset.emit()  # first: the views find each line they draw for the cast's reset
        self.castReset.emit()
        for f in ("sound_lanes", "sounds"):
            self.projectChanged.emit(f)
        return old

    # ---- helpers for callers ----------------------------------------------
    def sound_clip(self, clip_id: str) -> SoundClip | None:
        """The project's sound clip with this id, or None (a line's id, or one that is gone): the
        one lookup of sound clips by id. ``project.sounds`` is replaced whole by every edit
        (app/sound/edits.py), so the index is rebuilt when the list is another one (or grew)."""
        sounds = self.project.sounds
        if self._sounds_by_id[0] is not sounds or len(self._sounds_by_id[1]) != len(sounds):
            self._sounds_by_id = (sounds, {clip.id: clip for clip in sounds})
        return self._sounds_by_id[1].get(clip_id)

    def line_index(self, line_id: str) -> int:
        for index, line in enumerate(self.project.lines):
            if line.id == line_id:
                return index
        raise KeyError(f"unknown line {line_id!r}")

    def guess_next_role(self, after_index: int) -> str | None:
        """The speaker of a new line after ``after_index``: dialogue alternates.

        A, B, A -> B: the role that spoke before the current speaker, when the
        last lines alternate between two roles; otherwise the previous other
        speaker, or the only role there is.
        """
        lines = self.project.lines[: after_index + 1]
        names = self.project.role_names()
        if not lines:
            return names[0] if names else None
        current = lines[-1].role
        for line in reversed(lines[:-1]):
            if line.role != current:
                return line.role
        others = [n for n in names if n != current]
        return others[0] if others else current

    def new_line(self, role: str, text: str = "", scene: str | None = None) -> Line:
        existing = {line.id for line in self.project.lines}
        line_id = new_line_id()
        while line_id in existing:
            line_id = new_line_id()
        return Line(id=line_id, role=role, text=text, scene=scene)

    def new_role(self) -> Role:
        """A role that sounds different from every other (engine.project.casting)."""
        return suggest_new_role(self.project)

    def snapshot(self) -> Project:
        """A deep copy for a worker thread (export, autosave) to read safely."""
        return copy.deepcopy(self.project)
