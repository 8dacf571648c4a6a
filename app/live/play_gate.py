"""Play, when synthesis cannot keep up: ask first, wait if asked, and never go quiet unsaid.

A producer who presses Play expects to hear the production, not holes. When the play outlook
(engine.sched.cost.playback_outlook, the Session's ``outlook``) says the workers cannot voice
the lines ahead before the playhead reaches them, Play asks first (:class:`PlayPrompt`):

* **Wait, Then Play**: voice the lines ahead, in timeline order, and start by itself once the
  outlook says playback will not catch up with synthesis (the status bar counts down);
* **Pre-render, Then Play**: voice every line not voiced yet, then start;
* **Play Anyway**: start now; lines reached before they are voiced will be late.

While playing, a line the playhead reaches before it is voiced (a *late line*: the engine
starts it where the playhead is once it arrives, with silence until then) is named in the
status bar, with what to do about it. docs/user/studio.md says this for the producer.

A line that cannot be voiced (its synthesis failed; any state ``LineState.unvoiceable``
names) is never waited for: waiting would never end. Play says it will be silent, by
line and reason, and the transport counts it apart from the late lines.

GUI thread only: :meth:`PlayGate.watch` runs on the presenter's poll and never waits.
"""

from __future__ import annotations

from enum import Enum

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox, QWidget

from app.live.access import LiveStudio
from app.live.engine_link import EngineLink
from app.live.outlook import CHECK_EVERY
from engine.sched.cost import Outlook
from engine.session import ClipView, SessionState


class Waiting(Enum):
    NO = "no"
    ENOUGH = "enough"  # until the outlook keeps up from the playhead
    EVERYTHING = "everything"  # until every line is voiced


class PlayPrompt(QMessageBox):
    """What Play asks when synthesis cannot keep up (window-modal, opened, never exec'd)."""

    def __init__(self, outlook: Outlook, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("playPrompt")
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle("Synthesis cannot keep up")
        self.setText(f"Played now, playback would reach lines before they are voiced (up to "
                     f"{outlook.prerender_s:.0f} s of waiting).")
        silent = (f" {outlook.silent} line{'s' if outlook.silent != 1 else ''} cannot be voiced and will "
                  "be silent; no choice waits for them.") if outlook.silent else ""
        self.setInformativeText(outlook.describe().capitalize() + "." + silent)
        self.wait_button = self.addButton("Wait, Then Play", QMessageBox.ButtonRole.AcceptRole)
        self.prerender_button = self.addButton("Pre-render, Then Play", QMessageBox.ButtonRole.AcceptRole)
        self.anyway_button = self.addButton("Play Anyway", QMessageBox.ButtonRole.DestructiveRole)
        self.addButton(QMessageBox.StandardButton.Cancel)
        self.setDefaultButton(self.wait_button)


class PlayGate(QObject):
    def __init__(self, window: LiveStudio, engine: EngineLink, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window, self.engine = window, engine
        self.waiting = Waiting.NO
        self.prompt: PlayPrompt | None = None
        self._polls = 0
        self._late_seen = 0
        self._from: float | None = None  # where the play asked for starts (None: the playhead)

    # ---- Play ------------------------------------------------------------------------
    def play(self, from_s: float | None = None) -> None:
        """Play now (from ``from_s``, or the playhead) if synthesis keeps up from there;
        else ask (see the module)."""
        state = self.engine.state()
        start = from_s if from_s is not None else state.transport.position_s if state is not None else 0.0
        outlook = self.engine.outlook(start) if state is not None else None
        if state is not None:
            self._say_silent(state, start)
        if outlook is None or outlook.keeps_up:
            self.cancel()
            self.engine.play(from_s)
            return
        if self.prompt is not None and self.prompt.isVisible():
            return
        self._from = from_s
        prompt = self.prompt = PlayPrompt(outlook, self.window.script.window())
        prompt.buttonClicked.connect(lambda button: self._answered(prompt, button))
        prompt.open()

    def _answered(self, prompt: PlayPrompt, button: object) -> None:
        if button is prompt.wait_button:
            self.wait(Waiting.ENOUGH)
        elif button is prompt.prerender_button:
            self.wait(Waiting.EVERYTHING)
        elif button is prompt.anyway_button:
            self.cancel()
            self.engine.play(self._from)

    def wait(self, until: Waiting) -> None:
        """Voice the lines not voiced yet (those ahead of the playhead first) and play once
        ``until`` holds."""
        state = self.engine.state()
        if state is None:
            return
        position = state.transport.position_s if self._from is None else self._from
        pending = [c for c in state.clips if c.estimated and _coming(state, c)]
        ahead = sorted((c for c in pending if c.end > position), key=lambda c: c.start)
        behind = [c for c in pending if c.end <= position] if until is Waiting.EVERYTHING else []
        self.waiting = until
        self.engine.prefetch([c.line_id for c in ahead + behind])
        self._polls = 0
        self.window.statusBar().showMessage("Voicing the lines ahead before playing\u2026", 4000)

    def cancel(self) -> None:
        """No longer start by itself (Stop, a seek, a new project)."""
        if self.waiting is not Waiting.NO:
            self.waiting = Waiting.NO
            self.window.statusBar().clearMessage()

    # ---- the presenter's poll ------------------------------------------------------------
    def watch(self, state: SessionState) -> None:
        if self.waiting is not Waiting.NO:
            self._start_when_ready(state)
        late = state.transport.late_lines
        if late < self._late_seen:  # a new pass or project: counting starts again
            self._late_seen = late
        elif late > self._late_seen:
            self._late_seen = late
            self._say_late()

    def _start_when_ready(self, state: SessionState) -> None:
        if self.waiting is Waiting.EVERYTHING:
            left = [s for s in state.line_status.values() if s.state.coming]  # a failed line never comes
            ready = not left
            text = f"Pre-rendering before playing: {len(left)} lines to voice"
        else:
            self._polls += 1
            if self._polls % CHECK_EVERY != 1:
                return
            outlook = self.engine.outlook(state.transport.position_s if self._from is None else self._from)
            ready = outlook is None or outlook.keeps_up
            text = (f"Voicing ahead before playing: starts in ~{outlook.prerender_s:.0f} s"
                    if outlook is not None else "")
        if ready:
            self.waiting = Waiting.NO
            self.window.statusBar().showMessage("Enough is voiced: playing", 4000)
            self.engine.play(self._from)
            self._say_silent(state, state.transport.position_s if self._from is None else self._from)
        elif self.window.statusBar().currentMessage() != text:
            self.window.statusBar().showMessage(text)

    def _say_silent(self, state: SessionState, from_s: float) -> None:
        """Name the lines ahead that cannot be voiced: they will be silent, not late (said when
        Play is pressed, and again when a wait ends in playing)."""
        ahead = {c.line_id for c in state.clips if c.end > from_s}
        silent = [line_id for line_id in state.unvoiceable if line_id in ahead]
        if not silent:
            return
        first = silent[0] if len(silent) == 1 else min(silent, key=self._number)
        status = state.line_status[first]
        more = f" and {len(silent) - 1} more" if len(silent) > 1 else ""
        who = self._who(first)
        self.window.statusBar().showMessage(
            f"\u26a0 {who[:1].upper()}{who[1:]}{more} cannot be voiced ({status.state.value}: {status.error}): "
            "silent where it is, not waited for. Fix its text or voice.", 15000)

    def _number(self, line_id: str) -> int:
        lines = self.window.doc.project.lines
        return next((i for i, line in enumerate(lines, start=1) if line.id == line_id), len(lines) + 1)

    def _who(self, line_id: str) -> str:
        lines = self.window.doc.project.lines
        number = self._number(line_id)
        return f"line {number} ({lines[number - 1].role})" if number <= len(lines) else f"line {line_id}"

    def _say_late(self) -> None:
        late = self.engine.late_lines()
        if not late:
            return
        self.window.statusBar().showMessage(
            f"\u26a0 Playback reached {self._who(late[-1])} before it was voiced: silence until it arrives. "
            "Stop, then Play and choose Wait to hear it whole.", 15000)


def _coming(state: SessionState, clip: ClipView) -> bool:
    """The clip's line is on its way (not failed, not blank): something to wait for."""
    status = state.line_status.get(clip.line_id)
    return status is None or status.state.coming
