"""Where the main window meets the timeline, transport bar and monitor widgets.

Those widgets (app/timeline.py, app/transport_bar.py, app/monitor.py) take
plain data and report through signals; this module is the one place that
feeds them engine snapshots and turns their signals into window commands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from app.monitor import MonitorDock
from app.timeline import Lane, TimelineView
from app.timeline_items import PeaksFn
from app.transport_bar import TransportBar
from engine.project.model import Project, Role, Scene

if TYPE_CHECKING:
    from app.main_window import MainWindow


def new_project() -> Project:
    """What File > New starts from: one narrator and one scene to write into."""
    return Project(cast=[Role(name="NARRATOR")], scenes=[Scene(id="S1", heading="Scene 1")])


# ---- construction ---------------------------------------------------------
def make_timeline(peaks: PeaksFn, parent: QWidget) -> TimelineView:
    timeline = TimelineView(peaks=peaks, parent=parent)
    timeline.setObjectName("timeline")
    return timeline


def make_monitor(parent: QWidget) -> MonitorDock:
    return MonitorDock(parent=parent)


def make_transport(parent: QWidget) -> TransportBar:
    bar = TransportBar(parent=parent)
    bar.setObjectName("transportBar")
    return bar


def timeline_actions(timeline: TimelineView) -> list[QAction]:
    """The timeline's zoom, fit, loop and snap actions, for the View menu."""
    return list(timeline.view_actions)


# ---- signals -> window commands ----------------------------------------------
def connect_timeline(window: MainWindow) -> None:
    timeline = window.timeline
    timeline.clip_moved.connect(window.move_clip)
    timeline.seek_requested.connect(window.seek)
    timeline.loop_changed.connect(window.loop_changed)
    timeline.clip_selected.connect(lambda line_id: window.script.select_line(line_id))
    timeline.clip_activated.connect(window.seek_to_line)


def adopt_transport_actions(window: MainWindow) -> None:
    """The transport bar owns Space, Shift+Space, Home and L; the menus use its actions
    (two actions with one shortcut would make Qt ignore both)."""
    bar = window.transport
    for name, theirs in (("play_pause", bar.play_action), ("stop", bar.stop_action), ("from_start", bar.home_action),
                         ("loop", bar.loop_action)):
        mine = window.actions_[name]
        mine.setShortcuts([])
        mine.deleteLater()
        window.actions_[name] = theirs


def connect_transport(window: MainWindow) -> None:
    bar = window.transport
    bar.play_toggled.connect(window.set_playing)
    bar.stop_requested.connect(window.stop)
    bar.home_requested.connect(window.from_start)
    bar.loop_toggled.connect(window._loop_toggled)


# ---- engine snapshots -> widgets -------------------------------------------------
def draw_state(window: MainWindow, state: Any, seen: dict[str, Any]) -> None:
    """One EngineState onto every panel; ``seen`` keeps what was drawn last, so unchanged
    parts (the clip list, line states) are not redrawn."""
    if state.line_status is not seen.get("status"):
        previous = seen.get("status") or {}
        seen["status"] = state.line_status
        window.script.model.set_status(state.line_status)
        arrived = [lid for lid, s in state.line_status.items()
                   if s.state.name == "READY" and (lid not in previous or previous[lid].state.name != "READY")]
        if arrived:
            invalidate_peaks(window, arrived)
        window.lines_label.setText(lines_summary(state.line_status, len(window.doc.project.lines)))
    # Until the engine has planned the lines its clip list is empty: keep the estimates.
    if state.clips is not seen.get("clips") and (state.clips or not window.doc.project.lines):
        seen["clips"] = state.clips
        show_clips(window, state.clips)
        window.script.model.set_durations({c.line_id: c.end - c.start for c in state.clips if not c.estimated})
    show_transport(window, state.transport, state.levels)
    if state.metrics is not None:
        show_metrics(window, state.metrics)
    for key, error in (("audio_error", getattr(state.transport, "audio_error", None)), ("engine_error", state.error)):
        if error and error != seen.get(key):
            seen[key] = error
            window.statusBar().showMessage(error, 10000)


def lines_summary(statuses: dict[str, Any], total: int) -> str:
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status.state.name] = counts.get(status.state.name, 0) + 1
    parts = [f"{counts.get('READY', 0)} of {total} lines voiced"]
    busy = counts.get("SYNTHESIZING", 0) + counts.get("QUEUED", 0)
    if busy:
        parts.append(f"{busy} in progress")
    if counts.get("FAILED"):
        parts.append(f"{counts['FAILED']} failed")
    return " · ".join(parts)


def update_lanes(window: MainWindow) -> None:
    project = window.doc.project
    audible = project.audible_roles()
    window.timeline.set_lanes([Lane(r.name, r.colour, r.name not in audible) for r in project.cast])


def show_clips(window: MainWindow, clips: Iterable[Any]) -> None:
    clips = list(clips)
    texts = {line.id: line.text for line in window.doc.project.lines}
    window.timeline.set_clips(clips, texts)
    window.timeline.set_duration(max((c.end for c in clips), default=0.0))


def invalidate_peaks(window: MainWindow, line_ids: list[str]) -> None:
    window.timeline.invalidate_peaks(line_ids)


def show_playhead(window: MainWindow, seconds: float) -> None:
    window.timeline.set_playhead(seconds)


def loop_region(window: MainWindow) -> tuple[float, float] | None:
    return window.timeline.loop_region()


def show_transport(window: MainWindow, snap: Any, levels: Any = None) -> None:
    show_playhead(window, snap.position_s)
    lanes = getattr(levels, "lane_peak_db", None)  # one per lane, in cast order (MeterSnapshot)
    if lanes is not None:
        if not isinstance(lanes, Mapping):
            lanes = dict(zip(window.doc.project.role_names(), lanes, strict=False))
        window.timeline.set_lane_levels(lanes)
    window.transport.update_from(snap, levels)


def show_metrics(window: MainWindow, metrics: Any) -> None:
    window.monitor.update_from(metrics)
