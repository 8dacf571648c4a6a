"""Captions (SRT, WebVTT with voice tags and word timestamps) and the cue sheet, from placements.

Captions are dialogue only; the cue sheet lists the sound clips too, each
entry with a ``"kind"``: ``"line"`` for dialogue, ``"sfx"``, ``"ambience"``
or ``"music"`` for a sound clip (with its ``"file"``, "" for a placeholder).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from engine.export.cuesplit import split_caption
from engine.export.stagingsheet import line_staging, sound_staging, staging_summary
from engine.project.direction import direction_spans, spoken_text
from engine.project.model import Project
from engine.project.sound import CUE_KINDS
from engine.project.timeline import Placement, SoundPlacement
from engine.synth.frontend import caption_text
from engine.synth.wordmap import WordTime

Timings = Mapping[str, Sequence[WordTime]]  # line id -> its written words, timed within its clip


def _stamp(seconds: float, sep: str) -> str:
    ms = int(round(seconds * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def _caption_text(text: str) -> str:
    # Markup and directions are not shown; a blank line would end the cue early in both formats.
    return " ".join(caption_text(spoken_text(text)).split())


def _cue_text(text: str) -> str:
    """The cue sheet's text: as written, less its directions (never said, never shown)."""
    return spoken_text(text) if direction_spans(text) or "\\" in text else text


def _vtt_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def srt(project: Project, placements: Sequence[Placement], words: Timings | None = None) -> str:
    """One cue per line, or several for a long line (engine.export.cuesplit);
    every cue names the speaker. ``words``: each line's written words timed
    within its clip (engine.synth.wordmap), where known."""
    lines = {line.id: line for line in project.lines}
    out = []
    n = 0
    for p in sorted(placements, key=lambda p: p.start):
        text = _caption_text(lines[p.line_id].text)
        label = f"{p.role}: "
        for cue in split_caption(text, p.start, p.end, (words or {}).get(p.line_id, ()), len(label)):
            n += 1
            body = "\n".join(cue.rows)
            out.append(f"{n}\n{_stamp(cue.start, ',')} --> {_stamp(cue.end, ',')}\n{label}{body}\n")
    return "\n".join(out)


def vtt(project: Project, placements: Sequence[Placement], words: Timings | None = None) -> str:
    """Like :func:`srt`, with the speaker as a voice span and, where the
    words' timings are known, a WebVTT timestamp tag before each word after
    a cue's first (``<00:00:01.250>``: players can light the words as they
    are said). A line's first cue keeps the line's id; later ones add -2, -3."""
    lines = {line.id: line for line in project.lines}
    out = ["WEBVTT", ""]
    for p in sorted(placements, key=lambda p: p.start):
        text = _caption_text(lines[p.line_id].text)
        role = _vtt_escape(p.role)
        # Split as the SRT is (its rows begin "ROLE: "), so both files have the same cues.
        cues = split_caption(text, p.start, p.end, (words or {}).get(p.line_id, ()), len(p.role) + 2)
        for i, cue in enumerate(cues):
            ident = p.line_id if i == 0 else f"{p.line_id}-{i + 1}"
            body = "\n".join(_vtt_row(row, [(c, t) for r, c, t in cue.stamps if r == k])
                             for k, row in enumerate(cue.rows))
            out.append(f"{ident}\n{_stamp(cue.start, '.')} --> {_stamp(cue.end, '.')}\n<v {role}>{body}\n")
    return "\n".join(out)


def _vtt_row(row: str, stamps: list[tuple[int, float]]) -> str:
    """A row escaped, a timestamp tag inserted at each (character, seconds)."""
    parts = []
    last = 0
    for column, seconds in stamps:
        parts += [_vtt_escape(row[last:column]), f"<{_stamp(seconds, '.')}>"]
        last = column
    parts.append(_vtt_escape(row[last:]))
    return "".join(parts)


def cue_sheet(project: Project, placements: Sequence[Placement], sounds: Sequence[SoundPlacement] = (),
              files: Mapping[str, str] | None = None) -> str:
    """``files``: the file each sound clip played (a placeholder matched from
    the library for this render plays a file its clip does not name)."""
    lines = {line.id: line for line in project.lines}
    clips = {clip.id: clip for clip in project.sounds}
    kinds = {lane.name: CUE_KINDS[lane.kind] for lane in project.sound_lanes}
    staged = line_staging(project)
    placed = sound_staging(project, sounds)
    entries: list[tuple[float, int, dict[str, object]]] = [
        (p.start, 0, {"id": p.line_id, "kind": "line", "role": p.role, "text": _cue_text(lines[p.line_id].text),
                      "start": round(p.start, 4), "end": round(p.end, 4), **staged.get(p.line_id, {})})
        for p in placements
    ]
    for s in sounds:
        clip = clips[s.clip_id]
        file = (files or {}).get(s.clip_id, "")
        entries.append((s.start, 1, {"id": s.clip_id, "kind": kinds.get(s.lane, "sfx"), "lane": s.lane,
                                     "cue": clip.cue, "file": file, "start": round(s.start, 4),
                                     "end": round(s.end, 4), **placed.get(s.clip_id, {})}))
    cues = [entry for _, _, entry in sorted(entries, key=lambda e: (e[0], e[1]))]
    return json.dumps({"title": project.title, **staging_summary(project), "cues": cues}, indent=2,
                      ensure_ascii=False) + "\n"
