"""Latency by origin for the engine monitor: what the listener waited for first.

The scheduler serves requests of several origins (engine.sched.request.Origin). A playback or
audition request is a producer waiting; an export waits for the render; a background
pre-render voices the whole project and waits seconds by design. One percentile over all of
them (or over a role's requests) reads a pre-render's 25 s as a 25 s playback delay, so the
monitor shows each origin apart, in this order, from ``EngineSnapshot.latency_by_origin``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

#: (origin label in the hub, row name, what it means) in the order the monitor shows them.
ORIGINS = (
    ("playback", "Playback", "lines the playhead needed: what you waited for while listening"),
    ("audition", "Audition", "lines you edited or auditioned: what you waited for to hear them"),
    ("service", "HTTP service", "requests of a client of radioplay serve"),
    ("export", "Export", "lines a render needed"),
    ("prerender", "Pre-render", "the rest of the project voiced in the background: no one waits"),
)
LISTENER = ("playback", "audition")
COLUMNS = ("origin", "requests", "median", "p95", "slowest")


def format_ms(ms: float) -> str:
    """A latency with its unit: "85 ms", "1.25 s", "24.6 s"."""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.3g} s"


def listener_summary(by_origin: Mapping[str, Any]) -> str:
    """The monitor's lead: the 95th percentile of what the listener waited for."""
    parts = [f"{label.lower()} wait p95 {format_ms(by_origin[key].p95_ms)}"
             for key, label, _ in ORIGINS if key in LISTENER and key in by_origin]
    if not parts:
        return "no playback waits yet"
    return ", ".join(parts)


class OriginTable(QTableWidget):
    """One row per origin (those seen so far are filled in): requests, median, p95, slowest."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(len(ORIGINS), len(COLUMNS), parent)
        self.setObjectName("latencyByOrigin")
        self.setHorizontalHeaderLabels(["Origin", "Requests", "Median", "p95", "Slowest"])
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setToolTip("End-to-end latency per origin: from the request to its audio, over the last "
                        "2048 requests of each")
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.cells: list[list[QTableWidgetItem]] = []  # [row][column], as shown
        for row, (_, name, meaning) in enumerate(ORIGINS):
            item = QTableWidgetItem(name)
            item.setToolTip(meaning)
            self.setItem(row, 0, item)
            self.cells.append([item])
            for col in range(1, len(COLUMNS)):
                cell = QTableWidgetItem("\u2013")
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(row, col, cell)
                self.cells[row].append(cell)
        self.resizeRowsToContents()

    def show_latency(self, by_origin: Mapping[str, Any]) -> None:
        for row, (key, _, _) in enumerate(ORIGINS):
            stats = by_origin.get(key)
            texts = (("\u2013",) * 4 if stats is None else
                     (str(stats.requests), format_ms(stats.p50_ms), format_ms(stats.p95_ms), format_ms(stats.max_ms)))
            for col, text in enumerate(texts, start=1):
                item = self.cells[row][col]
                if item.text() != text:
                    item.setText(text)

    def row_texts(self, key: str) -> list[str]:
        """The cells of an origin's row, as shown."""
        row = [k for k, _, _ in ORIGINS].index(key)
        return [cell.text() for cell in self.cells[row]]
