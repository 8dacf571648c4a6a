"""EnginePresenter: turns the Session's state snapshots into view updates.

One GUI QTimer (``POLL_HZ``) reads ``EngineLink.state()`` (one
:class:`engine.session.SessionState`, built from latest-value slots:
no queue, no waiting) and draws what changed: line states in the script,
clips on the timeline, the playhead and meters, the monitor's heatmaps and
the engine's last error. Until the engine has laid the lines out, the
timeline shows the estimated layout of the document. GUI thread only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer

from app.live import draw
from app.live.access import LiveStudio
from app.live.engine_link import EngineLink
from app.live.outlook import CHECK_EVERY
from app.live.play_gate import PlayGate
from app.script.columns import Col
from app.script.spoken_word import SpokenWord
from engine.mixdown.mixplan import TAIL_S
from engine.project.timeline import layout
from engine.session import ClipView, LineState, LineStatus, SessionState
from engine.session.views import SoundView, voiced_lines
from engine.synth.missing_voices import describe_missing, missing_voices

POLL_HZ = 20
MISSING_VOICES_MS = 30_000  # how long the status line says which voices are not installed
ENGINE_ACTIONS = ("play_pause", "stop", "from_start", "play_line", "loop", "audition")


@dataclass(frozen=True)
class EstimatedClip:
    """A clip of the document's estimated layout, drawn until the engine reports its own."""

    line_id: str
    role: str
    start: float
    end: float
    estimated: bool = True


class EnginePresenter(QObject):
    def __init__(self, window: LiveStudio, engine: EngineLink, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window, self.engine = window, engine
        self._status: Mapping[str, LineStatus] | None = None  # what was drawn last (by identity)
        self._clips: Sequence[ClipView] | None = None
        self._sounds: Sequence[SoundView] = ()
        self._errors: dict[str, str] = {}
        self._polls = 0
        self._unvoiced = 0  # lines whose voice is not installed, when last counted
        self._voices_said: frozenset[str] = frozenset()  # the missing voices the status line has named
        self.gate = PlayGate(window, engine, self)  # Play asks first when synthesis cannot keep up
        self.spoken = SpokenWord(window.script.view, Col.TEXT, engine.words, lambda lid: window.doc.project.line(lid).text, self)
        self.timer = QTimer(self)
        self.timer.setObjectName("enginePoll")
        self.timer.setInterval(int(1000 / POLL_HZ))
        self.timer.timeout.connect(self.poll)
        engine.ready.connect(self._ready)
        engine.failed.connect(self._failed)
        doc = window.doc
        for signal in (doc.lineChanged, doc.linesReset, doc.castReset, doc.roleChanged, doc.projectChanged):
            signal.connect(self.refresh_layout)
        self.timer.start()

    # ---- engine life cycle ----------------------------------------------------------
    def starting(self) -> None:
        self._status, self._clips, self._sounds = None, None, ()
        self._unvoiced, self._voices_said = 0, frozenset()
        self._errors.clear()
        self.window.engine_label.setText("Engine: starting…")
        self._set_engine_actions(False)
        self.refresh_layout()

    def _ready(self) -> None:
        self.window.engine_label.setText("Engine: ready")
        self.window.engine_label.setToolTip("")
        self._set_engine_actions(True)

    def _failed(self, message: str) -> None:
        self.window.engine_label.setText("Engine: not running")
        self.window.engine_label.setToolTip(message)
        self.window.show_error("The voice engine could not start",
                               f"{message}\n\nYou can keep editing and saving; playback and export need the engine.")

    def _set_engine_actions(self, enabled: bool) -> None:
        for name in ENGINE_ACTIONS:
            self.window.actions_[name].setEnabled(enabled)

    # ---- drawing ---------------------------------------------------------------------
    def estimated_clips(self) -> list[EstimatedClip]:
        return [EstimatedClip(p.line_id, p.role, p.start, p.end) for p in layout(self.window.doc.project, {})]

    def predicted_length(self) -> float | None:
        """The programme's length from the lines' predicted lengths (None: no lines)."""
        ends = [c.end for c in self.estimated_clips()]
        return max(ends) + TAIL_S if ends else None

    def refresh_layout(self, *_: object) -> None:
        """Until the engine reports clips, lanes and the script's time column show
        the estimated layout and the transport its predicted length."""
        if self._clips is None:
            estimated = self.estimated_clips()
            draw.show_clips(self.window.timeline, self.window.doc.project, estimated, self._sounds)
            self.window.script.model.set_layout(estimated)
            self.window.transport.show_predicted_length(self.predicted_length())

    def clips(self) -> Sequence[ClipView | EstimatedClip]:
        """The clips the timeline shows: the engine's, or the estimate before it has any."""
        state = self.engine.state()
        return state.clips if state is not None and state.clips else self.estimated_clips()

    def sounds(self) -> Sequence[SoundView]:
        """The sound clips the timeline shows (none yet: the document's estimate is drawn)."""
        return self._sounds

    def poll(self) -> None:
        """Draw the engine's state (QTimer, GUI thread)."""
        state = self.engine.state()
        if state is not None:
            self.draw(state)

    def draw(self, state: SessionState) -> None:
        """One SessionState onto every panel; parts that are the same objects as
        last time (the clip list, line states) are not redrawn."""
        w = self.window
        lines = w.doc.project.lines
        if state.line_status is not self._status:
            previous = self._status or {}
            self._status = state.line_status
            w.script.model.set_status(state.line_status)
            arrived = [lid for lid, s in state.line_status.items() if s.state is LineState.READY
                       and (lid not in previous or previous[lid].state is not LineState.READY)]
            if arrived:
                w.timeline.invalidate_peaks(arrived)
            w.lines_label.setText(lines_summary(state.line_status, len(lines)))
            self._show_unvoiceable(state)
            self._say_missing_voices(state.line_status)
        # Until the engine has planned the lines its clip list is empty: keep the estimates.
        clips_new = state.clips is not self._clips and bool(state.clips or not lines)
        sounds_new = state.sounds is not self._sounds
        if clips_new:
            self._clips = state.clips
        if sounds_new:
            self._sounds = state.sounds
        if clips_new or sounds_new:
            shown = self._clips if self._clips is not None else self.estimated_clips()
            draw.show_clips(w.timeline, w.doc.project, shown, self._sounds)
        if clips_new:
            w.script.model.set_layout(state.clips)  # line starts as the engine laid them out, not laid out again
        self._show_outlook(state)
        self.gate.watch(state)
        if state.clips or state.sounds:
            w.transport.show_engine_length()
        elif clips_new or sounds_new:
            w.transport.show_predicted_length(self.predicted_length())
        draw.show_transport(w.timeline, w.transport, w.doc.project, state.transport, state.levels)
        w.script.show_playhead(state.transport.position_s, state.transport.playing)
        self.spoken.show(state, w.script.model.playing_line())
        w.monitor.show_lines(state.voiced_lines, len(lines))  # the status bar's count, the one definition
        w.monitor.update_from(state.metrics)
        for key, error in (("audio", state.transport.audio_error), ("engine", state.error)):
            if error and error != self._errors.get(key):
                self._errors[key] = error
                w.statusBar().showMessage(error, 10000)


    def _show_unvoiceable(self, state: SessionState) -> None:
        """The lines no clip will come for, on the transport beside (never in) the late lines."""
        lines = self.window.doc.project.lines
        number = {line.id: i for i, line in enumerate(lines, start=1)}
        counts: dict[str, int] = {}
        detail: list[str] = []
        for line_id in sorted(state.unvoiceable, key=lambda lid: number.get(lid, len(lines) + 1)):
            status = state.line_status[line_id]
            counts[status.state.value] = counts.get(status.state.value, 0) + 1
            at = number.get(line_id)
            who = f"Line {at} ({lines[at - 1].role})" if at is not None else f"Line {line_id}"
            detail.append(f"{who}: {status.state.value}: {status.error or 'no reason given'}")
        self.window.transport.show_unvoiceable(counts, "\n".join(detail[:12]) + (
            f"\n… and {len(detail) - 12} more" if len(detail) > 12 else ""))

    def _say_missing_voices(self, statuses: Mapping[str, LineStatus]) -> None:
        """Which voices the cast needs are not installed, and how to get them: said once in the
        status line for each new set of them, and kept as the lines summary's tooltip."""
        unvoiced = sum(1 for s in statuses.values() if s.state is LineState.NO_VOICE)
        if unvoiced == self._unvoiced:
            return
        self._unvoiced = unvoiced
        w = self.window
        missing = missing_voices(w.doc.project, w.catalog.library.resolve) if unvoiced else []
        w.lines_label.setToolTip(describe_missing(missing) if missing else "")
        voices = frozenset(m.voice for m in missing)
        if voices and not voices <= self._voices_said:
            w.statusBar().showMessage(describe_missing(missing), MISSING_VOICES_MS)
        self._voices_said = voices

    def _show_outlook(self, state: SessionState) -> None:
        """Twice a second: can synthesis keep up with playback from the playhead?"""
        self._polls += 1
        if self._polls % CHECK_EVERY == 1:
            self.window.outlook_label.show_outlook(self.engine.outlook(state.transport.position_s))


def lines_summary(statuses: Mapping[str, LineStatus], total: int) -> str:
    counts: dict[LineState, int] = {}
    for status in statuses.values():
        counts[status.state] = counts.get(status.state, 0) + 1
    parts = [f"{voiced_lines(statuses)} of {total} lines voiced"]
    busy = counts.get(LineState.SYNTHESIZING, 0) + counts.get(LineState.QUEUED, 0)
    if busy:
        parts.append(f"{busy} in progress")
    for state, n in counts.items():
        if state is LineState.NO_VOICE:  # not failures: their voices are not installed (the tooltip says how)
            parts.append(f"{n} without a voice")
        elif state.unvoiceable:
            parts.append(f"{n} {state.value.replace('_', ' ')}")
    return " · ".join(parts)
