"""What is on the timeline: the cast's lanes and the clips on them, at a zoom and a lane height.

:class:`TimelineScene` owns the lanes (exactly the cast), one :class:`ClipItem` per line of a
role with a lane, the playhead line and the loop shade, and places them: scene x = seconds *
``pps`` (pixels per second), lane ``i`` spans scene y ``[i * lane_h, (i + 1) * lane_h)``. It
paints the lane bands and the time grid behind the clips. How the producer looks at it
(scrolling, zoom anchoring) and acts on it (clicks, drags) is the view's (app/timeline/view.py).
GUI thread only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

import numpy as np
from PySide6.QtCore import QObject, QRect, QRectF
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QGraphicsScene

from app.timeline.items import ClipItem, ClipLike, LoopShade, PeaksFn, PlayheadItem
from app.timeline.ruler import tick_steps
from app.timeline.snap import edge_targets

#: Default lane height: a clip's label and waveform stay legible, and six lanes fit a 1000 px window.
LANE_HEIGHT = 44
MIN_LANE_HEIGHT, MAX_LANE_HEIGHT = 24, 200
# Lanes shrink to this to fit the view (name and meter bar still readable, the dB scale hidden).
COMPACT_LANE_HEIGHT = 28
CLIP_MARGIN = 3
MUTED_OPACITY = 0.35


class LaneKind(Enum):
    """What a lane holds, and so what the studio does with it and its clips (drop, trim, menu):
    a role's lines, or a sound lane's sound clips. A clip is of its lane's kind."""

    CAST = "cast"
    SOUND = "sound"


@dataclass(frozen=True)
class Lane:
    """A lane: its key (what clips name as their ``role``, shown in its header), its colour
    ("#rrggbb") and whether it is silent in the mix; ``detail`` is shown after the name in its
    header (a sound lane's ducking). ``source`` is the name of the role or sound lane it shows
    (empty: the same as ``name``)."""

    name: str
    colour: str
    muted: bool = False
    detail: str = ""
    kind: LaneKind = LaneKind.CAST
    source: str = ""

    @property
    def subject(self) -> str:
        """The role's or sound lane's own name."""
        return self.source or self.name


class TimelineScene(QGraphicsScene):
    def __init__(self, peaks: PeaksFn | None, pps: float, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self._peaks = peaks
        self.pps = pps
        self.lane_h = LANE_HEIGHT
        self.lanes: list[Lane] = []
        self.lane_index: dict[str, int] = {}
        self.clips: dict[str, ClipItem] = {}
        self.duration = 0.0
        self._edges: np.ndarray | None = None  # sorted clip edges for snapping (lazy)
        self._min_width = 0.0
        self.playhead = PlayheadItem()
        self.loop_shade = LoopShade()
        self.addItem(self.playhead)
        self.addItem(self.loop_shade)

    # ------------------------------------------------------------------ lanes and clips

    def set_lanes(self, lanes: Iterable[Lane]) -> list[str]:
        """The cast, in order; returns the lines whose clips left with their role's lane."""
        self.lanes = [lane if isinstance(lane, Lane) else Lane(*lane) for lane in lanes]
        self.lane_index = {lane.name: i for i, lane in enumerate(self.lanes)}
        gone = [k for k, item in self.clips.items() if item.role not in self.lane_index]
        for line_id in gone:
            self.remove(line_id)
        for item in self.clips.values():
            item.setOpacity(self._opacity(item.role))
        self.relayout()
        return gone

    def set_clips(self, clips: Iterable[ClipLike], texts: Mapping[str, str],
                  held: ClipItem | None = None) -> tuple[list[ClipItem], list[str]]:
        """Show exactly ``clips`` of roles with a lane, updating items in place; ``held`` (a
        clip being dragged) keeps where the producer holds it. Returns (new items, removed
        line ids)."""
        seen: set[str] = set()
        added: list[ClipItem] = []
        changed = False
        for clip in clips:
            lane = self.lane_index.get(clip.role)
            if lane is None:
                continue  # not in the cast (a late snapshot of another project)
            seen.add(clip.line_id)
            colour = QColor(getattr(clip, "colour", None) or self.lanes[lane].colour)  # red: a problem
            label = texts.get(clip.line_id, "")
            item = self.clips.get(clip.line_id)
            if item is None:
                item = self.clips[clip.line_id] = ClipItem(clip, colour, self._peaks, label)
                self.addItem(item)
                added.append(item)
            elif item is held:
                continue
            else:
                changed |= item.update_from(clip, colour, label)
            item.setOpacity(self._opacity(clip.role))
            self.place(item)
        removed = [k for k in self.clips if k not in seen]
        for line_id in removed:
            self.remove(line_id)
        if added or removed or changed:
            self.edges_changed()
        return added, removed

    def invalidate_peaks(self, line_ids: Iterable[str] | None = None) -> None:
        for line_id in (self.clips if line_ids is None else line_ids):
            item = self.clips.get(line_id)
            if item is not None:
                item.invalidate_peaks()

    def remove(self, line_id: str) -> ClipItem:
        item = self.clips.pop(line_id)
        self.removeItem(item)
        return item

    def _opacity(self, role: str) -> float:
        return MUTED_OPACITY if self.lanes[self.lane_index[role]].muted else 1.0

    # ------------------------------------------------------------------ geometry

    def place(self, item: ClipItem) -> None:
        lane, h = self.lane_index[item.role], self.lane_h
        item.set_geometry(item.start * self.pps, lane * h + CLIP_MARGIN, item.duration * self.pps,
                          h - 2 * CLIP_MARGIN)

    def move_item(self, item: ClipItem, start: float) -> None:
        duration = item.duration
        item.start, item.end = start, start + duration
        self.place(item)

    def relayout(self) -> None:
        """Place everything again (the zoom or the lane height changed)."""
        for item in self.clips.values():
            self.place(item)
        self.update_rect()

    def content_end(self) -> float:
        end = max((item.end for item in self.clips.values()), default=0.0)
        return max(end, self.duration)

    def set_positions(self, paths: Mapping[str, tuple[tuple[float, float, float], ...]]) -> None:
        """Staged lines' pan and distance keyframes, drawn on their clips (others: none)."""
        for line_id, item in self.clips.items():
            item.set_position(paths.get(line_id, ()))

    def set_lane_height(self, px: float) -> int:
        """Every lane ``px`` high, clamped to what a lane can show; the height it got."""
        self.lane_h = round(min(MAX_LANE_HEIGHT, max(MIN_LANE_HEIGHT, px)))
        return self.lane_h

    def fit_lane_height(self, view_height: int) -> bool:
        """Lanes as tall as lets every one show in ``view_height`` (never taller than
        :data:`LANE_HEIGHT`, never shorter than :data:`COMPACT_LANE_HEIGHT`: past that the view
        scrolls). True if the height changed."""
        if not self.lanes:
            return False
        new = min(LANE_HEIGHT, max(COMPACT_LANE_HEIGHT, view_height // len(self.lanes)))
        changed, self.lane_h = new != self.lane_h, new
        return changed

    def lanes_height(self) -> float:
        return float(max(len(self.lanes) * self.lane_h, 1))

    def update_rect(self, min_width: float | None = None) -> None:
        """Room to scroll half a view past the end; ``min_width`` is the viewport's width."""
        if min_width is not None:
            self._min_width = min_width
        width = max(self.content_end() * self.pps + 0.5 * self._min_width, self._min_width)
        height = self.lanes_height()
        self.setSceneRect(QRectF(0.0, 0.0, width, height))
        self.playhead.set_height(height)

    def set_playhead(self, seconds: float) -> None:
        self.playhead.setPos(seconds * self.pps, 0.0)

    def show_loop(self, region: tuple[float, float] | None) -> None:
        if region is None:
            self.loop_shade.hide()
            return
        self.loop_shade.setRect(QRectF(region[0] * self.pps, 0.0, (region[1] - region[0]) * self.pps,
                                       self.lanes_height()))
        self.loop_shade.show()

    # ------------------------------------------------------------------ snapping

    def edges_changed(self) -> None:
        self._edges = None

    def snap_targets(self, playhead_s: float, exclude: ClipItem | None = None) -> np.ndarray:
        """Sorted times a clip or loop edge may snap to: 0, the playhead and every clip edge
        (except those of ``exclude``, the clip being dragged)."""
        if exclude is None and self._edges is not None:
            return self._edges
        targets = edge_targets(((i.start, i.end) for i in self.clips.values() if i is not exclude), playhead_s)
        if exclude is None:
            self._edges = targets
        return targets

    # ------------------------------------------------------------------ painting

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        rect = QRectF(rect)  # Qt passes a QRectF; the override keeps the base's signature
        # 1-px fillRects, not drawLine: on the raster engine a translucent line costs ~40x more.
        pal = self.palette()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(rect, pal.base())
        separator = pal.mid().color()
        h = self.lane_h
        for i, lane in enumerate(self.lanes):
            top = i * h
            if top > rect.bottom() or top + h < rect.top():
                continue
            band = QColor(lane.colour)
            band.setAlpha(10 if lane.muted else (22 if i % 2 else 30))
            painter.fillRect(QRectF(rect.left(), top, rect.width(), h), band)
            painter.fillRect(QRectF(rect.left(), top + h - 1, rect.width(), 1.0), separator)
        major, minor = tick_steps(self.pps)
        grid = QColor(pal.text().color())
        for step, alpha in ((minor, 14), (major, 38)):
            if step * self.pps < 6:
                continue
            grid.setAlpha(alpha)
            k0, k1 = math.floor(rect.left() / (step * self.pps)), math.ceil(rect.right() / (step * self.pps))
            for k in range(max(0, k0), k1 + 1):
                painter.fillRect(QRectF(round(k * step * self.pps), rect.top(), 1.0, rect.height()), grid)
