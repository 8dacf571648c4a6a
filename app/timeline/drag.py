"""Dragging a clip on the timeline: follow the mouse, snap, say what the drop will do, report it.

:class:`ClipDrag` is the view's drag controller. The view hands it mouse events; it moves the
held clip (snapped by :mod:`app.timeline.snap` unless Shift is held), shows the snap guide and
a hint that says what releasing here will do ("pause 1.2 s", "overlaps ... by 0.4 s", "pinned
at 01:23.4") and, on release, returns the drop for the view to emit. What a drop does is
decided outside the widget (the ``describe`` callable the main window supplies asks the same
function the undo command uses), so the hint and the edit can never disagree. GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from PySide6.QtCore import QRect
from PySide6.QtGui import QPolygonF
from PySide6.QtWidgets import QApplication, QGraphicsScene, QWidget

from app.timeline.items import Z_CLIP, Z_DRAGGED, ClipItem, DropHint, SnapGuide

#: ``describe(line_id, new_start)`` -> what dropping the line's clip at ``new_start`` does.
DescribeDrop = Callable[[str, float], str]


class _Snapper(Protocol):
    def targets(self, exclude: ClipItem | None = None) -> np.ndarray: ...
    def clip_start(self, item: ClipItem, start: float, snap_on: bool = True,
                   targets: np.ndarray | None = None) -> tuple[float, float | None]: ...


class _View(Protocol):
    """What a drag asks of the timeline view (app/timeline/view.py)."""

    @property
    def snapper(self) -> _Snapper: ...


    def scene(self) -> QGraphicsScene: ...
    def zoom(self) -> float: ...
    def move_item(self, item: ClipItem, start: float) -> None: ...
    def viewport(self) -> QWidget: ...
    def mapToScene(self, rect: QRect) -> QPolygonF: ...


@dataclass
class _Held:
    item: ClipItem
    press_x: float
    origin: float
    active: bool = False
    start: float = 0.0
    targets: np.ndarray | None = None  # snap targets without the held clip's own edges
    described: float | None = None  # the start the hint was last computed for


class ClipDrag:
    def __init__(self, view: _View) -> None:
        self._view = view
        self._held: _Held | None = None
        self.describe: DescribeDrop | None = None
        self.guide = SnapGuide()
        self.hint = DropHint()
        view.scene().addItem(self.guide)
        view.scene().addItem(self.hint)

    # ------------------------------------------------------------------ state

    @property
    def active(self) -> bool:
        """A clip is being moved (pressed and dragged past the start distance)."""
        return self._held is not None and self._held.active

    @property
    def holding(self) -> ClipItem | None:
        """The clip under the pressed mouse button, moved or not yet."""
        return self._held.item if self._held is not None else None

    def forget(self, line_id: str) -> None:
        """A clip left the timeline (its line was deleted): drop a gesture that holds it."""
        if self._held is not None and self._held.item.line_id == line_id:
            self._end()

    def targets_for(self, item: ClipItem) -> np.ndarray | None:
        """Snap targets cached for this drag (None if ``item`` is not the held clip)."""
        held = self._held
        if held is None or held.item is not item:
            return None
        if held.targets is None:
            held.targets = self._view.snapper.targets(exclude=item)
        return held.targets

    def set_height(self, height: float) -> None:
        self.guide.setLine(0.0, 0.0, 0.0, height)

    # ------------------------------------------------------------------ gesture

    def press(self, item: ClipItem, x: float) -> None:
        self._held = _Held(item, x, item.start, start=item.start)

    def move(self, x: float, snap: bool) -> None:
        held = self._held
        if held is None:
            return
        if not held.active and abs(x - held.press_x) < QApplication.startDragDistance():
            return
        view = self._view
        held.active = True
        held.item.setZValue(Z_DRAGGED)
        start, target = view.snapper.clip_start(held.item, held.origin + (x - held.press_x) / view.zoom(), snap,
                                                self.targets_for(held.item))
        held.start = start
        view.move_item(held.item, start)
        if target is None:
            self.guide.hide()
        else:
            self.guide.setPos(target * view.zoom(), 0.0)
            self.guide.show()
        self._show_hint(held)

    def release(self) -> tuple[str, float] | None:
        """End the drag; (line id, new start) if the clip moved."""
        held = self._held
        self._end()
        if held is None or not held.active or abs(held.start - held.origin) <= 1e-9:
            return None
        return held.item.line_id, held.start

    def cancel(self) -> bool:
        """Escape: put the clip back. True if a drag was under way."""
        held = self._held
        if held is None:
            return False
        self._view.move_item(held.item, held.origin)
        self._end()
        return True

    def _end(self) -> None:
        if self._held is not None:
            self._held.item.setZValue(Z_CLIP)
        self._held = None
        self.guide.hide()
        self.hint.hide()

    # ------------------------------------------------------------------ the hint

    def _show_hint(self, held: _Held) -> None:
        if self.describe is None:
            return
        if held.described is None or abs(held.described - held.start) > 1e-6:
            held.described = held.start
            self.hint.setText(self.describe(held.item.line_id, held.start))
        view = self._view
        clip = held.item.sceneBoundingRect()
        box = self.hint.boundingRect()
        visible = view.mapToScene(view.viewport().rect()).boundingRect()
        # Above the clip, or inside its top edge on the first lane; kept inside the visible lanes.
        y = clip.top() - box.height() if clip.top() - box.height() >= visible.top() else clip.top() + 1
        x = min(max(clip.left(), visible.left()), max(visible.left(), visible.right() - box.width()))
        self.hint.setPos(x - box.left(), y - box.top())
        self.hint.show()

