"""Captions (SRT, WebVTT with voice tags) and the cue sheet, from placements.

Captions are dialogue only; the cue sheet lists the sound clips too, each
entry with a ``"kind"``: ``"line"`` for dialogue, ``"sfx"``, ``"ambience"``
or ``"music"`` for a sound clip (with its ``"file"``, "" for a placeholder).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from engine.project.model import Project
from engine.project.sound import CUE_KINDS
from engine.project.timeline import Placement, SoundPlacement
from engine.synth.frontend import caption_text


def _stamp(seconds: float, sep: str) -> str:
    ms = int(round(seconds * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def _caption_text(text: str) -> str:
    # Markup is not shown; a blank line would end the cue early in both formats.
    return " ".join(caption_text(text).split())


def _vtt_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def srt(project: Project, placements: Sequence[Placement]) -> str:
    lines = {line.id: line for line in project.lines}
    out = []
    for n, p in enumerate(sorted(placements, key=lambda p: p.start), start=1):
        text = _caption_text(lines[p.line_id].text)
        out.append(f"{n}\n{_stamp(p.start, ',')} --> {_stamp(p.end, ',')}\n{p.role}: {text}\n")
    return "\n".join(out)


def vtt(project: Project, placements: Sequence[Placement]) -> str:
    lines = {line.id: line for line in project.lines}
    out = ["WEBVTT", ""]
    for p in sorted(placements, key=lambda p: p.start):
        text = _vtt_escape(_caption_text(lines[p.line_id].text))
        role = _vtt_escape(p.role)
        out.append(f"{p.line_id}\n{_stamp(p.start, '.')} --> {_stamp(p.end, '.')}\n<v {role}>{text}\n")
    return "\n".join(out)


def cue_sheet(project: Project, placements: Sequence[Placement], sounds: Sequence[SoundPlacement] = (),
              files: Mapping[str, str] | None = None) -> str:
    """``files``: the file each sound clip played (a placeholder matched from
    the library for this render plays a file its clip does not name)."""
    lines = {line.id: line for line in project.lines}
    clips = {clip.id: clip for clip in project.sounds}
    kinds = {lane.name: CUE_KINDS[lane.kind] for lane in project.sound_lanes}
    entries: list[tuple[float, int, dict[str, object]]] = [
        (p.start, 0, {"id": p.line_id, "kind": "line", "role": p.role, "text": lines[p.line_id].text,
                      "start": round(p.start, 4), "end": round(p.end, 4)})
        for p in placements
    ]
    for s in sounds:
        clip = clips[s.clip_id]
        file = (files or {}).get(s.clip_id, "")
        entries.append((s.start, 1, {"id": s.clip_id, "kind": kinds.get(s.lane, "sfx"), "lane": s.lane,
                                     "cue": clip.cue, "file": file, "start": round(s.start, 4),
                                     "end": round(s.end, 4)}))
    cues = [entry for _, _, entry in sorted(entries, key=lambda e: (e[0], e[1]))]
    return json.dumps({"title": project.title, "cues": cues}, indent=2, ensure_ascii=False) + "\n"
