"""Sound lanes and clips in the ``.radioplay`` file (format version 2).

Kept beside :mod:`engine.project.fileformat`, which calls it: files of
version 1 have no ``sound_lanes`` or ``sounds`` and load unchanged. Problems
are reported like every other field, with the JSON path
(``sounds[3].lane: unknown sound lane 'MUSIK'``). A clip's ``file`` is
written relative to the project's folder when it lies inside it, so a
project folder with its ``sounds/`` can be moved or shared whole.

``sound_suggestions`` (sounds the script's action lines describe, offered as cues:
engine/project/sound_suggestions.py) is written only when a project has some; a file
without it (any version) loads with none, and a Radioplay that does not know the key
ignores it. A suggestion's line that is gone (deleted since) leaves it standing after
the last line: it is advice, not a reason to refuse the file.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from engine.project.defaults import (
    DEFAULT_GAIN_DB,
    DEFAULT_PAN,
    DUCK_DEPTH_RANGE,
    DUCK_TIME_RANGE,
    FADE_RANGE,
    GAIN_DB_RANGE,
    PAN_RANGE,
)
from engine.project.formatreader import Reader
from engine.project.model import Project
from engine.project.sound import (
    ANCHORS,
    ENDS,
    LANE_KINDS,
    SUGGESTION_KINDS,
    SUGGESTION_STATES,
    Ducking,
    SoundClip,
    SoundLane,
    SoundSuggestion,
    default_ducking,
)
from engine.project.stagingformat import placement_from_dict, placement_to_dict
from engine.project.timeline import MAX_SILENCE_S

_Filed = TypeVar("_Filed", SoundClip, SoundSuggestion)
_LONG = 86_400.0  # a day: no offset or length in a radio play is longer




def portable_path(file: str, project_dir: Path | None) -> str:
    """``file`` relative to the project folder when it lies inside it."""
    if not file or project_dir is None:
        return file
    path = Path(file).expanduser()
    if not path.is_absolute():
        return file
    try:
        relative = Path(os.path.relpath(path, project_dir.resolve()))
    except ValueError:  # another drive
        return file
    return file if relative.parts and relative.parts[0] == ".." else relative.as_posix()


def absolute_sounds(clips: list[_Filed], project_dir: Path) -> list[_Filed]:
    """``clips`` (sound clips, or suggested sounds) with relative files made absolute against
    ``project_dir`` (before a Save As to another folder: the files stay where they are)."""
    out = []
    for clip in clips:
        if clip.file and not Path(clip.file).expanduser().is_absolute():
            clip = replace(clip, file=str((project_dir / clip.file).resolve()))
        out.append(clip)
    return out


def sounds_to_dict(project: Project, project_dir: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if project.sound_lanes or project.sounds:
        out["sound_lanes"] = [_lane_to_dict(lane) for lane in project.sound_lanes]
        out["sounds"] = [_clip_to_dict(clip, project_dir) for clip in project.sounds]
    if project.sound_suggestions:
        out["sound_suggestions"] = [_suggestion_to_dict(s, project_dir) for s in project.sound_suggestions]
    return out


def _suggestion_to_dict(s: SoundSuggestion, project_dir: Path | None) -> dict[str, Any]:
    return {"id": s.id, "kind": s.kind, "sound": s.sound, "text": s.text, "lane_kind": s.lane_kind,
            "span": {"scene": s.scene, "line": s.line, "source_line": s.source_line},
            "evidence": s.evidence, "file": portable_path(s.file, project_dir), "state": s.state, "clip": s.clip}


def suggestions_from_dict(r: Reader, root: dict[str, Any], line_ids: set[str], scene_ids: set[str],
                          clip_ids: set[str]) -> list[SoundSuggestion]:
    out: list[SoundSuggestion] = []
    seen: set[str] = set()
    for i, sd in enumerate(r.items(root.get("sound_suggestions", []), "sound_suggestions")):
        path = f"sound_suggestions[{i}]"
        sd = r.obj(sd, path)
        sid = r.text(sd, "id", path, empty=False)
        if sid in seen:
            raise r.fail(f"{path}.id", f"duplicate suggestion id {sid!r}")
        seen.add(sid)
        span = r.obj(sd.get("span", {}), f"{path}.span")
        line, scene, clip = span.get("line"), span.get("scene"), sd.get("clip")
        source_line = r.num(span, "source_line", f"{path}.span", 0, lo=0, hi=10**9)
        out.append(SoundSuggestion(
            id=sid, text=r.text(sd, "text", path, ""), sound=r.text(sd, "sound", path, ""),
            lane_kind=r.choice(sd, "lane_kind", path, "effects", {k: k for k in LANE_KINDS}, "sound lane kind"),
            kind=r.choice(sd, "kind", path, "cue", {k: k for k in SUGGESTION_KINDS}, "suggestion kind"),
            evidence=r.text(sd, "evidence", path, ""),
            scene=scene if isinstance(scene, str) and scene in scene_ids else None,
            line=line if isinstance(line, str) and line in line_ids else None,
            source_line=int(source_line), file=r.text(sd, "file", path, ""),
            state=r.choice(sd, "state", path, "suggested", {k: k for k in SUGGESTION_STATES}, "suggestion state"),
            clip=clip if isinstance(clip, str) and clip in clip_ids else None))
    return out


def _lane_to_dict(lane: SoundLane) -> dict[str, Any]:
    d = lane.ducking
    return {"name": lane.name, "kind": lane.kind, "gain_db": lane.gain_db, "pan": lane.pan, "mute": lane.mute,
            "solo": lane.solo, "ducking": {"depth_db": d.depth_db, "attack_s": d.attack_s,
                                           "release_s": d.release_s, "lookahead_s": d.lookahead_s}}


def _clip_to_dict(clip: SoundClip, project_dir: Path | None) -> dict[str, Any]:
    d: dict[str, Any] = {"id": clip.id, "lane": clip.lane, "cue": clip.cue,
                         "file": portable_path(clip.file, project_dir), "anchor": clip.anchor, "line": clip.line}
    defaults = SoundClip(id="", lane="")
    for key in ("offset", "gain_db", "pan", "fade_in", "fade_out", "loop", "end", "out_line", "length",
                "overlap", "lead"):
        value = getattr(clip, key)
        if value != getattr(defaults, key) or key == "end":
            d[key] = value
    d.update(placement_to_dict(clip.perspective, clip.position))
    return d


def sounds_from_dict(r: Reader, root: dict[str, Any], line_ids: set[str]) -> tuple[list[SoundLane], list[SoundClip]]:
    lanes: list[SoundLane] = []
    for i, ld in enumerate(r.items(root.get("sound_lanes", []), "sound_lanes")):
        path = f"sound_lanes[{i}]"
        ld = r.obj(ld, path)
        name = r.text(ld, "name", path, empty=False)
        if any(lane.name == name for lane in lanes):
            raise r.fail(f"{path}.name", f"duplicate sound lane {name!r}")
        kind = r.choice(ld, "kind", path, "effects", {k: k for k in LANE_KINDS}, "sound lane kind")
        lanes.append(SoundLane(
            name=name, kind=kind,
            gain_db=r.num(ld, "gain_db", path, DEFAULT_GAIN_DB, lo=GAIN_DB_RANGE[0], hi=GAIN_DB_RANGE[1]),
            pan=r.num(ld, "pan", path, DEFAULT_PAN, lo=PAN_RANGE[0], hi=PAN_RANGE[1]),
            mute=r.flag(ld, "mute", path, False), solo=r.flag(ld, "solo", path, False),
            ducking=_ducking(r, ld, path, kind)))
    lane_names = {lane.name for lane in lanes}
    clips: list[SoundClip] = []
    seen: set[str] = set()
    for i, cd in enumerate(r.items(root.get("sounds", []), "sounds")):
        path = f"sounds[{i}]"
        cd = r.obj(cd, path)
        cid = r.text(cd, "id", path, empty=False)
        if cid in seen:
            raise r.fail(f"{path}.id", f"duplicate sound id {cid!r}")
        seen.add(cid)
        lane = r.text(cd, "lane", path)
        if lane not in lane_names:
            raise r.fail(f"{path}.lane", f"unknown sound lane {lane!r}")
        anchor = r.choice(cd, "anchor", path, "cue", {a: a for a in ANCHORS}, "anchor")
        line = _line_ref(r, cd, "line", path, line_ids)
        if anchor in ("line_start", "line_end") and line is None:
            raise r.fail(f"{path}.line", f"an anchor {anchor!r} needs a line id")
        end = r.choice(cd, "end", path, "file", {e: e for e in ENDS}, "end")
        length = r.num(cd, "length", path, None, lo=0.0, hi=_LONG, optional=True)
        if end == "length" and length is None:
            raise r.fail(f"{path}.length", "an end 'length' needs a length in seconds")
        _within_limits(r, cd, path, cid)
        clips.append(SoundClip(
            id=cid, lane=lane, cue=r.text(cd, "cue", path, ""), file=r.text(cd, "file", path, ""),
            anchor=anchor, line=line, offset=r.num(cd, "offset", path, 0.0, lo=-_LONG, hi=_LONG),
            gain_db=r.num(cd, "gain_db", path, DEFAULT_GAIN_DB, lo=GAIN_DB_RANGE[0], hi=GAIN_DB_RANGE[1]),
            pan=r.num(cd, "pan", path, DEFAULT_PAN, lo=PAN_RANGE[0], hi=PAN_RANGE[1]),
            fade_in=r.num(cd, "fade_in", path, 0.0, lo=FADE_RANGE[0], hi=FADE_RANGE[1]),
            fade_out=r.num(cd, "fade_out", path, 0.0, lo=FADE_RANGE[0], hi=FADE_RANGE[1]),
            loop=r.flag(cd, "loop", path, False), end=end, out_line=_line_ref(r, cd, "out_line", path, line_ids),
            length=length, overlap=r.flag(cd, "overlap", path, False),
            lead=r.num(cd, "lead", path, 0.0, lo=0.0, hi=_LONG), **placement_from_dict(r, cd, path)))
    return lanes, clips


def _within_limits(r: Reader, cd: dict[str, Any], path: str, cid: str) -> None:
    """A clip may sit at most as far from its anchor, and play at most as long,
    as a line may be followed by silence (MAX_SILENCE_S): a clip 24 h out or
    looping for 24 h would make a render run for minutes and write 100 GB."""
    for key, what in (("offset", "from its anchor"), ("length", "long"), ("lead", "of lead")):
        value = cd.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_SILENCE_S:
            raise r.fail(f"{path}.{key}", f"sound {cid!r}: {value:g} s {what}; at most {MAX_SILENCE_S:g} s "
                                          f"({MAX_SILENCE_S / 3600:g} h), as for the silence around a line")


def _ducking(r: Reader, ld: dict[str, Any], path: str, kind: str) -> Ducking:
    default = default_ducking(kind)
    dd = r.obj(ld.get("ducking", {}), f"{path}.ducking")
    where = f"{path}.ducking"
    lo, hi = DUCK_TIME_RANGE
    return Ducking(
        depth_db=r.num(dd, "depth_db", where, default.depth_db, lo=DUCK_DEPTH_RANGE[0], hi=DUCK_DEPTH_RANGE[1]),
        attack_s=r.num(dd, "attack_s", where, default.attack_s, lo=lo, hi=hi),
        release_s=r.num(dd, "release_s", where, default.release_s, lo=lo, hi=hi),
        lookahead_s=r.num(dd, "lookahead_s", where, default.lookahead_s, lo=lo, hi=hi))


def _line_ref(r: Reader, d: dict[str, Any], key: str, path: str, line_ids: set[str]) -> str | None:
    value = d.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise r.fail(f"{path}.{key}", f"expected a line id or null, got {type(value).__name__}")
    if value not in line_ids:
        raise r.fail(f"{path}.{key}", f"unknown line {value!r}")
    return value
