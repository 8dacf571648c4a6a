"""Undoable edits of the sound design: move a clip, set its sound, change a lane.

The project's ``sounds`` and ``sound_lanes`` lists are replaced whole by one
:class:`~app.document.commands.SetProjectField` (the clips and lanes in the old list
are never changed in place), so undo puts the old list back and the engine's
snapshot shares every clip that did not change. GUI thread only.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from app.document.commands import Macro, SetProjectField
from app.document.document import Document
from engine.project.sound import LANE_KINDS, SoundClip, SoundLane, bed_defaults, new_sound_id
from engine.project.sound_suggestions import answer, lane_of_kind


def set_clip(doc: Document, clip_id: str, values: dict[str, Any], text: str) -> SetProjectField | None:
    """The command that changes one sound clip's fields (None: nothing changes)."""
    clip = doc.sound_clip(clip_id)
    if clip is None:
        raise KeyError(f"unknown sound clip {clip_id!r}")
    changed = replace(clip, **values)
    if changed == clip:
        return None
    return SetProjectField(doc, "sounds", [changed if c is clip else c for c in doc.project.sounds], text)


def set_lane(doc: Document, name: str, values: dict[str, Any], text: str) -> SetProjectField | None:
    lanes = list(doc.project.sound_lanes)
    for i, lane in enumerate(lanes):
        if lane.name == name:
            changed = replace(lane, **values)
            if changed == lane:
                return None
            lanes[i] = changed
            return SetProjectField(doc, "sound_lanes", lanes, text)
    raise KeyError(f"unknown sound lane {name!r}")


def toggle_lane(doc: Document, name: str, field: str) -> SetProjectField | None:
    """Mute or solo (``field``) a sound lane, or take it off again."""
    now = bool(getattr(doc.project.sound_lane(name), field))
    verb = ("Unmute" if now else "Mute") if field == "mute" else ("Unsolo" if now else "Solo")
    return set_lane(doc, name, {field: not now}, f"{verb} sound lane {name}")


def remove_clip(doc: Document, clip_id: str) -> SetProjectField:
    clip = doc.sound_clip(clip_id)
    if clip is None:
        raise KeyError(f"unknown sound clip {clip_id!r}")
    kept = [c for c in doc.project.sounds if c.id != clip_id]
    return SetProjectField(doc, "sounds", kept, f"Remove sound {clip.cue or clip_id}")


def assign_file(doc: Document, clip_id: str, file: Path) -> SetProjectField | None:
    """Give a clip (a placeholder, or one whose sound is to change) a sound file."""
    return set_clip(doc, clip_id, {"file": str(file)}, f"Set sound {Path(file).name}")


def add_clip(doc: Document, lane: SoundLane, file: Path, at_s: float) -> SetProjectField:
    """A new clip of ``file`` on ``lane`` pinned at ``at_s`` (a sound dropped on a lane)."""
    clip = SoundClip(new_sound_id(), lane.name, cue=Path(file).stem.replace("-", " "), file=str(file),
                     anchor="time", offset=max(0.0, at_s), **bed_defaults(lane.kind))
    if lane.kind != "effects":
        clip = replace(clip, end="length", length=20.0, lead=0.0)
    return SetProjectField(doc, "sounds", [*doc.project.sounds, clip], f"Add sound {Path(file).name}")


def new_lane(doc: Document, kind: str) -> SoundLane:
    """A lane of ``kind`` the project does not have yet (FX, then FX 2...), not added."""
    if kind not in LANE_KINDS:
        raise ValueError(f"unknown sound lane kind {kind!r} (choose {', '.join(LANE_KINDS)})")
    lanes = list(doc.project.sound_lanes)
    return lane_of_kind(lanes, kind, busy=[lane.name for lane in lanes])


def add_lane(doc: Document, kind: str) -> SetProjectField:
    """Sound > Add Sound Lane: a new, empty lane of ``kind`` under the others (one undo step)."""
    lane = new_lane(doc, kind)
    return SetProjectField(doc, "sound_lanes", [*doc.project.sound_lanes, lane], f"Add sound lane {lane.name}")


def add_lane_with_clip(doc: Document, kind: str, file: Path, at_s: float) -> Macro:
    """A sound dropped on the timeline where no sound lane is: a new lane of ``kind`` and the
    clip on it, as one undo step."""
    lane = new_lane(doc, kind)
    made = SetProjectField(doc, "sound_lanes", [*doc.project.sound_lanes, lane], f"Add sound lane {lane.name}")
    return Macro(f"Add sound {Path(file).name} on a new lane {lane.name}", [made, add_clip(doc, lane, file, at_s)])


def answer_suggestions(doc: Document, accept: list[str], dismiss: list[str]) -> Macro:
    """Accept and dismiss suggested sounds (engine/project/sound_suggestions.py) as one undo
    step: the lanes, clips and suggestions replaced whole."""
    answered = answer(doc.project, accept, dismiss)
    what = (f"Accept suggested sound{'s' if len(accept) != 1 else ''}" if accept
            else f"Dismiss suggested sound{'s' if len(dismiss) != 1 else ''}")
    steps = [SetProjectField(doc, "sound_suggestions", answered.sound_suggestions, what)]
    if answered.made:  # lanes first: a clip's lane must be there when the timeline reads it
        steps = [SetProjectField(doc, "sound_lanes", answered.sound_lanes, what),
                 SetProjectField(doc, "sounds", answered.sounds, what), *steps]
    return Macro(what, steps)
