"""Staging in the studio: a scene's room, a line's perspective and position,
picked from the script's and the timeline's context menus (undoable).

The engine stages what the project says (engine/audio/staging.py); this only
edits it. A pick made here records "set by hand" as its evidence, in place
of the script's words.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from PySide6.QtWidgets import QMenu, QWidget

from app.document.commands import SetLineFields, SetProjectField
from app.document.document import Document
from engine.audio.staging import line_stages
from engine.project.model import Project
from engine.project.staging import PERSPECTIVES, ROOM_PRESETS, Position

BY_HAND = "set by hand"
# The positions the clip menu offers: (label, pan, distance); None keeps the perspective's.
POSITIONS: tuple[tuple[str, float | None, float | None], ...] = (
    ("Left, near (1 m)", -0.7, 1.0), ("Centre, near (1 m)", 0.0, 1.0), ("Right, near (1 m)", 0.7, 1.0),
    ("Left, across the room (4 m)", -0.7, 4.0), ("Centre, across the room (4 m)", 0.0, 4.0),
    ("Right, across the room (4 m)", 0.7, 4.0), ("Close to the mic (0.5 m)", None, 0.5),
)


def staged_positions(project: Project) -> dict[str, tuple[tuple[float, float, float], ...]]:
    """The pan and distance keyframes the timeline draws on a clip: lines with a
    perspective or a position of their own (the rest sit where their role does)."""
    placed = {line.id for line in project.lines if line.perspective or line.position is not None}
    return {line_id: stage.path for line_id, stage in line_stages(project).items() if line_id in placed}


def room_label(doc: Document, scene_id: str) -> str:
    """What the script shows beside a scene heading: its room and why."""
    scene = next((s for s in doc.project.scenes if s.id == scene_id), None)
    if scene is None or scene.room is None:
        return "no room (dry)"
    room = scene.room
    shape = "outdoor" if room.outdoor else f"RT60 {room.rt60:g} s"
    why = f", {scene.room_evidence}" if scene.room_evidence else ""
    return f"{room.name} ({shape}{why})"


def room_menu(doc: Document, scene_id: str, parent: QWidget) -> QMenu:
    """Room > presets, or no room: replaces the scene in the project's scene list."""
    menu = QMenu("Room", parent)
    menu.setObjectName("roomMenu")
    scene = next((s for s in doc.project.scenes if s.id == scene_id), None)
    current = scene.room.name if scene is not None and scene.room is not None else None

    def pick(name: str | None) -> None:
        scenes = [replace(s, room=ROOM_PRESETS[name] if name else None, room_evidence=BY_HAND if name else "")
                  if s.id == scene_id else s for s in doc.project.scenes]
        doc.undo.push(SetProjectField(doc, "scenes", scenes, f"Room of {scene_id}: {name or 'none'}"))

    none = menu.addAction("No room (dry)", lambda: pick(None))
    none.setCheckable(True)
    none.setChecked(current is None)
    for section, outdoor in (("Inside", False), ("Outside (no reverberation)", True)):
        menu.addSection(section)
        for name, room in ROOM_PRESETS.items():
            if room.outdoor != outdoor:
                continue
            label = f"{name}  ({'outdoor' if room.outdoor else f'{room.rt60:g} s'})"
            action = menu.addAction(label, partial(pick, name))
            action.setCheckable(True)
            action.setChecked(current == name)
    return menu


def perspective_menu(doc: Document, line_id: str, parent: QWidget) -> QMenu:
    menu = QMenu("Perspective", parent)
    menu.setObjectName("perspectiveMenu")
    line = doc.project.line(line_id)

    def pick(name: str) -> None:
        doc.undo.push(SetLineFields(doc, line_id, {"perspective": name, "perspective_evidence": BY_HAND if name else ""},
                                    f"Perspective of {line.role}'s line: {name or 'as the role is'}"))

    plain = menu.addAction("As the role is", lambda: pick(""))
    plain.setCheckable(True)
    plain.setChecked(not line.perspective)
    for section, devices in (("Where it is heard from", False), ("Heard through a device", True)):
        menu.addSection(section)
        for name, spec in PERSPECTIVES.items():
            if (spec.device is not None) != devices:
                continue
            action = menu.addAction(name, partial(pick, name))
            action.setCheckable(True)
            action.setChecked(line.perspective == name)
            if spec.device is not None:
                low, high = spec.device.band_hz
                action.setToolTip(f"{low:g}-{high:g} Hz, compressed and driven like a {name}")
    menu.setToolTipsVisible(True)
    return menu


def position_menu(doc: Document, line_id: str, parent: QWidget) -> QMenu:
    menu = QMenu("Position", parent)
    menu.setObjectName("positionMenu")
    line = doc.project.line(line_id)

    def pick(position: Position | None, label: str) -> None:
        doc.undo.push(SetLineFields(doc, line_id, {"position": position}, f"Position of {line.role}'s line: {label}"))

    for label, pan, distance in POSITIONS:
        menu.addAction(label, partial(pick, Position(pan=pan, distance=distance), label))
    menu.addSeparator()
    menu.addAction("Walk left to right", lambda: pick(Position(path=((0.0, -0.8, 2.0), (1.0, 0.8, 2.0))),
                                                      "walk left to right"))
    menu.addAction("Walk right to left", lambda: pick(Position(path=((0.0, 0.8, 2.0), (1.0, -0.8, 2.0))),
                                                      "walk right to left"))
    menu.addSeparator()
    clear = menu.addAction("As the perspective places it", lambda: pick(None, "as the perspective places it"))
    clear.setEnabled(line.position is not None)
    return menu
