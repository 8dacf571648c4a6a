"""REAPER's ``.rpp``: one track per role and per sound lane (its gain, pan,
mute and solo), one item per line and per sound clip at the cue sheet's
position referencing the file written for it, a marker at each scene's start and a region over each scene.

The format is REAPER's plain-text chunk tree (``<TRACK ... >``); REAPER
accepts a project that gives only these fields and fills in the rest.
Positions are written with 10 decimal places (well under a frame).
"""

from __future__ import annotations

import math

from engine.export.daw.handoff import Handoff, one_line, project_file
from engine.export.outputset import OutputSet
from engine.project.model import Role
from engine.project.sound import SoundLane


def quote(text: str) -> str:
    """An RPP string: double quotes, or single or back quotes when the text
    has double quotes (REAPER's own rule); one line, no control characters."""
    text = one_line(text)
    for mark in ('"', "'", "`"):
        if mark not in text:
            return f"{mark}{text}{mark}"
    return '"' + text.replace('"', "'") + '"'


def render(handoff: Handoff) -> str:
    project = handoff.project
    out = ['<REAPER_PROJECT 0.1 "6.0/radioplay" 0', f"  SAMPLERATE {handoff.rate} 0 0",
           f"  TITLE {quote(project.title)}"]
    for i, scene in enumerate(handoff.scenes, start=1):
        out.append(f"  MARKER {i} {scene.start:.10f} {quote(scene.title)} 0")
    for i, scene in enumerate(handoff.scenes, start=len(handoff.scenes) + 1):
        out.append(f"  MARKER {i} {scene.start:.10f} {quote(scene.title)} 1")
        out.append(f'  MARKER {i} {scene.end:.10f} "" 1')
    tracks: list[tuple[Role | SoundLane, list[tuple[float, int, str, str, str]]]]
    tracks = [(role, [(x.start, x.frames, x.text, x.line_id, x.file) for x in handoff.lines if x.role == role.name])
              for role in project.cast]
    tracks += [(lane, [(x.start, x.frames, x.cue or x.clip_id, x.clip_id, x.file)
                       for x in handoff.sounds if x.lane == lane.name]) for lane in project.sound_lanes]
    for track, items in tracks:
        volume = math.pow(10, track.gain_db / 20)
        out += ["  <TRACK", f"    NAME {quote(track.name)}", f"    VOLPAN {volume:.6f} {track.pan:.6f} -1 -1 1",
                f"    MUTESOLO {int(track.mute)} {2 if track.solo else 0} 0", "    NCHAN 2"]
        for start, frames, label, ident, file in items:
            out += ["    <ITEM", f"      POSITION {start:.10f}", f"      LENGTH {frames / handoff.rate:.10f}",
                    f"      NAME {quote(label)}", f"      IGUID {quote('{' + ident + '}')}",
                    "      <SOURCE WAVE", f"        FILE {quote(file)}", "      >", "    >"]
        out.append("  >")
    out.append(">")
    return "\n".join(out) + "\n"


def write(handoff: Handoff, output: OutputSet, name: str) -> None:
    rel = project_file("reaper", name)
    output.path(rel).write_text(render(handoff), encoding="utf-8", newline="\n")
