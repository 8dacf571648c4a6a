"""Where the main window meets the timeline, transport bar and monitor widgets.

Those widgets (app/timeline/view.py, app/transport/bar.py, app/transport/monitor.py) take
plain data and report through signals; this module makes them, lays them out and turns their
signals into window commands (what a dragged clip's drop does and says, by the clip's kind).
The engine's snapshots are drawn on them by app/live/draw.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from app.document.commands import SetLineFields, move_clip
from app.document.document import Document
from app.script.model import format_time
from app.shell.studio_window import StudioWindow
from app.sound import lanes as sound_lanes
from app.sound.trim import SoundTrim
from app.timeline.items import PeaksFn
from app.timeline.view import LaneKind, TimelineView
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


# The default layout gives the script in the middle most of the width: it is where the producer
# reads and writes. The left column (cast above the monitor) is as wide as the cast's columns up
# to this share of the window (the rest of the cast scrolls sideways). The cast is as tall as
# every role (at least CAST_ROWS); the timeline across the bottom as tall as six lanes where the
# window has the height, less where the cast would not show whole (its lanes shrink to fit).
LEFT_SHARE = 0.36
CAST_ROWS = 7  # roles the cast shows without scrolling, however few the project has yet


def arrange_default(window: StudioWindow) -> None:
    """The default layout, for the window's size as it is: the script with most of the width,
    the cast as wide as its columns allow (LEFT_SHARE) and tall enough for every role, the
    monitor below it with the rest of the left column, the timeline across the bottom. Where
    the window is made smaller later, the panels give way before the script (its minimum
    size: app/script/editor.py)."""
    layout = window.layout()
    if layout is not None:
        layout.activate()  # dock sizes are set against the laid-out window, not a guess
    table = window.cast.view
    header = table.horizontalHeader()
    for col in range(header.count()):  # no header cut to "ariation"
        header.resizeSection(col, max(header.sectionSize(col), header.sectionSizeHint(col)))
    scroll_w = table.verticalScrollBar().sizeHint().width()
    whole = header.length() + 2 * table.frameWidth() + scroll_w + 8
    cast_w = min(whole, int(window.width() * LEFT_SHARE))
    window.resizeDocks([window.cast_dock], [cast_w], Qt.Orientation.Horizontal)
    rows = max(table.model().rowCount(), CAST_ROWS)
    # Dock title and tool bar (laid out above), then the table's header, rows, frame and, where
    # the cast is narrower than its columns, the scroll bar under them.
    sideways = table.horizontalScrollBar().sizeHint().height() if cast_w < whole else 0
    chrome = (window.cast_dock.sizeHint().height() - table.sizeHint().height() + header.sizeHint().height()
              + 2 * table.frameWidth() + sideways)
    cast_h = chrome + rows * table.verticalHeader().defaultSectionSize() + 4  # + what rounding takes
    # The left column holds the cast, the monitor's tab group at its smallest, and their tab bar
    # and separators (what the column has beyond the two docks now); the timeline takes the rest
    # of the height, up to its six lanes.
    below = max(dock.minimumSizeHint().height()
                for dock in (window.monitor_dock, *window.tabifiedDockWidgets(window.monitor_dock)))
    column = window.script.height()
    extra = max(0, column - window.cast_dock.height() - window.monitor_dock.height())
    spare = column + window.timeline_dock.height() - (cast_h + below + extra)
    timeline_h = max(window.timeline_dock.minimumSizeHint().height(),
                     min(window.timeline_dock.sizeHint().height(), spare))
    window.resizeDocks([window.timeline_dock], [timeline_h], Qt.Orientation.Vertical)
    left = window.cast_dock.height() + window.monitor_dock.height()  # sizes that do not add up get scaled
    window.resizeDocks([window.cast_dock, window.monitor_dock], [cast_h, max(below, left - cast_h)],
                       Qt.Orientation.Vertical)
    if layout is not None:
        layout.activate()  # applied now, not on a later turn of the event loop


def arrange_when_shown(window: StudioWindow) -> None:
    """Arrange the default layout again once the window is first shown, at the size it opened
    at (a small screen's, say), rather than the size it was made at."""
    window.installEventFilter(_FirstShow(window))


class _FirstShow(QObject):
    def __init__(self, window: StudioWindow) -> None:
        super().__init__(window.window())
        self.window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Show:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self, lambda: arrange_default(self.window))  # once it is laid out
        return False


def reset_layout(window: StudioWindow, default_state: QByteArray) -> None:
    """View > Reset Layout: every panel back in its place, sized for the window as it is now."""
    window.restoreState(default_state)
    arrange_default(window)


def set_tab_order(window: StudioWindow) -> None:
    """Tab goes through the window as a producer works: the script (with its find bar when it is
    open), the cast, the timeline. Each table gives Tab up (no cell to cell), so it never traps it."""
    for first, second in itertools.pairwise((window.script, window.cast, window.timeline)):
        QWidget.setTabOrder(first, second)


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
    timeline.drag.describe = lambda clip_id, start: describe_move(window, clip_id, start)
    SoundTrim(window)  # fade handles, trims and lane mute on the sound lanes (owned by the timeline)


def _select(window: StudioWindow, clip_id: str) -> None:
    """A line's clip selects its row in the script (a sound clip's, the Sounds panel's form)."""
    if window.timeline.clip_kind(clip_id) is LaneKind.CAST:
        window.script.select_line(clip_id)


def _activate(window: StudioWindow, clip_id: str) -> None:
    item = window.timeline.clip_item(clip_id)
    if window.timeline.clip_kind(clip_id) is LaneKind.CAST:
        window.seek_to_line(clip_id)
    elif item is not None:
        window.seek(item.start)


def describe_move(window: StudioWindow, clip_id: str, new_start: float) -> str:
    """The drag hint of a clip of either kind: what releasing it at ``new_start`` will do."""
    if window.timeline.clip_kind(clip_id) is LaneKind.SOUND:
        clip = window.doc.sound_clip(clip_id)
        if clip is None:
            return ""
        fields = sound_lanes.drop_fields(clip, window.presenter.sounds(), window.presenter.clips(), new_start)
        return sound_lanes.describe_drop(window.doc.project, clip, fields, new_start)
    return describe_drop(window, clip_id, new_start)


def drop_command(doc: Document, clips: Iterable[Any], line_id: str, new_start: float) -> SetLineFields:
    """The edit a clip dropped at ``new_start`` makes, from the clips the timeline shows.
    Placement is relative (a pause after the previous line, an overlap of it) even while lines
    before it are unvoiced and their lengths estimates: the pause the producer dragged out
    stays a pause when the real audio arrives, where a pin would leave a hole (or a collision)
    as long as the estimate was wrong."""
    return move_clip(doc, line_id, new_start, {c.line_id: c.end - c.start for c in clips})


def describe_drop(window: StudioWindow, line_id: str, new_start: float) -> str:
    """What releasing a dragged clip at ``new_start`` will do, in the producer's words: the
    same decision the drop makes (:func:`drop_command`), asked of a copy of the lines, so
    nothing the engine reads changes while the mouse moves."""
    project = window.doc.project
    whatif = Document(replace(project, lines=[replace(line) for line in project.lines]))
    clips = [c for c in window.timeline.clip_items() if window.timeline.clip_kind(c.line_id) is LaneKind.CAST]
    command = drop_command(whatif, clips, line_id, new_start)
    if not command.new:
        return "stays where it is"
    line = whatif.project.line(line_id)
    final = {"start": line.start, "overlap": line.overlap, "pause_before": line.pause_before, **command.new}
    if final["start"] is not None:
        return f"pinned at {format_time(final['start'])}"
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
