"""Right-click menus on lines (script), roles (cast), clips and lanes (timeline).

Each menu offers the usual commands of the thing under the mouse, mostly the
panels' own QActions (so the menu shows their shortcuts and they stay one
command each). The menus are built when asked for, from the state at that
moment; ``install`` hooks them to the window's widgets from outside, so the
panels themselves need no menu code. The timeline is read through its public
queries only (``items``, ``clip_kind``, ``lane_at``); a sound lane's or sound clip's menu
is the sound feature's (app/sound/menus.py), chosen by the lane's kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QMenu, QWidget

from app.document.commands import SetLineFields, SetRoleField
from app.script.model import LINE_ID
from app.script.staging import perspective_menu, position_menu, room_menu
from app.shell.studio_window import StudioWindow
from app.sound.menus import sound_clip_menu, sound_lane_menu
from app.timeline.scene import LaneKind

# A line's placement fields and their values when it simply follows the previous line.
NATURAL_TIMING = {"start": None, "overlap": 0.0, "with_previous": False, "pause_before": 0.0}


def install(window: StudioWindow) -> None:
    """Give the script, the cast, the timeline and its lane headers their menus."""
    _hook(window.script.view, lambda pos: script_menu(window, pos))
    _hook(window.cast.view, lambda pos: cast_menu(window, pos))
    timeline = window.timeline
    if all(hasattr(timeline, name) for name in ("items", "clip_kind", "lane_at", "header")):
        _hook(timeline, lambda pos: timeline_menu(window, pos))
        _hook(timeline.header, lambda pos: lane_menu_at(window, pos))


def _hook(widget: QWidget, build: Callable[[QPoint], QMenu | None]) -> None:
    widget.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def show(pos: QPoint) -> None:
        menu = build(pos)
        if menu is not None:
            menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            # A scroll area reports the position in its viewport's coordinates.
            origin = widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget
            menu.popup(origin.mapToGlobal(pos))

    widget.customContextMenuRequested.connect(show)


# ---- script ---------------------------------------------------------------
def script_menu(window: StudioWindow, pos: QPoint) -> QMenu:
    """Commands for the line under ``pos`` (viewport coordinates), which becomes current."""
    script = window.script
    view = script.view
    index = view.indexAt(pos)
    if index.isValid():
        if view.selectionModel().isSelected(index):  # keep a multi-line selection for cut/copy/delete
            view.selectionModel().setCurrentIndex(index, view.selectionModel().SelectionFlag.NoUpdate)
        else:
            view.setCurrentIndex(index)
    line_id = index.data(LINE_ID) if index.isValid() else None
    line = window.doc.project.line(line_id) if line_id else None
    menu = QMenu(view)
    menu.setObjectName("scriptMenu")
    if line is not None:  # on a line: what can be done with it
        play = menu.addAction("Play from here", window.play_from_line)
        play.setEnabled(window.actions_["play_line"].isEnabled())
        audition = menu.addAction("Audition line", lambda: window.audition(line.role, line.text))
        audition.setEnabled(bool(line.text.strip()) and window.engine is not None)
        menu.addMenu(perspective_menu(window.doc, line.id, menu))
        menu.addMenu(position_menu(window.doc, line.id, menu))
        menu.addSeparator()
    elif index.isValid() and script.model.is_scene_row(index.row()):  # on a scene heading: its room
        scene_id = script.model.scene_of_row(index.row())
        if scene_id is not None:
            menu.addMenu(room_menu(window.doc, scene_id, menu))
            menu.addSeparator()
    menu.addAction(script.insert_action)
    if line is not None:
        menu.addAction(script.delete_action)
    menu.addSeparator()
    if line is not None:
        menu.addAction(script.cut_action)
        menu.addAction(script.copy_action)
    menu.addAction(script.paste_action)
    menu.addSeparator()
    menu.addAction(script.find_action)
    menu.addAction(script.follow_action)
    return menu


# ---- cast ---------------------------------------------------------------------
def cast_menu(window: StudioWindow, pos: QPoint) -> QMenu:
    cast = window.cast
    index = cast.view.indexAt(pos)
    if index.isValid():
        cast.view.setCurrentIndex(index)
        cast.view.selectRow(index.row())
    menu = QMenu(cast.view)
    menu.setObjectName("castMenu")
    if index.isValid():  # on a role; below the last one only adding makes sense
        menu.addAction(cast.audition_action)
        menu.addSeparator()
    menu.addAction(cast.add_action)
    if index.isValid():
        menu.addAction(cast.remove_action)
    return menu


# ---- timeline -----------------------------------------------------------------------
def timeline_menu(window: StudioWindow, pos: QPoint) -> QMenu | None:
    """A clip's menu over a clip, else the menu of the lane under ``pos`` (viewport coordinates)."""
    timeline: Any = window.timeline
    line_id = next((item.line_id for item in timeline.items(pos) if getattr(item, "line_id", None)), None)
    if line_id is not None:
        if timeline.clip_kind(line_id) is LaneKind.SOUND:
            return sound_clip_menu(window.doc, line_id, timeline)
        return clip_menu(window, line_id)
    return lane_menu_at(window, pos)


def lane_menu_at(window: StudioWindow, pos: QPoint) -> QMenu | None:
    lane = window.timeline.lane_at(pos.y())
    if lane is None:
        return None
    if lane.kind is LaneKind.SOUND:
        return sound_lane_menu(window.doc, lane.subject, window.timeline)
    return lane_menu(window, lane.subject)


def clip_menu(window: StudioWindow, line_id: str) -> QMenu:
    doc = window.doc
    line = doc.project.line(line_id)
    menu = QMenu(window.timeline)
    menu.setObjectName("clipMenu")

    def play() -> None:
        window.script.select_line(line_id)
        window.play_from_line()

    menu.addAction("Play from here", play).setEnabled(window.actions_["play_line"].isEnabled())
    audition = menu.addAction("Audition line", lambda: window.audition(line.role, line.text))
    audition.setEnabled(bool(line.text.strip()) and window.engine is not None)
    menu.addSeparator()
    changed = {k: v for k, v in NATURAL_TIMING.items() if getattr(line, k) != v}
    reset = menu.addAction("Reset timing", lambda: doc.undo.push(
        SetLineFields(doc, line_id, changed, f"Reset timing of {line.role}'s line")))
    reset.setToolTip("Back to its natural place after the previous line: no pin, overlap or extra pause")
    reset.setEnabled(bool(changed))
    menu.addSeparator()
    menu.addMenu(perspective_menu(doc, line_id, menu))
    menu.addMenu(position_menu(doc, line_id, menu))
    return menu


def lane_menu(window: StudioWindow, name: str) -> QMenu:
    doc = window.doc
    role = doc.project.role(name)
    menu = QMenu(window.timeline)
    menu.setObjectName("laneMenu")
    for field, label in (("mute", "Mute"), ("solo", "Solo")):
        on = bool(getattr(role, field))
        action = menu.addAction(f"{label} {name}")
        action.setCheckable(True)
        action.setChecked(on)

        def toggle(_checked: bool = False, f: str = field, value: bool = not on) -> None:
            doc.undo.push(SetRoleField(doc, name, f, value))

        action.triggered.connect(toggle)
    menu.addSeparator()
    row = doc.project.role_names().index(name)
    menu.addAction(f"Audition {name}", lambda: window.cast.audition_row(row)).setEnabled(window.engine is not None)
    return menu
