"""Project snapshots: the engine's view of a production, never changed in place.

The studio edits its working :class:`Project` on the GUI thread; the
session reads the production on its own threads (control, loudness,
export). They never share a mutable object: every edit hands the session a
new *snapshot*, a Project that nobody changes after it is made.

A snapshot shares every line, role and setting that did not change with the
snapshot before it (structural sharing), so a keystroke in one line of a
1,000-line script copies one Line and the list of references, not the
script. Sharing also lets the session find what an edit changed by identity
(``old is new``) before it compares any field.

Functions here never change their arguments.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection
from dataclasses import replace
from typing import TypeVar

from engine.project.model import Line, Project, Role, Scene, Timing
from engine.project.sound import SoundClip, SoundLane

_T = TypeVar("_T", Line, Role, Scene, SoundLane, SoundClip)


def freeze(project: Project) -> Project:
    """A snapshot of ``project`` that shares no mutable object with it."""
    return Project(title=project.title, sample_rate=project.sample_rate,
                   cast=[_copy_role(r) for r in project.cast],
                   scenes=[_copy_scene(s) for s in project.scenes],
                   lines=[copy.copy(line) for line in project.lines],  # fields are immutable
                   lexicon=dict(project.lexicon), timing=copy.copy(project.timing),
                   master_effect=project.master_effect,
                   sound_lanes=[copy.copy(lane) for lane in project.sound_lanes],  # Ducking is frozen
                   sounds=[copy.copy(clip) for clip in project.sounds])


def refresh(snapshot: Project, current: Project, lines: Collection[str] | None = None) -> Project:
    """A snapshot of ``current`` (a working copy edited since ``snapshot`` was
    made from it) that reuses every object of ``snapshot`` still equal.

    ``lines`` names the only lines that may have changed (the caller knows:
    one field edit), which skips comparing the others; None compares every
    line. Returns ``snapshot`` itself when nothing changed."""
    new_lines = _lines(snapshot.lines, current.lines, lines)
    new_cast = _shared(snapshot.cast, current.cast, _copy_role)
    new_scenes = _shared(snapshot.scenes, current.scenes, _copy_scene)
    lexicon = snapshot.lexicon if snapshot.lexicon == current.lexicon else dict(current.lexicon)
    timing: Timing = snapshot.timing if snapshot.timing == current.timing else copy.copy(current.timing)
    sound_lanes = _shared(snapshot.sound_lanes, current.sound_lanes, copy.copy)
    sounds = _shared(snapshot.sounds, current.sounds, copy.copy)
    if (new_lines is snapshot.lines and new_cast is snapshot.cast and new_scenes is snapshot.scenes
            and lexicon is snapshot.lexicon and timing is snapshot.timing and current.title == snapshot.title
            and current.master_effect == snapshot.master_effect and current.sample_rate == snapshot.sample_rate
            and sound_lanes is snapshot.sound_lanes and sounds is snapshot.sounds):
        return snapshot
    return Project(title=current.title, sample_rate=current.sample_rate, cast=new_cast, scenes=new_scenes,
                   lines=new_lines, lexicon=lexicon, timing=timing, master_effect=current.master_effect,
                   sound_lanes=sound_lanes, sounds=sounds)


def with_line(snapshot: Project, line_id: str, **changes: object) -> Project:
    """A new snapshot with one line's fields changed (headless edits, tests)."""
    lines = list(snapshot.lines)
    index = next((i for i, line in enumerate(lines) if line.id == line_id), None)
    if index is None:
        raise KeyError(f"unknown line {line_id!r}")
    lines[index] = replace(lines[index], **changes)  # type: ignore[arg-type]
    return replace(snapshot, lines=lines)


def with_role(snapshot: Project, name: str, **changes: object) -> Project:
    """A new snapshot with one role's fields changed (headless edits, tests)."""
    cast = list(snapshot.cast)
    index = next((i for i, role in enumerate(cast) if role.name == name), None)
    if index is None:
        raise KeyError(f"unknown role {name!r}")
    cast[index] = replace(cast[index], **changes)  # type: ignore[arg-type]
    return replace(snapshot, cast=cast)


def _lines(old: list[Line], new: list[Line], changed: Collection[str] | None) -> list[Line]:
    if changed is not None and len(old) == len(new):
        out: list[Line] | None = None
        for line_id in changed:
            index = next((i for i, line in enumerate(old) if line.id == line_id), None)
            if index is None or new[index].id != line_id:
                return _shared(old, new, copy.copy)  # the hint does not fit: compare everything
            if old[index] != new[index]:
                out = out if out is not None else list(old)
                out[index] = copy.copy(new[index])
        return out if out is not None else old
    return _shared(old, new, copy.copy)


def _shared(old: list[_T], new: list[_T], clone: Callable[[_T], _T]) -> list[_T]:
    """``new`` as copies, reusing the equal object of ``old`` with the same key."""
    by_key = {_key(item): item for item in old}
    out: list[_T] = []
    same = len(old) == len(new)
    for i, item in enumerate(new):
        kept = by_key.get(_key(item))
        if kept is None or kept != item:
            kept = clone(item)
        same = same and kept is old[i]
        out.append(kept)
    return old if same else out


def _key(item: Line | Role | Scene | SoundLane | SoundClip) -> str:
    return item.name if isinstance(item, (Role, SoundLane)) else item.id


def _copy_role(role: Role) -> Role:
    """Its fields are immutable (VoiceParams is frozen) but for the lexicon."""
    return replace(role, lexicon=dict(role.lexicon))


def _copy_scene(scene: Scene) -> Scene:
    return replace(scene, notes=list(scene.notes))
