"""The cast-lane timeline: one lane per role, clips at their times, playhead, zoom, loop, drag.

:class:`TimelineView` is self-contained: it takes plain data (:class:`Lane` records, clip records
with ``line_id, role, start, end, estimated`` such as ``engine.session.ClipView``) and a
``peaks(line_id, columns)`` callable, and reports what the producer did through signals. The
main window turns those signals into seeks, loop changes and undoable clip moves, so nothing
here touches the engine. GUI thread only.

The lanes are the cast, always, then the sound lanes: :meth:`TimelineView.set_lanes` takes them
(each :class:`Lane` of a :class:`LaneKind`, which the studio's drop, trim and menus go by; a
clip is of its lane's kind, :meth:`TimelineView.clip_kind`) and a clip of a lane that is not
among them (a late snapshot of a previous project) is not shown.

What is on the timeline and where (lanes, clips, coordinates) is app/timeline/scene.py; this view
is how the producer looks at it (scroll, zoom, lane height) and acts on it. The ruler (top) and
lane headers (left) sit in the view's margins and map through the view, so everything stays
aligned while scrolling. Dragging lives in app/timeline/drag.py, snapping in app/timeline/snap.py,
the View-menu actions in app/timeline/actions.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import QEvent, QPoint, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QMouseEvent, QPainter, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsView, QWidget

from app.timeline.actions import ZOOM_PRESETS, ViewActions, build_view_actions, wheel_zoom
from app.timeline.drag import ClipDrag
from app.timeline.header import HEADER_WIDTH, LaneHeader
from app.timeline.items import ClipItem, ClipLike, PeaksFn
from app.timeline.ruler import RULER_HEIGHT, Ruler
from app.timeline.scene import (
    COMPACT_LANE_HEIGHT,
    LANE_HEIGHT,
    Lane,
    LaneKind,
    TimelineScene,
)
from app.timeline.snap import Snapper

MIN_ZOOM, MAX_ZOOM = 0.5, 2000.0  # pixels per second

__all__ = ["LANE_HEIGHT", "ZOOM_PRESETS", "Lane", "LaneKind", "TimelineView"]


class TimelineView(QGraphicsView, ViewActions):
    """Cast-lane timeline. See the module docstring for the model; signals:

    * ``clip_moved(line_id, new_start)`` when a dragged clip is released somewhere new;
    * ``clip_selected(line_id)`` when the producer clicks a clip;
    * ``clip_activated(line_id)`` on a double-click;
    * ``seek_requested(seconds)`` on a click on the ruler or an empty part of a lane;
    * ``loop_changed(region)`` with ``(start, end)`` after a drag on the ruler, or ``None`` when
      the loop is cleared (double-click on the ruler, or :attr:`clear_loop_action`).
    """

    clip_moved = Signal(str, float)
    clip_selected = Signal(str)
    clip_activated = Signal(str)
    seek_requested = Signal(float)
    loop_changed = Signal(object)

    def __init__(self, peaks: PeaksFn | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scene = TimelineScene(peaks, ZOOM_PRESETS[1], self)
        self.setScene(self._scene)
        self._playhead_s = 0.0
        self._loop: tuple[float, float] | None = None
        self._selected: str | None = None
        self._locked: frozenset[str] = frozenset()  # lines whose clips show a padlock
        self._mouse_x: float | None = None
        # Lanes fit the view's height (every cast and sound lane in sight) until the producer
        # picks a lane height (Taller/Shorter Lanes, Ctrl+Shift+wheel).
        self._fit_lanes = True
        self.snapper = Snapper(self._scene, self.playhead, lambda: self.snap_action.isChecked())
        #: The clip drag under way, if any; its ``describe`` callable words the drop hint.
        self.drag = ClipDrag(self)

        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.viewport().setMouseTracking(True)
        self.setViewportMargins(HEADER_WIDTH, RULER_HEIGHT, 0, 0)
        self.ruler = Ruler(self, self)
        self.header = LaneHeader(self, self)
        #: Every action of the timeline, for the main window's View menu.
        self.view_actions: list[QAction] = build_view_actions(self, self)
        self._relayout()
        self.set_playhead(0.0)

    # ================================================================= data in

    def set_lanes(self, lanes: Iterable[Lane]) -> None:
        """The cast, one lane per role in order. Clips of roles not in it leave the timeline."""
        for line_id in self._scene.set_lanes(lanes):
            self._forget(line_id)
        self._fit_lane_height()
        self._relayout()

    def set_clips(self, clips: Iterable[ClipLike], texts: Mapping[str, str] | None = None) -> None:
        """Show exactly these clips (those of roles with a lane). Cheap when little changed:
        existing items are updated in place, so calling it on every status tick is fine.
        ``texts`` labels clips (line text)."""
        held = self.drag.holding if self.drag.active else None
        added, removed = self._scene.set_clips(clips, texts or {}, held)
        for item in added:
            item.selected = item.line_id == self._selected
            item.set_locked(item.line_id in self._locked)
        for line_id in removed:
            self._forget(line_id)
        if added or removed:
            self._update_scene_rect()

    def set_locked(self, line_ids: Iterable[str]) -> None:
        """Lines that are locked (they keep their take): their clips carry a padlock."""
        self._locked = frozenset(line_ids)
        for line_id, item in self._scene.clips.items():
            item.set_locked(line_id in self._locked)

    def _forget(self, line_id: str) -> None:
        """A clip left the scene: it is no longer dragged or selected."""
        self.drag.forget(line_id)
        if self._selected == line_id:
            self._selected = None

    def reset(self, lanes: Iterable[Lane]) -> None:
        """A different project: its cast, no clips yet, no loop, playhead and scroll at the start."""
        self._scene.set_lanes([])
        self._scene.duration = 0.0
        self._selected = None
        self._loop = None
        self.set_lanes(lanes)
        self.set_playhead(0.0)
        self.horizontalScrollBar().setValue(0)
        self.verticalScrollBar().setValue(0)
        self.ruler.update()

    def set_duration(self, seconds: float) -> None:
        """The production's length (the transport's), so the view can scroll to its end."""
        self._scene.duration = max(0.0, float(seconds))
        self._update_scene_rect()

    def invalidate_peaks(self, line_ids: Iterable[str] | None = None) -> None:
        """Forget cached waveforms (all, or these lines'): their audio changed in place."""
        self._scene.invalidate_peaks(line_ids)

    def set_lane_levels(self, peaks_db: Mapping[str, float], holds_db: Mapping[str, float] | None = None,
                        loudness: Mapping[str, float] | None = None, overs: Mapping[str, int] | None = None) -> None:
        """Per-role peak dBFS, holds, short-term LUFS and overs (lane meters); a missing role is silent."""
        self.header.set_levels(peaks_db, holds_db, loudness, overs)

    def set_playhead(self, seconds: float) -> None:
        """Move the playhead. Only the strips under the old and new line are repainted, unless
        following scrolls the view (once per page)."""
        seconds = max(0.0, float(seconds))
        was_visible = 0 <= self.x_of(self._playhead_s) <= self.viewport().width()
        self._playhead_s = seconds
        self._scene.edges_changed()
        self._scene.set_playhead(seconds)
        x = self.x_of(seconds)
        width = self.viewport().width()
        if (self.follow_action.isChecked() and was_visible and not self.drag.active
                and not self.ruler.dragging and (x > width - 16 or x < 0)):
            self.horizontalScrollBar().setValue(round(seconds * self.zoom() - 0.1 * width))
            x = self.x_of(seconds)
        self.ruler.playhead_moved(round(x))

    def playhead(self) -> float:
        return self._playhead_s

    def set_loop(self, region: tuple[float, float] | None) -> None:
        """Show a loop region set elsewhere (the transport); emits nothing."""
        if region is not None:
            a, b = sorted((float(region[0]), float(region[1])))
            region = (a, b) if b > a else None
        if region != self._loop:
            self._loop = region
            self._show_loop(region)

    def loop_region(self) -> tuple[float, float] | None:
        return self._loop

    def clear_loop(self) -> None:
        if self._loop is not None:
            self.ruler_loop_selected(None)

    # ================================================================= selection

    def select_line(self, line_id: str | None) -> None:
        """Select a line's clip and scroll it into view (the script editor follows the producer's
        cursor through this). Emits nothing, so the two views cannot ping-pong."""
        self._set_selected(line_id)
        item = self._scene.clips.get(line_id) if line_id else None
        if item is not None:
            self.ensureVisible(item, 40, 8)
            self.ruler.update()
            self.header.update()

    def selected_line(self) -> str | None:
        return self._selected

    def _set_selected(self, line_id: str | None) -> None:
        if line_id == self._selected:
            return
        for key in (self._selected, line_id):
            item = self._scene.clips.get(key) if key else None
            if item is not None:
                item.selected = key == line_id
                item.update()
        self._selected = line_id if line_id in self._scene.clips else None

    # ================================================================= queries

    def lanes(self) -> list[Lane]:
        return list(self._scene.lanes)

    def clip_item(self, line_id: str) -> ClipItem | None:
        return self._scene.clips.get(line_id)

    def clip_items(self) -> list[ClipItem]:
        return list(self._scene.clips.values())

    def clip_kind(self, line_id: str) -> LaneKind | None:
        """A clip's kind (its lane's); None if no such clip is shown."""
        item = self._scene.clips.get(line_id)
        index = self._scene.lane_index.get(item.role) if item is not None else None
        return self._scene.lanes[index].kind if index is not None else None

    def lane_at(self, y: float) -> Lane | None:
        """The lane at viewport (and header) y, if any."""
        for index, lane in enumerate(self._scene.lanes):
            top, height = self.lane_span(index)
            if top <= y < top + height:
                return lane
        return None

    def zoom(self) -> float:
        """Pixels per second."""
        return self._scene.pps

    def lane_height(self) -> int:
        return self._scene.lane_h

    def time_at(self, x: float) -> float:
        """Seconds at viewport (or ruler) x."""
        return (x + self._scene_x0()) / self.zoom()

    def x_of(self, seconds: float) -> float:
        """Viewport (or ruler) x of a time."""
        return seconds * self.zoom() - self._scene_x0()

    def lane_span(self, index: int) -> tuple[float, float]:
        """(top, height) of lane ``index`` in viewport (and header) y."""
        h = self._scene.lane_h
        return float(self.mapFromScene(0.0, float(index * h)).y()), float(h)

    def height_for_lanes(self, lanes: int) -> int:
        """The widget height that shows ``lanes`` whole lanes (ruler and scroll bar included)."""
        return lanes * self._scene.lane_h + RULER_HEIGHT + self.horizontalScrollBar().sizeHint().height()

    def sizeHint(self) -> QSize:
        """What the default layout gives the timeline (the dock may be resized): six lanes at
        full height, or ten compact ones (a cast of seven and the three sound lanes)."""
        lanes_px = max(6 * LANE_HEIGHT, 10 * COMPACT_LANE_HEIGHT)
        return QSize(800, lanes_px + RULER_HEIGHT + self.horizontalScrollBar().sizeHint().height() + 4)

    def _scene_x0(self) -> float:
        return float(self.mapToScene(QPoint(0, 0)).x())

    # ================================================================= zoom and lane height

    def set_zoom(self, px_per_s: float, anchor_x: float | None = None) -> None:
        """Zoom to ``px_per_s`` keeping the time under viewport x ``anchor_x`` in place
        (default: under the mouse if it is over the lanes, else the playhead if visible, else
        the centre)."""
        if anchor_x is None:
            anchor_x = self._default_anchor()
        t = max(0.0, self.time_at(anchor_x))
        self._scene.pps = min(MAX_ZOOM, max(MIN_ZOOM, float(px_per_s)))
        self._relayout()
        self.horizontalScrollBar().setValue(round(t * self.zoom() - anchor_x))
        self._scene.set_playhead(self._playhead_s)
        self.ruler.playhead_moved(round(self.x_of(self._playhead_s)))
        self.ruler.update()
        self.viewport().update()

    def zoom_by(self, factor: float, anchor_x: float | None = None) -> None:
        self.set_zoom(self.zoom() * factor, anchor_x)

    def zoom_preset(self, index: int) -> None:
        self.set_zoom(ZOOM_PRESETS[index])

    def fit(self) -> None:
        """Zoom so the whole production fits the visible width."""
        end = max(self._scene.content_end(), 1.0)
        self.set_zoom((self.viewport().width() - 24) / end, 0.0)
        self.horizontalScrollBar().setValue(0)
        self.ruler.update()

    def set_lane_height(self, px: float) -> None:
        """Every lane ``px`` high (clamped); the lane at the top of the view stays there. The
        producer's choice: lanes no longer fit themselves to the view."""
        self._fit_lanes = False
        old = self._scene.lane_h
        if self._scene.set_lane_height(px) != old:
            first = self.verticalScrollBar().value() / old
            self._relayout()
            self.verticalScrollBar().setValue(round(first * self._scene.lane_h))

    def scale_lanes(self, factor: float) -> None:
        self.set_lane_height(self._scene.lane_h * factor)

    def fits_lanes(self) -> bool:
        """Whether lane height follows the view (no lane height picked yet)."""
        return self._fit_lanes

    def _fit_lane_height(self) -> bool:
        """Until the producer picks a lane height, the lanes fit the view (True if they changed)."""
        return self._fit_lanes and self._scene.fit_lane_height(self.viewport().height())

    def _default_anchor(self) -> float:
        if self._mouse_x is not None:
            return self._mouse_x
        x = self.x_of(self._playhead_s)
        if 0 <= x <= self.viewport().width():
            return x
        return self.viewport().width() / 2.0

    # ================================================================= layout

    def move_item(self, item: ClipItem, start: float) -> None:
        """Show a clip at ``start`` (a drag in progress, or put back after one)."""
        self._scene.move_item(item, start)

    def _relayout(self) -> None:
        self._scene.relayout()
        self._update_scene_rect()
        self._show_loop(self._loop)
        self.viewport().update()

    def _update_scene_rect(self) -> None:
        self._scene.update_rect(float(self.viewport().width()))
        self.drag.set_height(self._scene.lanes_height())
        self.header.update()

    def _show_loop(self, region: tuple[float, float] | None) -> None:
        self._scene.show_loop(region)
        self.ruler.update()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        vg = self.viewport().geometry()
        self.ruler.setGeometry(vg.x(), vg.y() - RULER_HEIGHT, vg.width(), RULER_HEIGHT)
        self.header.setGeometry(vg.x() - HEADER_WIDTH, vg.y(), HEADER_WIDTH, vg.height())
        if self._fit_lane_height():
            self._relayout()
        else:
            self._update_scene_rect()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        if dx:
            self.ruler.update()
        if dy:
            self.header.update()

    # ================================================================= mouse and keys

    def _clip_at(self, pos: QPoint) -> ClipItem | None:
        for item in self.items(pos):
            if isinstance(item, ClipItem):
                return item
        return None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        pos = event.position()
        item = self._clip_at(pos.toPoint())
        if item is not None:
            self._set_selected(item.line_id)
            self.drag.press(item, pos.x())
            self.clip_selected.emit(item.line_id)
        else:
            self.seek_requested.emit(max(0.0, self.time_at(pos.x())))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self._mouse_x = event.position().x()
        if self.drag.holding is None:
            super().mouseMoveEvent(event)
            return
        self.drag.move(self._mouse_x, snap=not (event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self.drag.holding is None:
            super().mouseReleaseEvent(event)
            return
        drop = self.drag.release()
        if drop is not None:
            self._scene.edges_changed()
            self._update_scene_rect()
            self.clip_moved.emit(*drop)
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item = self._clip_at(event.position().toPoint())
        if item is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clip_activated.emit(item.line_id)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.drag.cancel():
            event.accept()
            return
        super().keyPressEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self._mouse_x = None
        super().leaveEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if not wheel_zoom(self, event):
            super().wheelEvent(event)

    # ================================================================= from the ruler

    def ruler_clicked(self, seconds: float) -> None:
        self.seek_requested.emit(seconds)

    def loop_preview(self, region: tuple[float, float] | None) -> None:
        """Shade a loop region being dragged out on the ruler (no signal yet)."""
        self._show_loop(region if region is not None else self._loop)

    def ruler_loop_selected(self, region: tuple[float, float] | None) -> None:
        self._loop = region
        self._show_loop(region)
        self.loop_changed.emit(region)
