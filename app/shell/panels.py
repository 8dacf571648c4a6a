"""Where the main window meets the timeline, transport bar and monitor widgets.

Those widgets (app/timeline/view.py, app/transport/bar.py, app/transport/monitor.py) take
plain data and report through signals; this module is the one place that
feeds them engine snapshots and turns their signals into window commands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from app.document.commands import SetLineFields, move_clip
from app.document.document import Document
from app.script.model import format_time
from app.shell.studio_window import StudioWindow
from app.sound import lanes as sound_lanes
from app.sound.trim import SoundTrim
from app.timeline.items import PeaksFn
from app.timeline.view import Lane, TimelineView
from app.transport.bar import TransportBar
from app.transport.monitor import MonitorDock
from engine.project.model import Project, Role, Scene


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


def arrange_default(window: StudioWindow) -> None:
    """The default layout: every cast column shown, six timeline lanes, the monitor below the
    cast with the rest of the left column. Sizes come from the panels' contents, so a window of
    1600x1000 (or one restored larger) shows them whole."""
    layout = window.layout()
    if layout is not None:
        layout.activate()  # dock sizes are set against the laid-out window, not a guess
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


def timeline_actions(timeline: TimelineView) -> list[QAction]:
    """The timeline's zoom, fit, loop and snap actions, for the View menu."""
    return list(timeline.view_actions)


# ---- signals -> window commands ----------------------------------------------
def connect_timeline(window: StudioWindow) -> None:
    timeline = window.timeline
    timeline.clip_moved.connect(window.move_clip)
    timeline.seek_requested.connect(window.seek)
    timeline.loop_changed.connect(window.loop_changed)
    timeline.clip_selected.connect(lambda clip_id: _select(window, clip_id))
    timeline.clip_activated.connect(lambda clip_id: _activate(window, clip_id))
    timeline.drag.describe = lambda line_id, start: describe_drop(window, line_id, start)
    SoundTrim(window)  # fade handles, trims and lane mute on the sound lanes (owned by the timeline)

def _is_line(window: StudioWindow, clip_id: str) -> bool:
    return not any(c.id == clip_id for c in window.doc.project.sounds)


def _select(window: StudioWindow, clip_id: str) -> None:
    """A line's clip selects its row in the script; a sound clip, the Sounds panel's form."""
    if _is_line(window, clip_id):
        window.script.select_line(clip_id)


def _activate(window: StudioWindow, clip_id: str) -> None:
    item = window.timeline.clip_item(clip_id)
    if _is_line(window, clip_id):
        window.seek_to_line(clip_id)
    elif item is not None:
        window.seek(item.start)


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


def describe_drop(window: StudioWindow, line_id: str, new_start: float) -> str:
    """What releasing a dragged clip at ``new_start`` will do, in the producer's words: the
    same decision the drop makes (:func:`drop_command`), asked of a copy of the lines, so
    nothing the engine reads changes while the mouse moves."""
    project = window.doc.project
    whatif = Document(replace(project, lines=[replace(line) for line in project.lines]))
    clips = window.timeline.clip_items()
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


def adopt_transport_actions(window: StudioWindow) -> None:
    """The transport bar owns Space, Shift+Space, Home and L; the menus use its actions
    (two actions with one shortcut would make Qt ignore both)."""
    bar = window.transport
    for name, theirs in (("play_pause", bar.play_action), ("stop", bar.stop_action), ("from_start", bar.home_action),
                         ("loop", bar.loop_action)):
        mine = window.actions_[name]
        mine.setShortcuts([])
        mine.deleteLater()
        window.actions_[name] = theirs


def connect_transport(window: StudioWindow) -> None:
    bar = window.transport
    bar.play_toggled.connect(window.set_playing)
    bar.stop_requested.connect(window.stop)
    bar.home_requested.connect(window.from_start)
    bar.loop_toggled.connect(window._loop_toggled)


# ---- engine snapshots -> widgets (drawn by app/live/presenter.py) ---------------
def _lanes(window: StudioWindow) -> list[Lane]:
    """The cast's lanes, then the sound lanes under them (app/sound/lanes.py)."""
    project = window.doc.project
    audible = project.audible_roles()
    return [Lane(r.name, r.colour, r.name not in audible) for r in project.cast] + sound_lanes.sound_lanes(project)


def update_lanes(window: StudioWindow) -> None:
    """The cast changed: the timeline's lanes follow it (they are the cast, always)."""
    window.timeline.set_lanes(_lanes(window))


def show_new_project(window: StudioWindow) -> None:
    """New, Open, Import, Recover: the timeline starts over on the new cast, scrolled to the top
    and the start, with none of the previous project's clips."""
    window.timeline.reset(_lanes(window))


def show_clips(window: StudioWindow, clips: Iterable[Any], sounds: Sequence[Any] = ()) -> None:
    """Line clips and sound clips (the Session's SoundViews, or the estimate before it has any)."""
    project = window.doc.project
    clips = list(clips) + sound_lanes.timeline_clips(project, sounds)
    texts = {line.id: line.text for line in project.lines} | sound_lanes.labels(project, sounds)
    window.timeline.set_clips(clips, texts)
    window.timeline.set_duration(max((c.end for c in clips), default=0.0))


def invalidate_peaks(window: StudioWindow, line_ids: list[str]) -> None:
    window.timeline.invalidate_peaks(line_ids)


def show_playhead(window: StudioWindow, seconds: float) -> None:
    window.timeline.set_playhead(seconds)


def loop_region(window: StudioWindow) -> tuple[float, float] | None:
    return window.timeline.loop_region()


def _by_role(window: StudioWindow, values: Any) -> dict[str, float]:
    if values is None:
        return {}
    if isinstance(values, Mapping):
        return dict(values)
    project = window.doc.project  # MeterSnapshot: cast order, then the sound lanes
    names = project.role_names() + [sound_lanes.lane_key(lane.name) for lane in project.sound_lanes]
    return dict(zip(names, values, strict=False))


def show_transport(window: StudioWindow, snap: Any, levels: Any = None) -> None:
    show_playhead(window, snap.position_s)
    # Nothing plays: the engine meters nothing and its last levels stay; the lanes fall.
    playing = levels is not None and snap.playing
    overs = getattr(levels, "lane_overs", None)  # counted while playing and kept: a pause loses none
    window.timeline.set_lane_levels(_by_role(window, getattr(levels, "lane_peak_db", None) if playing else None),
                                    _by_role(window, getattr(levels, "lane_hold_db", None) if playing else None),
                                    _by_role(window, getattr(levels, "lane_short_term_lufs", None) if playing
                                             else None),
                                    {k: int(v) for k, v in _by_role(window, overs).items()} if overs else None)
    window.transport.update_from(snap, levels)


def show_metrics(window: StudioWindow, metrics: Any) -> None:
    window.monitor.update_from(metrics)
