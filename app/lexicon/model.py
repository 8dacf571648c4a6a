"""The lexicon panel's table: every entry (the project's, then each role's)
with what is wrong with it, if anything.

A table model rather than a widget of items: a production's lexicon can
hold 150,000 entries, and a view asks only for the rows it shows. Rows are
plain tuples rebuilt when a lexicon is replaced; an entry's problem is
worked out when its row is first drawn. GUI thread only.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from engine.project.model import Project
from engine.synth.lexicon_check import entry_problem

COLUMNS = ("Word", "Say", "Scope", "Problem")
PROJECT_SCOPE = "Project"
_BAD = QColor("#b3261e")

Row = tuple[str, str, str | None]  # word, say, role (None: the project's)
_Index = QModelIndex | QPersistentModelIndex


class LexiconModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []
        self._problems: dict[Row, str | None] = {}

    def reload(self, project: Project, needle: str = "") -> None:
        """Every entry of ``project`` whose word or say contains ``needle`` (any case)."""
        rows: list[Row] = [(w, s, None) for w, s in project.lexicon.items()]
        for role in project.cast:
            rows.extend((w, s, role.name) for w, s in role.lexicon.items())
        if needle:
            n = needle.lower()
            rows = [r for r in rows if n in r[0].lower() or n in r[1].lower()]
        self.beginResetModel()
        self.rows = rows
        self._problems = {}
        self.endResetModel()

    def problem(self, row: Row) -> str | None:
        if row not in self._problems:
            self._problems[row] = entry_problem(row[0], row[1])
        return self._problems[row]

    def find(self, word: str, role: str | None) -> int:
        return next((i for i, r in enumerate(self.rows) if r[0] == word and r[2] == role), -1)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt override
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt override
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt override
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if col == 3:
                return self.problem(row) or ("" if role == Qt.ItemDataRole.DisplayRole else None)
            return (row[0], row[1], row[2] or PROJECT_SCOPE)[col]
        if role == Qt.ItemDataRole.ForegroundRole and self.problem(row) is not None:
            return QBrush(_BAD)
        return None
