"""Where the main window meets the timeline, transport bar and monitor widgets.

Those widgets (app/timeline.py, app/transport_bar.py, app/monitor.py) take
plain data and report through signals; this module is the one place that
feeds them engine snapshots and turns their signals into window commands.
A widget whose module is not importable yet gets a labelled placeholder, so
the studio still opens while the panels are being built.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QWidget

from app.script_model import format_time
from engine.project.model import Project, Role, Scene

if TYPE_CHECKING:
    from app.main_window import MainWindow


def new_project() -> Project:
    """What File > New starts from: one narrator and one scene to write into."""
    return Project(title="Untitled", cast=[Role(name="NARRATOR")], scenes=[Scene(id="S1", heading="Scene 1")])


def _load(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def _placeholder(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setEnabled(False)
    return label


# ---- construction ---------------------------------------------------------
def make_timeline(peaks: Any, parent: QWidget) -> QWidget:
    view = _load("app.timeline", "TimelineView")
    if view is None:
        return _placeholder("The timeline appears here.", parent)
    timeline: QWidget = view(peaks=peaks, parent=parent)
    timeline.setObjectName("timeline")
    return timeline


def make_monitor(parent: QWidget) -> QWidget:
    monitor = _load("app.monitor", "MonitorDock")
    if monitor is None:
        return _placeholder("Scheduler heatmaps appear here.", parent)
    widget: QWidget = monitor(parent=parent)
    return widget


def monitor_dock(window: QMainWindow, monitor: QWidget) -> QDockWidget:
    """MonitorDock is a dock itself; a placeholder gets one."""
    if isinstance(monitor, QDockWidget):
        return monitor
    dock = QDockWidget("Engine Monitor", window)
    dock.setObjectName("MonitorDock")
    dock.setWidget(monitor)
    return dock


def make_transport(parent: QWidget) -> QWidget | None:
    bar = _load("app.transport_bar", "TransportBar")
    if bar is None:
        return None
    widget: QWidget = bar(parent=parent)
    widget.setObjectName("transportBar")
    return widget


def _is_timeline(widget: QWidget) -> bool:
    return hasattr(widget, "set_clips") and hasattr(widget, "clip_moved")


def timeline_actions(timeline: QWidget) -> list[QAction]:
    """The timeline's zoom, fit, loop and snap actions, for the View menu."""
    return list(getattr(timeline, "view_actions", []))


# ---- signals -> window commands ----------------------------------------------
def connect_timeline(window: MainWindow) -> None:
    timeline = window.timeline
    if not _is_timeline(timeline):
        return
    timeline.clip_moved.connect(window.move_clip)  # type: ignore[attr-defined]
    timeline.seek_requested.connect(window.seek)  # type: ignore[attr-defined]
    timeline.loop_changed.connect(window.loop_changed)  # type: ignore[attr-defined]
    timeline.clip_selected.connect(lambda line_id: window.script.select_line(line_id))  # type: ignore[attr-defined]
    timeline.clip_activated.connect(window.seek_to_line)  # type: ignore[attr-defined]


def adopt_transport_actions(window: MainWindow) -> None:
    """The transport bar owns Space, Shift+Space, Home and L; the menus use its actions
    (two actions with one shortcut would make Qt ignore both)."""
    bar = window.transport
    if bar is None:
        return
    for name, attr in (("play_pause", "play_action"), ("stop", "stop_action"), ("from_start", "home_action"),
                       ("loop", "loop_action")):
        theirs = getattr(bar, attr, None)
        if isinstance(theirs, QAction):
            mine = window.actions_[name]
            mine.setShortcuts([])
            mine.deleteLater()
            window.actions_[name] = theirs


def connect_transport(window: MainWindow) -> None:
    bar = window.transport
    if bar is None:
        return
    bar.play_toggled.connect(window.set_playing)  # type: ignore[attr-defined]
    bar.stop_requested.connect(window.stop)  # type: ignore[attr-defined]
    bar.home_requested.connect(window.from_start)  # type: ignore[attr-defined]
    bar.loop_toggled.connect(window._loop_toggled)  # type: ignore[attr-defined]


# ---- engine snapshots -> widgets (drawn by app/engine_presenter.py) ---------------
def update_lanes(window: MainWindow) -> None:
    timeline = window.timeline
    if not _is_timeline(timeline):
        return
    from app.timeline import Lane

    project = window.doc.project
    audible = project.audible_roles()
    timeline.set_lanes([Lane(r.name, r.colour, r.name not in audible) for r in project.cast])  # type: ignore[attr-defined]


def show_clips(window: MainWindow, clips: Iterable[Any]) -> None:
    timeline = window.timeline
    clips = list(clips)
    if _is_timeline(timeline):
        texts = {line.id: line.text for line in window.doc.project.lines}
        timeline.set_clips(clips, texts)  # type: ignore[attr-defined]
        timeline.set_duration(max((c.end for c in clips), default=0.0))  # type: ignore[attr-defined]


def invalidate_peaks(window: MainWindow, line_ids: list[str]) -> None:
    invalidate = getattr(window.timeline, "invalidate_peaks", None)
    if callable(invalidate):
        invalidate(line_ids)


def show_playhead(window: MainWindow, seconds: float) -> None:
    set_playhead = getattr(window.timeline, "set_playhead", None)
    if callable(set_playhead):
        set_playhead(seconds)


def loop_region(window: MainWindow) -> tuple[float, float] | None:
    region = getattr(window.timeline, "loop_region", None)
    return region() if callable(region) else None


def show_transport(window: MainWindow, snap: Any, levels: Any = None) -> None:
    show_playhead(window, snap.position_s)
    lanes = getattr(levels, "lane_peak_db", None)  # one per lane, in cast order (MeterSnapshot)
    set_lane_levels = getattr(window.timeline, "set_lane_levels", None)
    if lanes is not None and callable(set_lane_levels):
        if not isinstance(lanes, Mapping):
            lanes = dict(zip(window.doc.project.role_names(), lanes, strict=False))
        set_lane_levels(lanes)
    bar = window.transport
    if bar is not None:
        bar.update_from(snap, levels)  # type: ignore[attr-defined]
        return
    window.actions_["play_pause"].setText("&Pause" if snap.playing else "&Play")
    window.clock.setText(f"{format_time(snap.position_s)} / {format_time(snap.duration_s)}")
    window.clock.setToolTip(f"Output: {snap.output} · late lines {snap.late_lines} · underruns {snap.underruns}")


def show_metrics(window: MainWindow, metrics: Any) -> None:
    update = getattr(window.monitor, "update_from", None)
    if callable(update):
        update(metrics)
