"""REAPER's ``.rpp``: one track per role (its gain, pan, mute and solo), one
item per line at the cue sheet's position referencing the line's file,
a marker at each scene's start and a region over each scene.

The format is REAPER's plain-text chunk tree (``<TRACK ... >``); REAPER
accepts a project that gives only these fields and fills in the rest.
Positions are written with 10 decimal places (well under a frame).
"""

from __future__ import annotations

import math

from engine.export.daw.handoff import Handoff, project_file
from engine.export.outputset import OutputSet


def quote(text: str) -> str:
    """An RPP string: double quotes, or single or back quotes when the text
    has double quotes (REAPER's own rule); no line breaks."""
    text = " ".join(text.split())
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
    for role in project.cast:
        volume = math.pow(10, role.gain_db / 20)
        out += ["  <TRACK", f"    NAME {quote(role.name)}", f"    VOLPAN {volume:.6f} {role.pan:.6f} -1 -1 1",
                f"    MUTESOLO {int(role.mute)} {2 if role.solo else 0} 0", "    NCHAN 2"]
        for line in (x for x in handoff.lines if x.role == role.name):
            out += ["    <ITEM", f"      POSITION {line.start:.10f}", f"      LENGTH {line.frames / handoff.rate:.10f}",
                    f"      NAME {quote(line.text)}", f"      IGUID {quote('{' + line.line_id + '}')}",
                    "      <SOURCE WAVE", f"        FILE {quote(line.file)}", "      >", "    >"]
        out.append("  >")
    out.append(">")
    return "\n".join(out) + "\n"


def write(handoff: Handoff, output: OutputSet, name: str) -> None:
    rel = project_file("reaper", name)
    output.path(rel).write_text(render(handoff), encoding="utf-8", newline="\n")
