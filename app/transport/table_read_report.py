"""The table read's report in the studio: the run's figures, each missed line by its
number in the script and why, and the per-line accuracy table (words expected and
heard, accuracy, missed and extra words), as ``radioplay rehearse --report`` writes it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from engine.rehearse.listener import GIVE_UP_S, NO_SPEECH_S
from engine.rehearse.report import Report

ACCURACY_COLUMNS = ("Line", "Role", "Words", "Heard", "Accuracy", "Missed words", "Extra words")


def missed_lines(report: Report, order: list[str]) -> list[str]:
    """Each live line the read gave up on, by its number in the script and why:
    ``line 12 (MAGGIE): nothing heard for 20 s`` or ``... 3.2 s heard, its end not recognized``."""
    number = {line_id: n for n, line_id in enumerate(order, start=1)}
    out = []
    for r in report.results:
        if not r.live or r.outcome != "missed":
            continue
        where = f"line {number[r.line_id]}" if r.line_id in number else f"line {r.line_id}"
        if r.pass_no > 1:
            where += f" (pass {r.pass_no})"
        why = (f"nothing heard for {NO_SPEECH_S:.0f} s" if r.speech_s is None else
               f"{r.speech_s:.1f} s heard, its last words not recognized (moved on after {GIVE_UP_S:.0f} s of silence)")
        out.append(f"{where} ({r.role}): {why}")
    return out


def report_text(report: Report, order: list[str], takes: int) -> str:
    f = report.figures()
    gaps = (f"{f['gap_p50_ms']:.0f} ms / {f['gap_p95_ms']:.0f} ms" if f["gap_p50_ms"] is not None else "—")
    accuracy = f"{f['accuracy'] * 100:.0f} %" if f["accuracy"] is not None else "—"
    return (f"Lines read live: {f['live_lines']} of {f['lines']} (missed {f['missed']})   "
            f"Words heard: {accuracy}\n"
            f"Reply gap p50 / p95: {gaps}\n"
            f"False starts: {f['false_starts']}   Manual advances: {f['manual_advances']}   "
            f"Recorded takes: {takes}"
            + "".join(f"\nMissed {text}" for text in missed_lines(report, order)))


class AccuracyTable(QTableWidget):
    """One row per line read live (per pass of a looped section)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(ACCURACY_COLUMNS), parent)
        self.setObjectName("tableReadAccuracy")
        self.setHorizontalHeaderLabels(list(ACCURACY_COLUMNS))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        for column in range(5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(6, QHeaderView.ResizeMode.Stretch)

    def show_report(self, report: Report, order: list[str]) -> None:
        number = {line_id: n for n, line_id in enumerate(order, start=1)}
        rows = [r for r in report.results if r.live]
        self.setRowCount(len(rows))
        for row, r in enumerate(rows):
            where = str(number.get(r.line_id, r.line_id)) + (f" ({r.pass_no})" if r.pass_no > 1 else "")
            accuracy = f"{r.accuracy * 100:.0f} %" if r.accuracy is not None else "—"
            if r.outcome == "missed":
                accuracy += " missed"
            cells = (where, r.role, str(r.expected_count), str(r.heard_count), accuracy,
                     " ".join(r.missed_words) or "—", " ".join(r.extra_words) or "—")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column in (2, 3, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 5 or column == 6:
                    item.setToolTip(f"Expected: {r.expected or '—'}\nHeard: {r.heard or '—'}")
                self.setItem(row, column, item)
