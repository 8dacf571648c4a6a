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
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QWidget

from app.commands import SetLineFields, move_clip
from app.document import Document
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


def arrange_default(window: MainWindow) -> None:
    """The default layout: every cast column shown, six timeline lanes, the monitor below the
    cast with the rest of the left column. Sizes come from the panels' contents, so a window of
    1600x1000 (or one restored larger) shows them whole."""
    window.layout().activate()  # dock sizes are set against the laid-out window, not a guess
    table = window.cast.view
    header = table.horizontalHeader()
    for col in range(header.count()):  # no header cut to "ariation"
        header.resizeSection(col, max(header.sectionSize(col), header.sectionSizeHint(col)))
    cast_w = header.length() + 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width() + 8
    window.resizeDocks([window.cast_dock], [cast_w], Qt.Orientation.Horizontal)
    # The timeline's size hint is six lanes; the dock's adds its title bar.
    window.resizeDocks([window.timeline_dock], [window.timeline_dock.sizeHint().height()], Qt.Orientation.Vertical)
    rows = max(table.model().rowCount(), 7)
    # Dock title and tool bar (laid out above), then the table's header, rows and frame.
    chrome = (window.cast_dock.sizeHint().height() - table.sizeHint().height() + header.sizeHint().height()
              + 2 * table.frameWidth())
    cast_h = chrome + rows * table.verticalHeader().defaultSectionSize() + 4  # + what rounding takes
    left = window.cast_dock.height() + window.monitor_dock.height()  # sizes that do not add up get scaled
    window.resizeDocks([window.cast_dock, window.monitor_dock], [cast_h, max(200, left - cast_h)],
                       Qt.Orientation.Vertical)


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
    timeline.drag.describe = lambda line_id, start: describe_drop(window, line_id, start)  # type: ignore[attr-defined]


def drop_command(doc: Document, clips: Iterable[Any], line_id: str, new_start: float) -> SetLineFields:
    """The edit a clip dropped at ``new_start`` makes, from the clips the timeline shows.
    Relative placement (pause, overlap) only when every length it depends on is real."""
    clips = list(clips)
    return move_clip(doc, line_id, new_start, {c.line_id: c.end - c.start for c in clips},
                     _lengths_known(doc, clips, line_id))


def _lengths_known(doc: Document, clips: list[Any], line_id: str) -> bool:
    """Every line up to this one is voiced, so its clip's length is real, not an estimate."""
    earlier = {line.id for line in doc.project.lines[: doc.line_index(line_id) + 1]}
    return all(not c.estimated for c in clips if c.line_id in earlier)


def describe_drop(window: MainWindow, line_id: str, new_start: float) -> str:
    """What releasing a dragged clip at ``new_start`` will do, in the producer's words: the
    same decision the drop makes (:func:`drop_command`), asked of a copy of the lines, so
    nothing the engine reads changes while the mouse moves."""
    project = window.doc.project
    whatif = Document(replace(project, lines=[replace(line) for line in project.lines]))
    clips = window.timeline.clip_items()  # type: ignore[attr-defined]
    command = drop_command(whatif, clips, line_id, new_start)
    if not command.new:
        return "stays where it is"
    line = whatif.project.line(line_id)
    final = {"start": line.start, "overlap": line.overlap, "pause_before": line.pause_before, **command.new}
    if final["start"] is not None:
        why = "" if _lengths_known(whatif, clips, line_id) else " (lines before it not voiced yet)"
        return f"pinned at {format_time(final['start'])}{why}"
    if final["overlap"] > 0:
        return f"overlaps the previous line by {final['overlap']:.2f} s"
    if final["pause_before"] > 0:
        return f"pause of {final['pause_before']:.2f} s before it"
    return "right after the previous line"


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
def _lanes(window: MainWindow) -> list[Any]:
    from app.timeline import Lane

    project = window.doc.project
    audible = project.audible_roles()
    return [Lane(r.name, r.colour, r.name not in audible) for r in project.cast]


def update_lanes(window: MainWindow) -> None:
    """The cast changed: the timeline's lanes follow it (they are the cast, always)."""
    if _is_timeline(window.timeline):
        window.timeline.set_lanes(_lanes(window))  # type: ignore[attr-defined]


def show_new_project(window: MainWindow) -> None:
    """New, Open, Import, Recover: the timeline starts over on the new cast, scrolled to the top
    and the start, with none of the previous project's clips."""
    if _is_timeline(window.timeline):
        window.timeline.reset(_lanes(window))  # type: ignore[attr-defined]


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


def _by_role(window: MainWindow, values: Any) -> dict[str, float]:
    if values is None:
        return {}
    if isinstance(values, Mapping):
        return dict(values)
    return dict(zip(window.doc.project.role_names(), values, strict=False))  # MeterSnapshot: cast order


def show_transport(window: MainWindow, snap: Any, levels: Any = None) -> None:
    show_playhead(window, snap.position_s)
    set_lane_levels = getattr(window.timeline, "set_lane_levels", None)
    if callable(set_lane_levels):
        # Nothing plays: the engine meters nothing and its last levels stay; the lanes fall.
        playing = levels is not None and snap.playing
        set_lane_levels(_by_role(window, getattr(levels, "lane_peak_db", None) if playing else None),
                        _by_role(window, getattr(levels, "lane_hold_db", None) if playing else None))
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
