"""How the producer sizes the timeline and sets its options: zoom, fit, lane height, loop, snap
and follow, from the View menu, the keys and the wheel.

Each command is a QAction owned by the view (window-wide shortcuts where it has keys), so the
menu, the F1 shortcut list and the keys all run the same thing; :func:`wheel_zoom` maps the
wheel onto the same view methods.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence, QWheelEvent
from PySide6.QtWidgets import QScrollBar

#: Ctrl+1/2/3: the whole act, a few lines, words within a line (pixels per second).
ZOOM_PRESETS = (10.0, 50.0, 250.0)
LANE_STEP = 1.25  # lane height factor of Taller/Shorter Lanes and of a Ctrl+Shift+wheel notch
WHEEL_ZOOM_STEP = 1.25  # zoom factor per wheel notch (120 eighths of a degree)


class ViewActions:
    """The timeline view's View-menu actions, which build_view_actions makes on it: a base of
    TimelineView, so that its type declares them."""

    zoom_in_action: QAction
    zoom_out_action: QAction
    zoom_preset_actions: list[QAction]
    fit_action: QAction
    taller_lanes_action: QAction
    shorter_lanes_action: QAction
    clear_loop_action: QAction
    snap_action: QAction
    follow_action: QAction


class _View(Protocol):
    """The timeline view (app/timeline/view.py): the actions become these attributes of it."""

    zoom_in_action: QAction
    zoom_out_action: QAction
    zoom_preset_actions: list[QAction]
    fit_action: QAction
    taller_lanes_action: QAction
    shorter_lanes_action: QAction
    clear_loop_action: QAction
    snap_action: QAction
    follow_action: QAction

    def addAction(self, action: QAction) -> None: ...
    def horizontalScrollBar(self) -> QScrollBar: ...
    def zoom_by(self, factor: float, anchor_x: float | None = None) -> None: ...
    def zoom_preset(self, index: int) -> None: ...
    def fit(self) -> None: ...
    def scale_lanes(self, factor: float) -> None: ...
    def clear_loop(self) -> None: ...


def build_view_actions(view: _View, owner: QObject) -> list[QAction]:
    """Make the view's actions (as attributes of ``view``, owned by ``owner``: the view itself,
    which the Protocol cannot say it is) and return them in menu order."""

    def action(text: str, keys: list[QKeySequence], slot: Callable[[], object], tip: str) -> QAction:
        a = QAction(text, owner)
        a.setShortcuts(keys)
        a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        a.setToolTip(tip)
        a.triggered.connect(lambda _=False: slot())
        view.addAction(a)
        return a

    std = QKeySequence.StandardKey
    view.zoom_in_action = action("Zoom In", [QKeySequence(std.ZoomIn), QKeySequence("Ctrl+=")],
                                 lambda: view.zoom_by(2.0), "Zoom in around the mouse")
    view.zoom_out_action = action("Zoom Out", [QKeySequence(std.ZoomOut)], lambda: view.zoom_by(0.5),
                                  "Zoom out around the mouse")
    names = ("Zoom: Whole Scenes", "Zoom: Lines", "Zoom: Words")
    view.zoom_preset_actions = [
        action(name, [QKeySequence(f"Ctrl+{i + 1}")], partial(view.zoom_preset, i),
               f"{ZOOM_PRESETS[i]:g} pixels per second")
        for i, name in enumerate(names)]
    view.fit_action = action("Zoom to Fit", [QKeySequence("Ctrl+0")], view.fit, "Show the whole production")
    view.taller_lanes_action = action("Taller Lanes", [], lambda: view.scale_lanes(LANE_STEP),
                                      "Make every lane taller (Ctrl+Shift+wheel)")
    view.shorter_lanes_action = action("Shorter Lanes", [], lambda: view.scale_lanes(1 / LANE_STEP),
                                       "Make every lane shorter, to see more roles (Ctrl+Shift+wheel)")
    view.clear_loop_action = action("Clear Loop Region", [], view.clear_loop, "Play without looping")
    view.snap_action = QAction("Snap to Clips and Grid", owner)
    view.snap_action.setCheckable(True)
    view.snap_action.setChecked(True)
    view.snap_action.setToolTip("Dragged clips snap to other clips' edges and the grid (hold Shift to "
                                "place freely)")
    view.follow_action = QAction("Follow Playhead", owner)
    view.follow_action.setCheckable(True)
    view.follow_action.setChecked(True)
    return [view.zoom_in_action, view.zoom_out_action, *view.zoom_preset_actions, view.fit_action,
            view.taller_lanes_action, view.shorter_lanes_action, view.clear_loop_action, view.snap_action,
            view.follow_action]


def wheel_zoom(view: _View, event: QWheelEvent) -> bool:
    """Ctrl+wheel zooms time around the mouse, Ctrl+Shift+wheel sizes the lanes, Shift+wheel
    scrolls sideways. False: a plain wheel, for the view to scroll."""
    mods = event.modifiers()
    delta = event.angleDelta()
    notches = delta.y() / 120.0 if delta.y() else delta.x() / 120.0
    ctrl, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    if mods & ctrl:
        if notches and mods & shift:
            view.scale_lanes(LANE_STEP ** notches)
        elif notches:
            view.zoom_by(WHEEL_ZOOM_STEP ** notches, event.position().x())
    elif mods & shift and delta.y():
        bar = view.horizontalScrollBar()
        bar.setValue(bar.value() - delta.y())
    else:
        return False
    event.accept()
    return True
