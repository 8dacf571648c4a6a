"""REAPER's ``.rpp``: one track per role and per sound lane (its gain, pan,
mute and solo), one item per line and per sound clip at the cue sheet's
position referencing the file written for it, a marker at each scene's start and a region over each scene.
A staged role's track carries its lines' pan and distance as envelopes, and a
"ROLE (staged)" track beside the cast plays its stem (the rendered staging);
the dry track is then muted.

The format is REAPER's plain-text chunk tree (``<TRACK ... >``); REAPER
accepts a project that gives only these fields and fills in the rest.
Positions are written with 10 decimal places (well under a frame).
"""

from __future__ import annotations

import math

from engine.export.daw.handoff import Handoff, one_line, project_file
from engine.export.daw.staging import distance_gain, tail_s
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
        points = handoff.automation.get(track.name, []) if isinstance(track, Role) else []
        # A role with its staged stem beside it: the dry lines are muted (the stem plays, as the mix).
        muted = track.mute or (isinstance(track, Role) and track.name in handoff.stems)
        out += ["  <TRACK", f"    NAME {quote(track.name)}", f"    VOLPAN {volume:.6f} {track.pan:.6f} -1 -1 1",
                f"    MUTESOLO {int(muted)} {2 if track.solo else 0} 0", "    NCHAN 2"]
        if points:
            out += envelopes(points)
        for start, frames, label, ident, file in items:
            out += ["    <ITEM", f"      POSITION {start:.10f}", f"      LENGTH {frames / handoff.rate:.10f}",
                    f"      NAME {quote(label)}", f"      IGUID {quote('{' + ident + '}')}",
                    "      <SOURCE WAVE", f"        FILE {quote(file)}", "      >", "    >"]
        out.append("  >")
    for role in project.cast:
        stem = handoff.stems.get(role.name)
        if stem is None:
            continue
        volume = math.pow(10, role.gain_db / 20)
        # The stem is the staged voice, placed and panned already: the track pans it no more.
        out += ["  <TRACK", f"    NAME {quote(role.name + ' (staged)')}", f"    VOLPAN {volume:.6f} 0 -1 -1 1",
                f"    MUTESOLO {int(role.mute)} {2 if role.solo else 0} 0", "    NCHAN 2",
                "    <ITEM", "      POSITION 0", f"      LENGTH {handoff.length_s + tail_s(project):.10f}", "      LOOP 0",
                f"      NAME {quote(role.name + ' staged')}", f"      IGUID {quote('{stem:' + role.name + '}')}",
                "      <SOURCE WAVE", f"        FILE {quote(stem)}", "      >", "    >", "  >"]
    out.append(">")
    return "\n".join(out) + "\n"


def envelopes(points: list[tuple[float, float, float]]) -> list[str]:
    """A role's staging as a pan envelope and a volume envelope (distance by the
    inverse distance law). REAPER's pan envelope runs from +1 (left) to -1 (right),
    the other way from the track's VOLPAN pan (SWS formats a positive pan envelope
    value as "L": docs/dev/staging.md cites it)."""
    pan = ["    <PANENV2", "      ACT 1 -1", "      VIS 1 1 1", "      ARM 0", "      DEFSHAPE 0 -1 -1"]
    pan += [f"      PT {t:.10f} {-p:.6f} 0" for t, p, _ in points]
    volume = ["    <VOLENV2", "      ACT 1 -1", "      VIS 1 1 1", "      ARM 0", "      DEFSHAPE 0 -1 -1"]
    volume += [f"      PT {t:.10f} {distance_gain(d):.6f} 0" for t, _, d in points]
    return [*pan, "    >", *volume, "    >"]


def write(handoff: Handoff, output: OutputSet, name: str) -> None:
    rel = project_file("reaper", name)
    output.path(rel).write_text(render(handoff), encoding="utf-8", newline="\n")
