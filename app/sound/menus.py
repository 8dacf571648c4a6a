"""The Sound menu of the menu bar, and the right-click menus of the timeline's sound lanes and
sound clips (the shell's app/shell/context_menus.py picks these by the lane's kind). Each action
is one undoable edit (app/sound/edits.py). GUI thread only.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMenu, QWidget

from app.document.commands import SetProjectField
from app.document.document import Document
from app.sound import edits as sound_edits
from engine.project.sound import LANE_KINDS

_KIND_TITLES = {"effects": "&Effects Lane (one-shots)", "ambience": "&Ambience Lane (beds)", "music": "&Music Lane"}


def sound_menu(doc: Document, parent: QWidget) -> QMenu:
    """Sound > Add Sound Lane > Effects / Ambience / Music: a new, empty lane under the others."""
    menu = QMenu("&Sound", parent)
    menu.setObjectName("soundMenu")
    lanes = menu.addMenu("Add Sound &Lane")
    lanes.setObjectName("addSoundLaneMenu")
    for kind in LANE_KINDS:
        action = lanes.addAction(_KIND_TITLES[kind])
        action.setObjectName(f"addSoundLane_{kind}")
        action.setStatusTip(f"Add an empty {kind} lane under the sound lanes; drop sounds on it")
        action.triggered.connect(lambda _on=False, k=kind: _push(doc, sound_edits.add_lane(doc, k)))
    return menu


def sound_clip_menu(doc: Document, clip_id: str, parent: QWidget) -> QMenu:
    clip = doc.sound_clip(clip_id)
    if clip is None:
        raise KeyError(f"unknown sound clip {clip_id!r}")
    menu = QMenu(parent)
    menu.setObjectName("soundClipMenu")
    menu.addAction(f"Remove sound {clip.cue or clip_id}", lambda: _push(doc, sound_edits.remove_clip(doc, clip_id)))
    return menu


def sound_lane_menu(doc: Document, name: str, parent: QWidget) -> QMenu:
    lane = doc.project.sound_lane(name)
    menu = QMenu(parent)
    menu.setObjectName("soundLaneMenu")
    for field, label in (("mute", "Mute"), ("solo", "Solo")):
        action = menu.addAction(f"{label} {name}")
        action.setCheckable(True)
        action.setChecked(bool(getattr(lane, field)))
        action.triggered.connect(lambda _on=False, f=field: _push(doc, sound_edits.toggle_lane(doc, name, f)))
    return menu


def _push(doc: Document, command: SetProjectField | None) -> None:
    if command is not None:
        doc.undo.push(command)
