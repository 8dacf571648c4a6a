"""The transport bar: play/pause, stop, from start, loop, time, master meter and trouble counters.

Self-contained: it emits what the producer asked for (``play_toggled``, ``stop_requested``,
``home_requested``, ``loop_toggled``) and shows whatever :meth:`TransportBar.update_from` is
given (an ``engine.session.TransportSnapshot`` and a levels snapshot), so the main window's
QTimer drives it and tests can feed it plain objects. GUI thread only.

Keys: Space play/pause, Shift+Space stop, Home from start, L loop. They are window shortcuts,
and a text field with focus keeps its own Space, Home and letters (Qt lets the focused editor
override shortcuts for keys it uses), so typing a line never starts playback.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyle, QToolBar, QWidget

from app.timeline.ruler import format_time
from app.widgets.meter import LevelMeter

_WARN_STYLE = "QLabel { background: #c0392b; color: white; border-radius: 3px; padding: 1px 5px; }"
_ERROR_STYLE = "QLabel { background: #f5d76e; color: #3a2a00; border-radius: 3px; padding: 1px 6px; }"
_CALM_STYLE = "QLabel { padding: 1px 5px; }"


def master_levels(levels: Any) -> tuple[float | None, float | None, float | None]:
    """(peak dBFS, hold dBFS, short-term LUFS) from a levels snapshot, any of them None.

    Reads the fields of ``engine.audio.meters.MeterSnapshot`` (``master_peak_db``,
    ``master_hold_db``, ``short_term_lufs``); without a master peak it falls back to the loudest
    lane (``lane_peak_db`` / ``lane_peaks_db`` as a mapping or a sequence)."""
    if levels is None:
        return None, None, None
    peak = getattr(levels, "master_peak_db", None)
    hold = getattr(levels, "master_hold_db", None)
    lufs = getattr(levels, "short_term_lufs", None)
    if peak is None:
        lanes = getattr(levels, "lane_peak_db", None)
        if lanes is None:
            lanes = getattr(levels, "lane_peaks_db", None)
        values = list(lanes.values()) if isinstance(lanes, Mapping) else list(lanes or ())
        peak = max(values) if values else None
    return peak, hold, lufs


class TransportBar(QToolBar):
    """Transport controls and status. Signals:

    * ``play_toggled(bool)``: True = start playing, False = pause (Space);
    * ``stop_requested()``: stop and return to where play started (Shift+Space);
    * ``home_requested()``: play from the start, playing or stopped (Home);
    * ``loop_toggled(bool)``: loop the selected region or not (L).
    """

    play_toggled = Signal(bool)
    stop_requested = Signal()
    home_requested = Signal()
    loop_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__("Transport", parent)
        self.setObjectName("TransportBar")  # QMainWindow.saveState needs a name
        self.setMovable(True)
        style = self.style()
        self._play_icon = style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay)
        self._pause_icon = style.standardIcon(QStyle.StandardPixmap.SP_MediaPause)

        def action(text: str, key: str, tip: str, icon: QStyle.StandardPixmap | None = None,
                   checkable: bool = False) -> QAction:
            a = QAction(text, self)
            if icon is not None:
                a.setIcon(style.standardIcon(icon))
            a.setShortcut(QKeySequence(key))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            a.setToolTip(f"{tip} ({QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)})")
            a.setCheckable(checkable)
            self.addAction(a)
            return a

        self.home_action = action("From Start", "Home", "Play from the start",
                                  QStyle.StandardPixmap.SP_MediaSkipBackward)
        self.play_action = action("Play", "Space", "Play or pause", QStyle.StandardPixmap.SP_MediaPlay,
                                  checkable=True)
        self.stop_action = action("Stop", "Shift+Space", "Stop and go back to where play started",
                                  QStyle.StandardPixmap.SP_MediaStop)
        self.loop_action = action("Loop", "L", "Loop the region selected on the ruler", checkable=True)
        #: The transport's actions, for the main window's Playback menu.
        self.transport_actions: list[QAction] = [self.play_action, self.stop_action, self.home_action,
                                                 self.loop_action]
        self.play_action.triggered.connect(self._play_triggered)
        self.stop_action.triggered.connect(self.stop_requested)
        self.home_action.triggered.connect(self.home_requested)
        self.loop_action.triggered.connect(self.loop_toggled)

        self.addSeparator()
        # Before the engine has laid out a clip its length is only the tail: the presenter
        # gives the document's predicted length instead (None: nothing to play yet).
        self._predicted: float | None = None
        self._use_prediction = False
        self._position_s = 0.0
        self.time_label = QLabel(f"{format_time(0.0, 1)} / --:--")
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.TypeWriter)
        mono.setPointSizeF(max(9.0, self.font().pointSizeF() * 1.15))
        self.time_label.setFont(mono)
        self.time_label.setToolTip("Playhead / length of the production")
        self.time_label.setContentsMargins(6, 0, 6, 0)
        self.addWidget(self.time_label)
        # Right after the time, so a narrow window pushes counters, not this, into the overflow.
        self.audio_error_label = QLabel("")
        self.audio_error_label.setStyleSheet(_ERROR_STYLE)
        self.audio_error_label.setWordWrap(False)
        self.audio_error_label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._audio_error_action = self.addWidget(self.audio_error_label)
        self._audio_error_action.setVisible(False)
        self.addSeparator()
        self.meter = LevelMeter(Qt.Orientation.Horizontal, clock=clock)
        self.meter.setMinimumWidth(300)  # the bar, and the loudness and limiter readouts beside it
        self.addWidget(self.meter)
        self.addSeparator()
        self.late_label = self._counter("Lines whose audio was not ready when the playhead reached them "
                                        "(lines that cannot be voiced are never late: see beside)")
        # Lines no clip will come for (failed): silent where they are, counted apart from the
        # late lines, hidden while there are none.
        self.silent_label = QLabel("")
        self.silent_label.setObjectName("silentLines")
        self.silent_label.setStyleSheet(_ERROR_STYLE)
        self._silent_action = self.addWidget(self.silent_label)
        self._silent_action.setVisible(False)
        self.underrun_label = self._counter("Times the sound device ran out of audio while playing (glitches)")
        self.cpu_label = QLabel("CPU --")
        self.cpu_label.setToolTip("Share of the synthesis workers' time spent busy")
        self.cpu_label.setStyleSheet(_CALM_STYLE)
        self.addWidget(self.cpu_label)
        self.output_label = QLabel("")
        self.output_label.setStyleSheet(_CALM_STYLE)
        self.addWidget(self.output_label)
        self.late_lines = 0
        self.underruns = 0
        self._set_counter(self.late_label, "Late", 0)
        self._set_counter(self.underrun_label, "Underruns", 0)

    # ------------------------------------------------------------------ helpers

    def _counter(self, tip: str) -> QLabel:
        label = QLabel()
        label.setToolTip(tip)
        self.addWidget(label)
        return label

    @staticmethod
    def _set_counter(label: QLabel, name: str, value: int) -> None:
        text = f"{name} {value}"
        alarm = value > 0
        if label.text() != text or label.property("highlighted") != alarm:
            label.setText(text)
            label.setProperty("highlighted", alarm)
            label.setStyleSheet(_WARN_STYLE if alarm else _CALM_STYLE)

    def _time_text(self, position_s: float, duration_s: float) -> str:
        if not self._use_prediction:
            length = format_time(duration_s, 1)
        elif self._predicted is None:
            length = "--:--"
        else:
            length = "~" + format_time(self._predicted, 1)
        return f"{format_time(position_s, 1)} / {length}"

    def show_predicted_length(self, seconds: float | None) -> None:
        """Show ``seconds`` as the length, marked as predicted (~), until
        :meth:`show_engine_length`: the engine has no clips yet and the lines'
        predicted lengths are all there is. None: nothing to play ("--:--")."""
        self._use_prediction, self._predicted = True, seconds
        self.time_label.setToolTip("Playhead / predicted length of the production (before any line is voiced)"
                                   if seconds is not None else "Playhead / length of the production (no lines yet)")
        self._set_time(self._time_text(self._position_s, 0.0))

    def show_engine_length(self) -> None:
        """The snapshots' length from now on (the engine has laid out its clips)."""
        if self._use_prediction:
            self._use_prediction = False
            self.time_label.setToolTip("Playhead / length of the production")

    def _set_time(self, text: str) -> None:
        if self.time_label.text() != text:
            self.time_label.setText(text)

    def _play_triggered(self, checked: bool) -> None:
        self._show_playing(checked)
        self.play_toggled.emit(checked)

    def _show_playing(self, playing: bool) -> None:
        self.play_action.setChecked(playing)
        self.play_action.setText("Pause" if playing else "Play")
        self.play_action.setIcon(self._pause_icon if playing else self._play_icon)

    # ------------------------------------------------------------------ data in

    def update_from(self, snapshot: Any, levels: Any = None) -> None:
        """Show a transport snapshot (``engine.session.TransportSnapshot`` fields: position_s,
        playing, duration_s, loop, late_lines, underruns, cpu_load, output, audio_error) and a
        levels snapshot (see :func:`master_levels`; None: silence). While nothing plays the
        engine meters nothing and its last levels stay as they were: the meter is fed silence
        then, and falls."""
        if snapshot is not None and not snapshot.playing:
            levels = None
        if snapshot is not None:
            self._position_s = float(snapshot.position_s)
            self._set_time(self._time_text(snapshot.position_s, snapshot.duration_s))
            if self.play_action.isChecked() != bool(snapshot.playing):
                self._show_playing(bool(snapshot.playing))
            looping = snapshot.loop is not None
            self.loop_action.setChecked(looping)
            self.late_lines = int(snapshot.late_lines)
            self.underruns = int(snapshot.underruns)
            self._set_counter(self.late_label, "Late", self.late_lines)
            self._set_counter(self.underrun_label, "Underruns", self.underruns)
            cpu = snapshot.cpu_load
            self.cpu_label.setText("CPU --" if cpu is None or not math.isfinite(cpu) else f"CPU {cpu:.0%}")
            output = snapshot.output or ""
            self.output_label.setText("Output: silent (no device)" if output == "null" else f"Output: {output}")
            self.set_audio_error(snapshot.audio_error)
        peak, hold, lufs = master_levels(levels)
        self.meter.set_levels(peak, hold, lufs)
        if levels is not None and hasattr(levels, "limiter_reduction_db"):
            self.meter.set_dynamics(levels.momentary_lufs, levels.limiter_reduction_db, levels.limiter_max_db,
                                    levels.master_overs)
        elif self.meter.reduction_db is not None:  # stopped: nothing limits
            self.meter.set_dynamics(None, 0.0, self.meter.reduction_max_db)

    def show_unvoiceable(self, counts: Mapping[str, int], detail: str = "") -> None:
        """The lines that cannot be voiced, by state (``{"failed": 2}``): shown as such
        ("Failed 2"), apart from the late lines; ``detail`` (which lines, and why) is the
        tooltip. Nothing to show hides it."""
        shown = {name: n for name, n in counts.items() if n > 0}
        if not shown:
            self._silent_action.setVisible(False)
            self.silent_label.clear()
            return
        text = "  ".join(f"{name.replace('_', ' ').capitalize()} {n}" for name, n in sorted(shown.items()))
        if self.silent_label.text() != text:
            self.silent_label.setText(text)
        tip = ("Lines that cannot be voiced: they are silent where they are, playback does not wait "
               "for them and they never count as late. Fix their text or voice in the script.")
        tip = f"{tip}\n{detail}" if detail else tip
        if self.silent_label.toolTip() != tip:
            self.silent_label.setToolTip(tip)
        self._silent_action.setVisible(True)

    def silent_visible(self) -> bool:
        return self._silent_action.isVisible()

    def set_audio_error(self, message: str | None) -> None:
        """Show why there is no sound and how to fix it (None hides the warning)."""
        if not message:
            self._audio_error_action.setVisible(False)
            self.audio_error_label.clear()
            return
        text = message[0].upper() + message[1:]
        self.audio_error_label.setText(f"\u26a0 {text}")
        self.audio_error_label.setToolTip(f"{text}\nPlayback continues on a silent clock until sound works.")
        self._audio_error_action.setVisible(True)

    def audio_error_visible(self) -> bool:
        return self._audio_error_action.isVisible()
