"""The script table's columns, declared once: title, tooltip, how each is drawn and how wide.

The model reads the titles, tips and cell fonts from :data:`COLUMNS`; the editor sizes the
header from it (:func:`fit_columns`) and the row heights ask it which cells wrap. The narrow
columns are as wide as the widest text they show whole (a state label, a time, a delivery, the
longest role name), measured with the view's own style, so the Line column, the one that
stretches, gets every other pixel: the script is for reading and writing lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from PySide6.QtCore import QSize
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QStyle, QStyleOptionViewItem, QTableView

from engine.project.deliveries import delivery_names


class Col(IntEnum):
    STATUS = 0
    TIME = 1
    PAUSE = 2
    ROLE = 3
    NOTE = 4
    TEXT = 5


# Engine line states (engine.session.LineState names) -> the Status column's label and dot colour.
STATES = {
    "READY": ("ready", "#3cb44b"),
    "QUEUED": ("queued", "#9a9a9a"),
    "SYNTHESIZING": ("voicing…", "#f5a623"),
    "FAILED": ("failed", "#d03030"),
    "MISSING": ("not voiced", "#c8c8c8"),
    "EMPTY": ("empty", "#e0e0e0"),
    # Not a failure: the voice is to be installed (the tooltip says how). Short, as the column
    # is as wide as its longest label.
    "NO_VOICE": ("no voice", "#e8a33d"),
}
# A role name longer than this many average characters wraps rather than widening the column.
ROLE_MAX_CHARS = 16


@dataclass(frozen=True)
class Column:
    title: str
    tip: str
    samples: tuple[str, ...] = ()  # what the column shows whole on one line (a column that wraps: its
    # longest word, so a wrapped text is never cut mid-word); its width is the widest
    wraps: bool = False  # a longer text wraps onto more lines and the row grows
    icon: bool = False  # its cells carry the status dot
    bold: bool = False
    italic: bool = False
    stretch: bool = False  # takes the width the others leave

    def font(self, base: QFont | None = None) -> QFont | None:
        """The cells' font where it differs from the view's (None: the view's own)."""
        if not (self.bold or self.italic):
            return None
        font = QFont(base) if base is not None else QFont()
        font.setBold(self.bold)
        font.setItalic(self.italic)
        return font


COLUMNS: dict[Col, Column] = {
    Col.STATUS: Column(
        "Status", "Ready (voiced and cached), queued, synthesizing, empty (no text yet), no voice (its voice is "
        "not installed: hover for how to get it), or failed (hover for the reason)",
        samples=tuple(label for label, _ in STATES.values()), icon=True),
    Col.TIME: Column("Time", "Where the line starts on the timeline (estimated until it is voiced)",
                     samples=("00:00.0",)),
    Col.PAUSE: Column(
        "Pause", "Extra silence before the line, in seconds; or how the line is placed: an overlap with the "
        "previous line or a pinned start time (made by dragging its clip). Typing a pause unpins it",
        samples=("-0.25 s", "overlap", "previous"), wraps=True),  # "with previous +0.5 s" wraps at a word
    # Its samples are the cast's names (fit_columns).
    Col.ROLE: Column("Role", "Speaker: type a few letters of a cast name", wraps=True, bold=True),
    Col.NOTE: Column(
        "Delivery", "Delivery: how the line is said (never spoken): pick a direction the voice performs, "
        "e.g. whispering", samples=tuple(f"({name})" for name in delivery_names()), wraps=True, italic=True),
    Col.TEXT: Column(
        "Line", "What is said, wrapped to the column. Enter commits, Escape puts the text back, Tab goes on "
        "to the next cell; Ctrl+Enter adds the next line", wraps=True, stretch=True),
}
WRAPPING = frozenset(col for col, column in COLUMNS.items() if column.wraps)


def fit_columns(view: QTableView, role_names: Iterable[str]) -> None:
    """Size the narrow columns to what they show and let the Line column stretch; each stays
    draggable (Interactive) for a producer who wants it otherwise."""
    header = view.horizontalHeader()
    for col, column in COLUMNS.items():
        if column.stretch:
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
            continue
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        view.setColumnWidth(col, column_width(view, col, role_names))


def fit_role_column(view: QTableView, role_names: Iterable[str]) -> None:
    """The Role column after the cast changed: as wide as its longest name."""
    view.setColumnWidth(Col.ROLE, column_width(view, Col.ROLE, role_names))


def column_width(view: QTableView, col: Col, role_names: Iterable[str] = ()) -> int:
    column = COLUMNS[col]
    font = column.font(view.font()) or view.font()
    samples = column.samples if col != Col.ROLE else tuple(role_names)
    widest = max((_cell_width(view, text, font, column.icon) for text in samples), default=0)
    if col == Col.ROLE:
        widest = min(widest, QFontMetrics(font).averageCharWidth() * ROLE_MAX_CHARS)
    return max(widest, view.horizontalHeader().sectionSizeHint(col))


def _cell_width(view: QTableView, text: str, font: QFont, icon: bool) -> int:
    """How wide a cell must be to show ``text`` on one line, as the view's style lays an item out."""
    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    option.font = font
    option.fontMetrics = QFontMetrics(font)
    option.text = text
    features = QStyleOptionViewItem.ViewItemFeature.HasDisplay
    if icon:
        features |= QStyleOptionViewItem.ViewItemFeature.HasDecoration
    option.features = features
    style = view.style()
    return style.sizeFromContents(QStyle.ContentsType.CT_ItemViewItem, option, QSize(), view).width()
