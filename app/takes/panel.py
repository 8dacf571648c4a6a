"""The Takes panel: the current line's takes, to hear, compare, choose and lock.

A take is a seed (engine.project.takes): "New take" adds one and chooses it,
so the session voices it at audition priority and the producer hears it in
place; "Play" hears the selected take without choosing it; "A/B" plays the
chosen take and the selected one in turn on each press; "Choose" makes the
selected take the one that plays and exports; "Lock" keeps the chosen take
while the role's voice settings change. Every change is one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.document.commands import SetLineFields
from app.takes.access import TakesStudio
from engine.project.model import Line
from engine.project.takes import locked, takes_of, unlocked, with_new_take, with_take


class TakesPanel(QWidget):
    def __init__(self, window: TakesStudio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("takesPanel")
        self.window_ = window
        self.line_id: str | None = None
        self._ab_next = 0
        self.title = QLabel("No line selected", self)
        self.list = QListWidget(self)
        self.list.setObjectName("takesList")
        self.play_button = QPushButton("Play", self)
        self.ab_button = QPushButton("A/B", self)
        self.new_button = QPushButton("New take", self)
        self.choose_button = QPushButton("Choose", self)
        self.lock_button = QPushButton("Lock", self)
        self.lock_button.setCheckable(True)
        self.play_button.setToolTip("Hear the selected take without choosing it")
        self.ab_button.setToolTip("Hear the chosen take, then the selected one, in turn on each press")
        self.new_button.setToolTip("Make another take of this line and choose it")
        self.choose_button.setToolTip("The selected take plays and exports")
        self.lock_button.setToolTip("Keep the chosen take while the role's voice settings change")
        buttons = QHBoxLayout()
        for button in (self.play_button, self.ab_button, self.new_button, self.choose_button, self.lock_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        self.play_button.clicked.connect(lambda: self.play(self.selected_take()))
        self.ab_button.clicked.connect(self.ab)
        self.new_button.clicked.connect(self.new_take)
        self.choose_button.clicked.connect(lambda: self.choose(self.selected_take()))
        self.lock_button.clicked.connect(self.set_locked)
        self.list.itemDoubleClicked.connect(lambda item: self.play(int(item.data(Qt.ItemDataRole.UserRole))))
        self.show_line(None)

    # ---- what is shown ---------------------------------------------------------------
    def follow_current(self, *_: object) -> None:
        """The script's current line changed."""
        self.show_line(self.window_.script.current_line_id())

    def line_changed(self, line_id: str) -> None:
        if line_id == self.line_id:
            self.refresh()

    def show_line(self, line_id: str | None) -> None:
        self.line_id = line_id
        self.refresh()

    def refresh(self) -> None:
        line = self._line()
        self.list.clear()
        for button in (self.play_button, self.ab_button, self.new_button, self.choose_button, self.lock_button):
            button.setEnabled(line is not None)
        if line is None:
            self.title.setText("No line selected")
            return
        seeds = takes_of(line)
        state = "locked" if line.locked is not None else "unlocked"
        self.title.setText(f"{line.id} ({line.role}): take {seeds.index(line.take) + 1} of {len(seeds)}, {state}")
        for number, seed in enumerate(seeds, start=1):
            mark = "  (chosen)" if seed == line.take else ""
            item = QListWidgetItem(f"Take {number}  seed {seed}{mark}")
            item.setData(Qt.ItemDataRole.UserRole, seed)
            self.list.addItem(item)
            if seed == line.take:
                self.list.setCurrentItem(item)
        self.lock_button.setChecked(line.locked is not None)
        self.new_button.setEnabled(line.locked is None)  # unlock to re-voice
        self.choose_button.setEnabled(line.locked is None)

    def selected_take(self) -> int:
        item = self.list.currentItem()
        line = self._line()
        if item is None:
            return line.take if line is not None else 0
        return int(item.data(Qt.ItemDataRole.UserRole))

    # ---- commands ----------------------------------------------------------------------
    def play(self, seed: int) -> None:
        if self.line_id is not None and (session := self.window_.session()) is not None:
            session.audition_take(self.line_id, seed)

    def ab(self) -> None:
        line = self._line()
        if line is None:
            return
        seed = line.take if self._ab_next == 0 else self.selected_take()
        self._ab_next ^= 1
        self.play(seed)

    def new_take(self) -> None:
        line = self._line()
        if line is None or line.locked is not None:
            return
        made = with_new_take(line)
        self._set({"takes": made.takes, "take": made.take}, "New take")

    def choose(self, seed: int) -> None:
        line = self._line()
        if line is None or line.locked is not None or seed == line.take:
            return
        chosen = with_take(line, seed)
        self._set({"takes": chosen.takes, "take": chosen.take}, "Choose take")

    def set_locked(self, lock: bool) -> None:
        line = self._line()
        if line is None:
            return
        changed = locked(self.window_.doc.project, line) if lock else unlocked(line)
        self._set({"locked": changed.locked}, "Lock take" if lock else "Unlock take")

    def _set(self, values: dict[str, object], text: str) -> None:
        assert self.line_id is not None
        self.window_.doc.undo.push(SetLineFields(self.window_.doc, self.line_id, values, text))
        self.refresh()

    def _line(self) -> Line | None:
        if self.line_id is None:
            return None
        try:
            return self.window_.doc.project.line(self.line_id)
        except KeyError:
            return None
