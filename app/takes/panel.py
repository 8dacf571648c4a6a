"""The Takes panel: the current line's takes, to hear, compare, choose and lock.

A take is a seed (engine.project.takes): "New take" adds one and chooses it,
so the session voices it at audition priority and the producer hears it in
place; "Play" hears the selected take without choosing it; "A/B" plays two
takes in turn, one on each press; "Choose" makes the selected take the one
that plays and exports; "Lock" keeps the chosen take while the role's voice
settings change. "Direct by Voice…" records the producer reading the line (or takes a
WAV) and makes a take in the role's voice with the read's timing and intonation
(app/takes/direct_dialog.py); such a take says so in the list. Every change is one
undo step.

A/B compares the chosen take with the selected one, or, when the chosen take is
the one selected (as right after "New take"), with the take chosen before it:
two different takes, A the earlier in the list. Each is heard as playback plays
the line (levelled, staged, through its lane and the master: Session.audition_take),
so the comparison is of the takes, not of two paths. The panel says which is
playing ("A: take 2" / "B: take 3"), from what the engine reports it plays.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer
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
from engine.project.takes import locked, read_take_of, takes_of, unlocked, with_new_take, with_take

AUDITION_WAIT_S = 120.0  # how long the panel says a take is being voiced before it lets go
_BASE_TEXT = Qt.ItemDataRole.UserRole + 1  # an item's text without the A/B marks


class TakesPanel(QWidget):
    def __init__(self, window: TakesStudio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("takesPanel")
        self.window_ = window
        self.line_id: str | None = None
        self._ab_next = 0
        self._ab_pair: tuple[int, int] | None = None  # the two takes A/B compares now
        self._previous: tuple[str, int] | None = None  # (line, take) chosen before the last New take / Choose
        # What was asked to be heard: (line, seed, "A"/"B"/""), whether the engine played it yet, and until when
        # to wait for it; the poll follows the engine's report of the audition it plays.
        self._asked: tuple[str, int, str] | None = None
        self._heard_once = False
        self._give_up_at = 0.0
        self._poll = QTimer(self)
        self._poll.setInterval(100)
        self._poll.timeout.connect(self._follow_audition)
        self.title = QLabel("No line selected", self)
        self.list = QListWidget(self)
        self.list.setObjectName("takesList")
        self.play_button = QPushButton("Play", self)
        self.ab_button = QPushButton("A/B", self)
        self.new_button = QPushButton("New take", self)
        self.choose_button = QPushButton("Choose", self)
        self.lock_button = QPushButton("Lock", self)
        self.lock_button.setCheckable(True)
        self.direct_button = QPushButton("Direct by Voice\u2026", self)
        self.direct_button.setObjectName("directByVoice")
        self.direct_button.setToolTip("Read the line aloud (or pick a WAV of it): a new take in the role's voice "
                                      "with your timing and intonation")
        self.direct_dialog: QWidget | None = None
        self.play_button.setToolTip("Hear the selected take without choosing it")
        self.ab_button.setToolTip("Hear two takes in turn, one on each press: the chosen take and the selected one "
                                  "(after New take: the new take and the one chosen before)")
        self.ab_label = QLabel("", self)
        self.ab_label.setObjectName("takesPlaying")
        self.new_button.setToolTip("Make another take of this line and choose it")
        self.choose_button.setToolTip("The selected take plays and exports")
        self.lock_button.setToolTip("Keep the chosen take while the role's voice settings change")
        buttons = QHBoxLayout()
        for button in (self.play_button, self.ab_button, self.new_button, self.choose_button, self.lock_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.list)
        layout.addWidget(self.ab_label)
        layout.addLayout(buttons)
        layout.addWidget(self.direct_button)
        self.play_button.clicked.connect(lambda: self.play(self.selected_take()))
        self.ab_button.clicked.connect(self.ab)
        self.new_button.clicked.connect(self.new_take)
        self.choose_button.clicked.connect(lambda: self.choose(self.selected_take()))
        self.lock_button.clicked.connect(self.set_locked)
        self.direct_button.clicked.connect(self.direct_by_voice)
        self.list.itemDoubleClicked.connect(lambda item: self.play(int(item.data(Qt.ItemDataRole.UserRole))))
        self.list.currentItemChanged.connect(lambda *_: self._show_pair())
        self.show_line(None)

    # ---- what is shown ---------------------------------------------------------------
    def follow_current(self, *_: object) -> None:
        """The script's current line changed."""
        self.show_line(self.window_.script.current_line_id())

    def line_changed(self, line_id: str) -> None:
        if line_id == self.line_id:
            self.refresh()

    def show_line(self, line_id: str | None) -> None:
        if line_id != self.line_id:
            self._asked = None
            self._poll.stop()
        self.line_id = line_id
        self.refresh()

    def refresh(self) -> None:
        line = self._line()
        self.list.clear()
        for button in (self.play_button, self.ab_button, self.new_button, self.choose_button, self.lock_button,
                       self.direct_button):
            button.setEnabled(line is not None)
        if line is None:
            self.title.setText("No line selected")
            self.ab_label.clear()
            return
        seeds = takes_of(line)
        state = "locked" if line.locked is not None else "unlocked"
        self.title.setText(f"{line.id} ({line.role}): take {seeds.index(line.take) + 1} of {len(seeds)}, {state}")
        for number, seed in enumerate(seeds, start=1):
            mark = "  (chosen)" if seed == line.take else ""
            read = read_take_of(line, seed)
            how = "  by voice" if read is not None else ""
            item = QListWidgetItem(f"Take {number}  seed {seed}{how}{mark}")
            if read is not None:
                item.setToolTip(f"Directed by your read ({read.what}): {read.read}")
            item.setData(Qt.ItemDataRole.UserRole, seed)
            item.setData(_BASE_TEXT, item.text())
            self.list.addItem(item)
            if seed == line.take:
                self.list.setCurrentItem(item)
        self.lock_button.setChecked(line.locked is not None)
        self.new_button.setEnabled(line.locked is None)  # unlock to re-voice
        self.direct_button.setEnabled(line.locked is None)
        self.choose_button.setEnabled(line.locked is None)
        self._show_pair()

    def selected_take(self) -> int:
        item = self.list.currentItem()
        line = self._line()
        if item is None:
            return line.take if line is not None else 0
        return int(item.data(Qt.ItemDataRole.UserRole))

    # ---- commands ----------------------------------------------------------------------
    def play(self, seed: int) -> None:
        self._hear(seed, "")

    def ab_pair(self) -> tuple[int, int] | None:
        """The two takes A/B compares (A first in the list), or None with one take."""
        line = self._line()
        if line is None:
            return None
        seeds = takes_of(line)
        if len(seeds) < 2:
            return None
        chosen, selected = line.take, self.selected_take()
        if selected != chosen and selected in seeds:
            other = selected
        elif self._previous is not None and self._previous[0] == line.id and self._previous[1] in seeds \
                and self._previous[1] != chosen:
            other = self._previous[1]
        else:  # the take beside the chosen one
            at = seeds.index(chosen)
            other = seeds[at - 1] if at > 0 else seeds[1]
        a, b = sorted((chosen, other), key=seeds.index)
        return a, b

    def take_number(self, seed: int) -> int:
        line = self._line()
        return takes_of(line).index(seed) + 1 if line is not None and seed in takes_of(line) else 0

    def ab(self) -> None:
        pair = self.ab_pair()
        if pair is None:
            self.ab_label.setText("Only one take: make a new take to compare")
            return
        if pair != self._ab_pair:  # another comparison: it starts again at A
            self._ab_pair, self._ab_next = pair, 0
        letter = "AB"[self._ab_next]
        self._ab_next ^= 1
        self._hear(pair[0 if letter == "A" else 1], letter)

    def _show_pair(self) -> None:
        """What A/B compares, until something is asked to be heard."""
        if self._asked is not None:
            return
        pair = self.ab_pair()
        self.ab_button.setEnabled(pair is not None)
        self.ab_label.setText(f"A/B: take {self.take_number(pair[0])} and take {self.take_number(pair[1])}"
                              if pair is not None else "")
        self._mark_items(None)

    def _mark_items(self, playing: int | None) -> None:
        """Each take of the A/B pair marked A or B in the list, the one playing with \u25b6."""
        pair = self.ab_pair()
        for row in range(self.list.count()):
            item = self.list.item(row)
            seed = int(item.data(Qt.ItemDataRole.UserRole))
            letter = "AB"[pair.index(seed)] if pair is not None and seed in pair else ""
            text = str(item.data(_BASE_TEXT)) + (f"  [{letter}]" if letter else "") + (
                "  \u25b6" if seed == playing else "")
            if item.text() != text:
                item.setText(text)

    def _hear(self, seed: int, letter: str) -> None:
        if self.line_id is None or (session := self.window_.session()) is None:
            return
        self._asked, self._heard_once = (self.line_id, seed, letter), False
        self._give_up_at = time.monotonic() + AUDITION_WAIT_S
        session.audition_take(self.line_id, seed)
        self._follow_audition()
        self._poll.start()

    def playing_text(self) -> str:
        """Which take the engine plays now ("A: take 2"), or what it is making to play."""
        return self.ab_label.text()

    def _follow_audition(self) -> None:
        """Say which take plays, from the engine's report of the audition it plays."""
        asked = self._asked
        session = self.window_.session()
        if asked is None or session is None:
            self._poll.stop()
            return
        line_id, seed, letter = asked
        name = f"{letter}: take {self.take_number(seed)}" if letter else f"take {self.take_number(seed)}"
        playing = session.transport().audition == (line_id, seed)
        if playing:
            self._heard_once = True
            text = f"\u25b6 Playing {name}"
            self._mark_items(seed)
        elif not self._heard_once and time.monotonic() < self._give_up_at:
            text = f"{name}: voicing\u2026"
        else:  # played to its end (or never came): back to what A/B compares
            self._asked = None
            self._poll.stop()
            self._show_pair()
            return
        if self.ab_label.text() != text:
            self.ab_label.setText(text)

    def direct_by_voice(self) -> QWidget | None:
        """The Direct by Voice dialog for this line; its take, once made, is heard at once."""
        from app.takes.direct_dialog import direct_by_voice

        line = self._line()
        if line is None or line.locked is not None:
            return None
        previous = (line.id, line.take)
        dialog = direct_by_voice(self.window_, line.id, self)

        def made() -> None:
            if dialog.made is not None:
                self._previous = previous  # A/B compares the directed take with the one chosen before
                self.refresh()
                self.play(dialog.made.seed)

        dialog.accepted.connect(made)
        self.direct_dialog = dialog
        return dialog

    def new_take(self) -> None:
        line = self._line()
        if line is None or line.locked is not None:
            return
        made = with_new_take(line)
        self._previous = (line.id, line.take)  # A/B compares the new take with this one
        self._set({"takes": made.takes, "take": made.take}, "New take")

    def choose(self, seed: int) -> None:
        line = self._line()
        if line is None or line.locked is not None or seed == line.take:
            return
        chosen = with_take(line, seed)
        self._previous = (line.id, line.take)
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
