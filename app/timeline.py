"""The cast-lane timeline: one lane per role, clips at their times, playhead, zoom, loop, drag.

:class:`TimelineView` is self-contained: it takes plain data (:class:`Lane` records, clip records
with ``line_id, role, start, end, estimated`` such as ``engine.session.ClipView``) and a
``peaks(line_id, columns)`` callable, and reports what the producer did through signals. The
main window turns those signals into seeks, loop changes and undoable clip moves, so nothing
here touches the engine. GUI thread only.

Coordinates: scene x = seconds * zoom (pixels per second), lane ``i`` spans scene y
``[i * LANE_HEIGHT, (i + 1) * LANE_HEIGHT)``. The ruler (top) and lane headers (left) sit in the
view's margins and map through the view, so everything stays aligned while scrolling.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QApplication, QFrame, QGraphicsScene, QGraphicsView, QWidget

from app.timeline_header import HEADER_WIDTH, LaneHeader
from app.timeline_items import (
    Z_CLIP,
    Z_DRAGGED,
    ClipItem,
    ClipLike,
    LoopShade,
    PeaksFn,
    PlayheadItem,
    SnapGuide,
)
from app.timeline_ruler import RULER_HEIGHT, Ruler, tick_steps
from app.timeline_snap import snap as snap_times

LANE_HEIGHT = 64
CLIP_MARGIN = 4
MIN_ZOOM, MAX_ZOOM = 0.5, 2000.0  # pixels per second
#: Ctrl+1/2/3: the whole act, a few lines, words within a line.
ZOOM_PRESETS = (10.0, 50.0, 250.0)
WHEEL_ZOOM_STEP = 1.25  # zoom factor per wheel notch (120 eighths of a degree)
UNKNOWN_LANE_COLOUR = "#888888"


@dataclass(frozen=True)
class Lane:
    """A lane: the role's name, its colour ("#rrggbb") and whether it is silent in the mix."""

    name: str
    colour: str
    muted: bool = False


@dataclass
class _Drag:
    item: ClipItem
    press_x: float
    origin: float
    active: bool = False
    start: float = 0.0
    targets: np.ndarray | None = None


class TimelineView(QGraphicsView):
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
        self._peaks = peaks
        self._pps = ZOOM_PRESETS[1]
        self._lanes: list[Lane] = []
        self._lane_index: dict[str, int] = {}
        self._items: dict[str, ClipItem] = {}
        self._edges: np.ndarray | None = None  # sorted clip edges for snapping (lazy)
        self._duration = 0.0
        self._playhead_s = 0.0
        self._loop: tuple[float, float] | None = None
        self._selected: str | None = None
        self._drag: _Drag | None = None
        self._mouse_x: float | None = None

        scene = QGraphicsScene(self)
        scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.setScene(scene)
        self._playhead = PlayheadItem()
        self._loop_shade = LoopShade()
        self._guide = SnapGuide()
        for item in (self._playhead, self._loop_shade, self._guide):
            scene.addItem(item)

        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.viewport().setMouseTracking(True)
        self.setViewportMargins(HEADER_WIDTH, RULER_HEIGHT, 0, 0)
        self.ruler = Ruler(self)
        self.header = LaneHeader(self)
        self._make_actions()
        self._relayout()
        self.set_playhead(0.0)

    # ================================================================= actions

    def _make_actions(self) -> None:
        def action(text: str, keys: list[QKeySequence], slot: object, tip: str) -> QAction:
            a = QAction(text, self)
            a.setShortcuts(keys)
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            a.setToolTip(tip)
            a.triggered.connect(slot)
            self.addAction(a)
            return a

        std = QKeySequence.StandardKey
        self.zoom_in_action = action("Zoom In", [QKeySequence(std.ZoomIn), QKeySequence("Ctrl+=")],
                                     lambda: self.zoom_by(2.0), "Zoom in around the mouse")
        self.zoom_out_action = action("Zoom Out", [QKeySequence(std.ZoomOut)], lambda: self.zoom_by(0.5),
                                      "Zoom out around the mouse")
        names = ("Zoom: Whole Scenes", "Zoom: Lines", "Zoom: Words")
        self.zoom_preset_actions = [
            action(name, [QKeySequence(f"Ctrl+{i + 1}")], lambda _=False, i=i: self.zoom_preset(i),
                   f"{ZOOM_PRESETS[i]:g} pixels per second")
            for i, name in enumerate(names)]
        self.fit_action = action("Zoom to Fit", [QKeySequence("Ctrl+0")], self.fit,
                                 "Show the whole production")
        self.clear_loop_action = action("Clear Loop Region", [], self.clear_loop, "Play without looping")
        self.snap_action = QAction("Snap to Clips and Grid", self)
        self.snap_action.setCheckable(True)
        self.snap_action.setChecked(True)
        self.snap_action.setToolTip("Dragged clips snap to other clips' edges and the grid (hold Shift to "
                                    "place freely)")
        self.follow_action = QAction("Follow Playhead", self)
        self.follow_action.setCheckable(True)
        self.follow_action.setChecked(True)
        #: Every action of the timeline, for the main window's View menu.
        self.view_actions: list[QAction] = [self.zoom_in_action, self.zoom_out_action,
                                            *self.zoom_preset_actions, self.fit_action, self.clear_loop_action,
                                            self.snap_action, self.follow_action]

    # ================================================================= data in

    def set_lanes(self, lanes: Iterable[Lane]) -> None:
        """One lane per role, in order. Clips of roles without a lane get a grey lane at the end."""
        self._lanes = [lane if isinstance(lane, Lane) else Lane(*lane) for lane in lanes]
        self._lane_index = {lane.name: i for i, lane in enumerate(self._lanes)}
        for item in self._items.values():
            self._ensure_lane(item.role)
            item.setOpacity(0.35 if self._lanes[self._lane_index[item.role]].muted else 1.0)
        self._relayout()

    def set_clips(self, clips: Iterable[ClipLike], texts: Mapping[str, str] | None = None) -> None:
        """Show exactly these clips. Cheap when little changed: existing items are updated in
        place, so calling it on every status tick is fine. ``texts`` labels clips (line text)."""
        texts = texts or {}
        scene = self.scene()
        seen: set[str] = set()
        moved = False
        for clip in clips:
            seen.add(clip.line_id)
            self._ensure_lane(clip.role)
            colour = QColor(self._lanes[self._lane_index[clip.role]].colour)
            label = texts.get(clip.line_id, "")
            item = self._items.get(clip.line_id)
            if item is None:
                item = ClipItem(clip, colour, self._peaks, label)
                item.selected = clip.line_id == self._selected
                self._items[clip.line_id] = item
                scene.addItem(item)
                moved = True
            elif self._drag is not None and self._drag.item is item and self._drag.active:
                continue  # the producer is holding it; the release decides where it goes
            else:
                moved |= item.update_from(clip, colour, label)
            item.setOpacity(0.35 if self._lanes[self._lane_index[clip.role]].muted else 1.0)
            self._place(item)
        for line_id in [k for k in self._items if k not in seen]:
            item = self._items.pop(line_id)
            if self._drag is not None and self._drag.item is item:
                self._drag = None
            scene.removeItem(item)
            moved = True
            if self._selected == line_id:
                self._selected = None
        if moved:
            self._edges = None
            self._update_scene_rect()

    def set_duration(self, seconds: float) -> None:
        """The production's length (the transport's), so the view can scroll to its end."""
        self._duration = max(0.0, float(seconds))
        self._update_scene_rect()

    def invalidate_peaks(self, line_ids: Iterable[str] | None = None) -> None:
        """Forget cached waveforms (all, or these lines'): their audio changed in place."""
        for line_id in (self._items if line_ids is None else line_ids):
            item = self._items.get(line_id)
            if item is not None:
                item.invalidate_peaks()

    def set_lane_levels(self, peaks_db: Mapping[str, float]) -> None:
        """Per-role peak dBFS (the engine's lane meters) as small bars under the lane names."""
        self.header.set_levels(dict(peaks_db))

    def set_playhead(self, seconds: float) -> None:
        """Move the playhead. Only the strips under the old and new line are repainted, unless
        following scrolls the view (once per page)."""
        seconds = max(0.0, float(seconds))
        was_visible = 0 <= self.x_of(self._playhead_s) <= self.viewport().width()
        self._playhead_s = seconds
        self._edges = None
        self._playhead.setPos(seconds * self._pps, 0.0)
        x = self.x_of(seconds)
        width = self.viewport().width()
        if (self.follow_action.isChecked() and was_visible and self._drag is None
                and not self.ruler.dragging and (x > width - 16 or x < 0)):
            self.horizontalScrollBar().setValue(round(seconds * self._pps - 0.1 * width))
            x = self.x_of(seconds)
        self.ruler.playhead_moved(round(x))

    def playhead(self) -> float:
        return self._playhead_s

    def set_loop(self, region: tuple[float, float] | None) -> None:
        """Show a loop region set elsewhere (the transport); emits nothing."""
        if region is not None:
            a, b = float(region[0]), float(region[1])
            region = (min(a, b), max(a, b))
            if region[1] - region[0] <= 0:
                region = None
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
        item = self._items.get(line_id) if line_id else None
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
            item = self._items.get(key) if key else None
            if item is not None:
                item.selected = key == line_id
                item.update()
        self._selected = line_id if line_id in self._items else None

    # ================================================================= queries

    def lanes(self) -> list[Lane]:
        return list(self._lanes)

    def clip_item(self, line_id: str) -> ClipItem | None:
        return self._items.get(line_id)

    def clip_items(self) -> list[ClipItem]:
        return list(self._items.values())

    def zoom(self) -> float:
        """Pixels per second."""
        return self._pps

    def time_at(self, x: float) -> float:
        """Seconds at viewport (or ruler) x."""
        return (x + self._scene_x0()) / self._pps

    def x_of(self, seconds: float) -> float:
        """Viewport (or ruler) x of a time."""
        return seconds * self._pps - self._scene_x0()

    def lane_span(self, index: int) -> tuple[float, float]:
        """(top, height) of lane ``index`` in viewport (and header) y."""
        top = self.mapFromScene(0.0, float(index * LANE_HEIGHT)).y()
        return float(top), float(LANE_HEIGHT)

    def _scene_x0(self) -> float:
        return float(self.mapToScene(QPoint(0, 0)).x())

    # ================================================================= zoom

    def set_zoom(self, px_per_s: float, anchor_x: float | None = None) -> None:
        """Zoom to ``px_per_s`` keeping the time under viewport x ``anchor_x`` in place
        (default: under the mouse if it is over the lanes, else the playhead if visible, else
        the centre)."""
        if anchor_x is None:
            anchor_x = self._default_anchor()
        t = max(0.0, self.time_at(anchor_x))
        self._pps = min(MAX_ZOOM, max(MIN_ZOOM, float(px_per_s)))
        self._relayout()
        self.horizontalScrollBar().setValue(round(t * self._pps - anchor_x))
        self._playhead.setPos(self._playhead_s * self._pps, 0.0)
        self.ruler.playhead_moved(round(self.x_of(self._playhead_s)))
        self.ruler.update()
        self.viewport().update()

    def zoom_by(self, factor: float, anchor_x: float | None = None) -> None:
        self.set_zoom(self._pps * factor, anchor_x)

    def zoom_preset(self, index: int) -> None:
        self.set_zoom(ZOOM_PRESETS[index])

    def fit(self) -> None:
        """Zoom so the whole production fits the visible width."""
        end = max(self._content_end(), 1.0)
        self.set_zoom((self.viewport().width() - 24) / end, 0.0)
        self.horizontalScrollBar().setValue(0)
        self.ruler.update()

    def _default_anchor(self) -> float:
        if self._mouse_x is not None:
            return self._mouse_x
        x = self.x_of(self._playhead_s)
        if 0 <= x <= self.viewport().width():
            return x
        return self.viewport().width() / 2.0

    # ================================================================= layout

    def _ensure_lane(self, role: str) -> None:
        if role not in self._lane_index:
            self._lane_index[role] = len(self._lanes)
            self._lanes.append(Lane(role, UNKNOWN_LANE_COLOUR))
            self._update_scene_rect()
            self.header.update()

    def _place(self, item: ClipItem) -> None:
        lane = self._lane_index[item.role]
        item.set_geometry(item.start * self._pps, lane * LANE_HEIGHT + CLIP_MARGIN,
                          item.duration * self._pps, LANE_HEIGHT - 2 * CLIP_MARGIN)

    def _relayout(self) -> None:
        for item in self._items.values():
            self._place(item)
        self._update_scene_rect()
        self._show_loop(self._loop)
        self.viewport().update()
        self.header.update()

    def _content_end(self) -> float:
        end = max((item.end for item in self._items.values()), default=0.0)
        return max(end, self._duration)

    def _update_scene_rect(self) -> None:
        width = max(self._content_end() * self._pps + 0.5 * self.viewport().width(), float(self.viewport().width()))
        height = max(len(self._lanes) * LANE_HEIGHT, 1)
        self.scene().setSceneRect(QRectF(0.0, 0.0, width, float(height)))
        self._playhead.set_height(height)
        self._guide.setLine(0.0, 0.0, 0.0, float(height))
        self.header.update()

    def _show_loop(self, region: tuple[float, float] | None) -> None:
        if region is None:
            self._loop_shade.hide()
        else:
            h = max(len(self._lanes) * LANE_HEIGHT, 1)
            self._loop_shade.setRect(QRectF(region[0] * self._pps, 0.0, (region[1] - region[0]) * self._pps, h))
            self._loop_shade.show()
        self.ruler.update()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        vg = self.viewport().geometry()
        self.ruler.setGeometry(vg.x(), vg.y() - RULER_HEIGHT, vg.width(), RULER_HEIGHT)
        self.header.setGeometry(vg.x() - HEADER_WIDTH, vg.y(), HEADER_WIDTH, vg.height())
        self._update_scene_rect()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        if dx:
            self.ruler.update()
        if dy:
            self.header.update()

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        # 1-px fillRects, not drawLine: on the raster engine a translucent line costs ~40x more.
        pal = self.palette()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(rect, pal.base())
        separator = pal.mid().color()
        for i, lane in enumerate(self._lanes):
            top = i * LANE_HEIGHT
            if top > rect.bottom() or top + LANE_HEIGHT < rect.top():
                continue
            band = QColor(lane.colour)
            band.setAlpha(10 if lane.muted else (22 if i % 2 else 30))
            painter.fillRect(QRectF(rect.left(), top, rect.width(), LANE_HEIGHT), band)
            painter.fillRect(QRectF(rect.left(), top + LANE_HEIGHT - 1, rect.width(), 1.0), separator)
        major, minor = tick_steps(self._pps)
        grid = QColor(pal.text().color())
        for step, alpha in ((minor, 14), (major, 38)):
            if step * self._pps < 6:
                continue
            grid.setAlpha(alpha)
            k0, k1 = math.floor(rect.left() / (step * self._pps)), math.ceil(rect.right() / (step * self._pps))
            for k in range(max(0, k0), k1 + 1):
                painter.fillRect(QRectF(round(k * step * self._pps), rect.top(), 1.0, rect.height()), grid)

    # ================================================================= snapping

    def _snap_targets(self, exclude: ClipItem | None = None) -> np.ndarray:
        """Sorted times a clip or loop edge may snap to: 0, the playhead and every clip edge
        (except those of ``exclude``, the clip being dragged)."""
        if exclude is None and self._edges is not None:
            return self._edges
        edges = [0.0, self._playhead_s]
        for item in self._items.values():
            if item is not exclude:
                edges += (item.start, item.end)
        targets = np.unique(np.asarray(edges, dtype=np.float64))
        if exclude is None:
            self._edges = targets
        return targets

    def snap_clip_start(self, item: ClipItem, start: float, snap: bool = True) -> tuple[float, float | None]:
        """Where a clip dragged to ``start`` lands: its start or end snapped to another clip's
        edge (or the playhead, or 0), else to the grid (the ruler's minor ticks), within
        SNAP_PX (see app.timeline_snap). Returns (start, the
        time it snapped to or None)."""
        start = max(0.0, start)
        if not snap or not self.snap_action.isChecked():
            return start, None
        drag = self._drag
        if drag is not None and drag.item is item:
            if drag.targets is None:
                drag.targets = self._snap_targets(exclude=item)
            targets = drag.targets
        else:
            targets = self._snap_targets(exclude=item)
        hit = snap_times((start, start + item.duration), targets, tick_steps(self._pps)[1], self._pps)
        if hit is None:
            return start, None
        return max(0.0, start + hit[0]), hit[1]

    def snap_time(self, t: float, snap: bool = True) -> float:
        """A time (a loop edge) snapped to clip edges, the playhead or the grid."""
        if not snap or not self.snap_action.isChecked():
            return t
        hit = snap_times((t,), self._snap_targets(), tick_steps(self._pps)[1], self._pps)
        return t if hit is None else t + hit[0]

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
            self._drag = _Drag(item, pos.x(), item.start, start=item.start)
            self.clip_selected.emit(item.line_id)
        else:
            self.seek_requested.emit(max(0.0, self.time_at(pos.x())))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        x = event.position().x()
        self._mouse_x = x
        drag = self._drag
        if drag is None:
            super().mouseMoveEvent(event)
            return
        if not drag.active and abs(x - drag.press_x) < QApplication.startDragDistance():
            return
        drag.active = True
        drag.item.setZValue(Z_DRAGGED)
        snap = not (event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        start, target = self.snap_clip_start(drag.item, drag.origin + (x - drag.press_x) / self._pps, snap)
        drag.start = start
        self._move_item(drag.item, start)
        if target is None:
            self._guide.hide()
        else:
            self._guide.setPos(target * self._pps, 0.0)
            self._guide.show()
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        drag, self._drag = self._drag, None
        if drag is None or event.button() != Qt.MouseButton.LeftButton:
            super().mouseReleaseEvent(event)
            return
        self._guide.hide()
        drag.item.setZValue(Z_CLIP)
        if drag.active and abs(drag.start - drag.origin) > 1e-9:
            self._edges = None
            self._update_scene_rect()
            self.clip_moved.emit(drag.item.line_id, drag.start)
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item = self._clip_at(event.position().toPoint())
        if item is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clip_activated.emit(item.line_id)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self._drag is not None:
            drag, self._drag = self._drag, None
            self._move_item(drag.item, drag.origin)
            drag.item.setZValue(Z_CLIP)
            self._guide.hide()
            event.accept()
            return
        super().keyPressEvent(event)

    def leaveEvent(self, event: object) -> None:
        self._mouse_x = None
        super().leaveEvent(event)  # type: ignore[arg-type]

    def wheelEvent(self, event: QWheelEvent) -> None:
        mods = event.modifiers()
        delta = event.angleDelta()
        if mods & Qt.KeyboardModifier.ControlModifier:
            notches = delta.y() / 120.0 if delta.y() else delta.x() / 120.0
            if notches:
                self.zoom_by(WHEEL_ZOOM_STEP ** notches, event.position().x())
            event.accept()
            return
        if mods & Qt.KeyboardModifier.ShiftModifier and delta.y():
            bar = self.horizontalScrollBar()
            bar.setValue(bar.value() - delta.y())
            event.accept()
            return
        super().wheelEvent(event)

    def _move_item(self, item: ClipItem, start: float) -> None:
        duration = item.duration
        item.start, item.end = start, start + duration
        self._place(item)

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
