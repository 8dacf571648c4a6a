"""How directions look in the script: the Delivery column's text and tooltip, and
the directions inside a line's words drawn apart from them (grey italic; those
the voice performs in the direction colour). Used by the script model and the
text column's delegate (app/script/spoken_word.py)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCharFormat, QTextLayout

from engine.project.direction import note_directions, parse_line

PERFORMED = QColor("#3a78c2")  # a direction the voice performs
UNPERFORMED = QColor("#909090")  # kept, not performed (outside the vocabulary)
# The same on the selection's highlight colour, where the two above would not show.
PERFORMED_SELECTED = QColor("#d6e8ff")
UNPERFORMED_SELECTED = QColor("#e4e4e4")


def note_display(note: str) -> str:
    """``(very quietly; to Lucy?)``: each term of the note, a ``?`` after one not performed."""
    terms = [d.text + ("" if d.performed else "?") for d in note_directions(note)]
    return f"({'; '.join(terms)})" if terms else ""


def note_tooltip(note: str) -> str:
    directions = note_directions(note)
    performed = [d.label() for d in directions if d.performed and d.kind != "perspective"]
    staged = [d.label() for d in directions if d.kind == "perspective"]
    kept = [d.text for d in directions if not d.performed]
    parts = []
    if performed:
        parts.append("Performed: " + ", ".join(performed))
    if staged:
        parts.append("Staged (the line's perspective, right-click > Perspective): " + ", ".join(staged))
    if kept:
        parts.append("Not performed (not in the vocabulary; never spoken): " + ", ".join(kept))
    return "\n".join(parts) or "Delivery: how the line is said, never spoken (pick one, e.g. whispering)"


def direction_formats(text: str, selected: bool = False) -> list[QTextLayout.FormatRange]:
    """Formats drawing the directions of a line's text apart from its words."""
    performed: dict[tuple[int, int], bool] = {}
    for direction in parse_line(text).directions:  # a group's terms share its span
        span = (direction.start, direction.end)
        performed[span] = performed.get(span, False) or direction.performed
    ranges: list[QTextLayout.FormatRange] = []
    for span, acted in performed.items():
        fmt = QTextCharFormat()
        fmt.setFontItalic(True)
        if selected:
            fmt.setForeground(PERFORMED_SELECTED if acted else UNPERFORMED_SELECTED)
        else:
            fmt.setForeground(PERFORMED if acted else UNPERFORMED)
        item = QTextLayout.FormatRange()
        item.start, item.length, item.format = span[0], span[1] - span[0], fmt
        ranges.append(item)
    return ranges
