"""The script as a table: scene headings, then their lines, in order.

Scene headings are rows of their own (the view spans them across all
columns); every other row is one line. Columns follow a screenplay: pause,
speaker, delivery note (the parenthetical), text. The status column shows
what the engine reports for the line (Session.line_status), the time column
where the line sits on the timeline (as the engine laid it out: the
SessionState's clips, handed over by the presenter), the pause column how it is placed (a
pause, an overlap with the previous line, a pinned time). The line under the
playhead is highlighted while playing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPainter, QPixmap

from app.document.commands import SetLineField, SetLineFields
from app.document.document import Document
from app.script.columns import COLUMNS, STATES, Col
from app.script.directions import PERFORMED, UNPERFORMED, note_display, note_tooltip
from app.script.line_editor import TYPING_ROLE
from app.script.said_as import said_as
from app.script.staging import room_label
from engine.project.bounds import edited_overstep
from engine.project.delivery import join_notes, split_delivery_note
from engine.project.direction import note_directions
from engine.project.model import Line, Revision
from engine.project.revision import marks


class TimedLine(Protocol):
    """Where a line sounds: the engine's ClipView, or the presenter's estimate before it has one."""

    @property
    def line_id(self) -> str: ...
    @property
    def start(self) -> float: ...
    @property
    def end(self) -> float: ...

LINE_ID = Qt.ItemDataRole.UserRole + 1  # data(index, LINE_ID) -> line id, or None on a scene row
SCENE_ROW = Qt.ItemDataRole.UserRole + 2  # True on a scene heading row
_Index = QModelIndex | QPersistentModelIndex
PLAYING_BACKGROUND = QColor(255, 214, 102, 110)  # the line under the playhead: a translucent amber


def _dot(colour: str) -> QIcon:
    pix = QPixmap(12, 12)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(colour))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(1, 1, 10, 10)
    painter.end()
    return QIcon(pix)


def format_time(seconds: float) -> str:
    minutes, secs = divmod(max(0.0, seconds), 60)
    return f"{int(minutes)}:{secs:04.1f}"


def placement_text(line: Line) -> str:
    """The Pause column: how the line is placed after the previous one, as the layout reads it."""
    if line.start is not None:
        return f"pinned {format_time(line.start)}"
    pause = f"{line.pause_before:g} s" if line.pause_before else ""
    if line.with_previous:
        return f"with previous +{pause}" if pause else "with previous"
    if line.overlap:
        return f"-{line.overlap:g} s overlap"
    return pause


class ScriptModel(QAbstractTableModel):
    refused = Signal(str)  # an edit past the line's bounds (engine/project/bounds.py), not taken: why

    def __init__(self, doc: Document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self._rows: list[tuple[str, str]] = []  # ("scene", scene id) | ("line", line id)
        self._row_of: dict[str, int] = {}
        self._status: dict[str, tuple[str, str | None]] = {}  # line id -> (state name, error)
        self._starts: dict[str, float] = {}
        self._clips: Sequence[TimedLine] = ()  # the timeline's lines, as the presenter last drew them
        self._playing: str | None = None  # the line under the playhead while playing
        self._icons: dict[str, QIcon] = {}
        self._build()
        doc.lineChanged.connect(self._line_changed)
        doc.linesReset.connect(self.reset)
        doc.castReset.connect(self._cast_changed)
        doc.projectReplaced.connect(self._project_replaced)
        doc.projectChanged.connect(lambda field: self._cast_changed() if field == "scenes" else None)  # a room

    # ---- structure --------------------------------------------------------
    def _build(self) -> None:
        rows: list[tuple[str, str]] = []
        previous: str | None = None
        for line in self.doc.project.lines:
            if line.scene is not None and line.scene != previous:
                rows.append(("scene", line.scene))
            previous = line.scene
            rows.append(("line", line.id))
        self._rows = rows
        self._row_of = {key: i for i, (kind, key) in enumerate(rows) if kind == "line"}
        self._marks: dict[str, Revision] = marks(self.doc.project)  # a script revision changed these lines
        # data() runs for every cell the view measures; Project.line() scans the list (O(lines) a cell).
        self._line_of = {line.id: line for line in self.doc.project.lines}
        if self._playing not in self._row_of:
            self._playing = None

    def reset(self) -> None:
        self.beginResetModel()
        self._build()
        self.endResetModel()

    def _project_replaced(self) -> None:
        self._status.clear()
        self._starts, self._clips = {}, ()
        self.reset()

    def _cast_changed(self) -> None:
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(Col) - 1))

    def _line_changed(self, line_id: str) -> None:
        row = self._row_of.get(line_id)
        if row is None:
            self.reset()
            return
        line = self.doc.project.line(line_id)
        if line.scene is not None and self.scene_of_row(row) != line.scene:
            self.reset()  # moved to another scene
            return
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(Col) - 1))

    def scene_of_row(self, row: int) -> str | None:
        for kind, key in reversed(self._rows[: row + 1]):
            if kind == "scene":
                return key
        return None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(Col)

    def line_id_at(self, row: int) -> str | None:
        if 0 <= row < len(self._rows) and self._rows[row][0] == "line":
            return self._rows[row][1]
        return None

    def row_of_line(self, line_id: str) -> int:
        return self._row_of[line_id]

    def is_scene_row(self, row: int) -> bool:
        return 0 <= row < len(self._rows) and self._rows[row][0] == "scene"

    # ---- engine state -------------------------------------------------------
    def set_status(self, statuses: Mapping[str, Any]) -> None:
        """``statuses``: line id -> LineStatus (anything with ``state.name`` and ``error``)."""
        fresh = {lid: (getattr(s.state, "name", str(s.state)), s.error) for lid, s in statuses.items()}
        changed = [lid for lid in set(fresh) | set(self._status) if fresh.get(lid) != self._status.get(lid)]
        old, self._status = self._status, fresh
        rows = [row for row in (self._row_of.get(lid) for lid in changed) if row is not None]
        if not rows:
            return
        # One signal for the span, not one a row: the view re-measures every row's height on each
        # dataChanged (the rows fit their text), so a signal per row cost rows x rows cells per update.
        self.dataChanged.emit(self.index(min(rows), Col.STATUS), self.index(max(rows), Col.STATUS))
        failed = [self._row_of[lid] for lid in changed if lid in self._row_of
                  and "FAILED" in (fresh.get(lid, ("", None))[0], old.get(lid, ("", None))[0])]
        if failed:  # a failure's reason shows in the text column
            self.dataChanged.emit(self.index(min(failed), Col.TEXT), self.index(max(failed), Col.TEXT))

    def status_of(self, line_id: str) -> tuple[str, str | None] | None:
        return self._status.get(line_id)

    def set_layout(self, clips: Sequence[TimedLine]) -> None:
        """Where the lines sound, as the engine laid them out (its SessionState's
        clips; the presenter's estimate until it has some): the time column follows."""
        self._clips = clips
        starts = {c.line_id: c.start for c in clips}
        changed = [lid for lid, s in starts.items() if abs(self._starts.get(lid, -1.0) - s) > 0.05]
        self._starts = starts
        rows = [self._row_of[lid] for lid in changed if lid in self._row_of]
        if rows:
            self.dataChanged.emit(self.index(min(rows), Col.TIME), self.index(max(rows), Col.TIME))

    def start_of(self, line_id: str) -> float | None:
        return self._starts.get(line_id)

    def line_at(self, seconds: float) -> str | None:
        """The line heard at ``seconds`` (the latest to start, where lines overlap); in a pause,
        the line just heard; before the first line, None."""
        started = [c for c in self._clips if c.start <= seconds]
        if not started:
            return None
        sounding = [p for p in started if seconds < p.end]
        if sounding:
            return max(sounding, key=lambda p: p.start).line_id
        return max(started, key=lambda p: p.end).line_id

    def playing_line(self) -> str | None:
        return self._playing

    def set_playing_line(self, line_id: str | None) -> None:
        """Highlight the line under the playhead (None: nothing is playing)."""
        if line_id == self._playing:
            return
        rows = [self._row_of[lid] for lid in (self._playing, line_id) if lid in self._row_of]
        self._playing = line_id if line_id in self._row_of else None
        for row in rows:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(Col) - 1))

    # ---- reading ------------------------------------------------------------
    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(Col):
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[Col(section)].title
            if role == Qt.ItemDataRole.ToolTipRole:
                return COLUMNS[Col(section)].tip
        if orientation == Qt.Orientation.Vertical:
            return self._line_header(self.line_id_at(section), role)
        return None

    def _line_header(self, line_id: str | None, role: int) -> Any:
        """The line's number, with a revision's mark as screenwriters put it in the margin: an
        asterisk in the colour of the revision that last changed the line."""
        revision = self._marks.get(line_id) if line_id is not None else None
        if role == Qt.ItemDataRole.DisplayRole:
            if line_id is None:
                return ""
            return str(self.doc.line_index(line_id) + 1) + (" *" if revision is not None else "")
        if revision is None:
            return None
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(revision.colour))
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"Changed by {revision.name} ({revision.date})"
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if self.is_scene_row(index.row()):
            return base
        if index.column() in (Col.PAUSE, Col.ROLE, Col.NOTE, Col.TEXT):
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        kind, key = self._rows[index.row()]
        if role == SCENE_ROW:
            return kind == "scene"
        if kind == "scene":
            return self._scene_data(key, index.column(), role)
        if role == LINE_ID:
            return key
        line = self._line_of.get(key) or self.doc.project.line(key)
        col = Col(index.column())
        status = self._status.get(key)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            edit = role == Qt.ItemDataRole.EditRole
            if col == Col.STATUS:
                if status is None:
                    return "" if edit else "—"
                return STATES.get(status[0], (status[0].lower(), ""))[0]  # a failure's reason: text column
            if col == Col.TIME:
                start = self._starts.get(key)
                return None if start is None else (start if edit else format_time(start))
            if col == Col.PAUSE:
                return line.pause_before if edit else placement_text(line)
            if col == Col.ROLE:
                return line.role
            if col == Col.NOTE:
                return line.note if edit or not line.note else note_display(line.note)
            if col == Col.TEXT:
                if not edit and status is not None and status[0] == "FAILED" and status[1]:
                    return f"{line.text}\n⚠ {_short(status[1])}"  # where the producer is looking
                return line.text
        if role == Qt.ItemDataRole.BackgroundRole and key == self._playing:
            return QBrush(PLAYING_BACKGROUND)
        if role == Qt.ItemDataRole.DecorationRole and col == Col.STATUS and status is not None:
            state = status[0]
            if state not in self._icons:
                self._icons[state] = _dot(STATES.get(state, ("", "#808080"))[1])
            return self._icons[state]
        if role == Qt.ItemDataRole.ToolTipRole:
            if status is not None and status[0] == "FAILED":
                return f"This line cannot be voiced: {status[1] or 'unknown error'}"
            if status is not None and status[0] == "NO_VOICE":
                return f"Not voiced yet: its {status[1] or 'voice is not installed'}"
            if col == Col.TIME and (line.start is not None or line.overlap or line.with_previous):
                how = ("pinned" if line.start is not None else
                       f"overlaps the previous line by {line.overlap:g} s" if line.overlap else
                       "starts with the previous line")
                return f"Placement: {how}"
            if col == Col.NOTE and line.note:
                return note_tooltip(line.note)
            if col == Col.TEXT and (said := said_as(self.doc.project, line)) is not None:
                return said  # the spoken form ("£20" -> "twenty pounds"), where it differs
            return COLUMNS[col].tip
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == Col.ROLE:
                try:
                    return QBrush(QColor(self.doc.project.role(line.role).colour))
                except KeyError:
                    return QBrush(QColor("#d03030"))
            if col == Col.NOTE:  # performed in the direction colour, a note kept as written in grey
                performed = any(d.performed for d in note_directions(line.note))
                return QBrush(PERFORMED if performed else UNPERFORMED)
            if col == Col.TEXT and status is not None and status[0] == "FAILED":
                return QBrush(QColor("#d03030"))
        if role == Qt.ItemDataRole.FontRole:
            return COLUMNS[col].font()  # bold speakers, italic deliveries (app/script/columns.py)
        return None

    def _scene_data(self, scene_id: str, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and column == 0:
            heading = next((s.heading for s in self.doc.project.scenes if s.id == scene_id), "")
            shown = f"{scene_id}  {heading}".strip() if heading else scene_id
            return f"{shown}    \u2014 {room_label(self.doc, scene_id)}"
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            font.setCapitalization(QFont.Capitalization.AllUppercase)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            notes = next((s.notes for s in self.doc.project.scenes if s.id == scene_id), [])
            return "\n".join(notes) or None
        return None

    # ---- writing (through undo commands) --------------------------------------
    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        line_id = self.line_id_at(index.row()) if index.isValid() else None
        if line_id is None:
            return False
        line = self.doc.project.line(line_id)
        col = Col(index.column())
        if role == TYPING_ROLE and col == Col.TEXT:
            text, session = value
            if text != line.text and not self._refused(line, text=text):
                self.doc.undo.push(SetLineField(self.doc, line_id, "text", text, merge_key=("text", session)))
            return True
        if role != Qt.ItemDataRole.EditRole:
            return False
        note, words = split_delivery_note(str(value)) if col == Col.TEXT else ("", "")
        if note and words:  # "(out of breath) Wait for me!": how to say it, never spoken or captioned
            note = line.note if note in line.note.split("; ") else join_notes(line.note, note)
            if self._refused(line, text=words, note=note):
                return False
            self.doc.undo.push(SetLineFields(self.doc, line_id, {"text": words, "note": note}, "Edit line"))
            return True
        field, new = {Col.TEXT: ("text", value), Col.NOTE: ("note", str(value).strip().strip("()")),
                      Col.ROLE: ("role", value), Col.PAUSE: ("pause_before", value)}.get(col, (None, None))
        if field is None:
            return False
        if field == "pause_before":
            try:
                new = min(600.0, max(0.0, float(value)))
            except (TypeError, ValueError):
                return False
            if new != line.pause_before and self._refused(line, pause_before=new):
                return False
            if line.start is not None or line.overlap or line.with_previous:
                # A typed pause places the line after the previous one again: unpin it.
                values = {"pause_before": new, "start": None, "overlap": 0.0, "with_previous": False}
                self.doc.undo.push(SetLineFields(self.doc, line_id, values, "Change pause"))
                return True
        if field == "role" and new not in self.doc.project.role_names():
            return False
        if getattr(line, field) == new or (field in ("text", "note") and self._refused(line, **{field: new})):
            return False
        self.doc.undo.push(SetLineField(self.doc, line_id, field, new))
        return True

    def _refused(self, line: Line, **changes: Any) -> bool:
        """Whether the edit would take the line (or the production) past its bounds; says why."""
        problem = edited_overstep(self.doc.project, replace(line, **changes))
        if problem is not None:
            self.refused.emit(f"Edit not taken: {problem}")
        return problem is not None


def _short(error: str, limit: int = 90) -> str:
    """The first clause of an engine error (the tooltip has all of it)."""
    head = error.split(" (", 1)[0]
    return head if len(head) <= limit else head[: limit - 1] + "…"
