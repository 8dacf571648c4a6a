"""The DME stems of a render (``dme/DX.wav``, ``FX.wav``, ``MX.wav``): dialogue, effects
(and ambience), music, after ducking; they sum to what enters the master chain. DX is
always written; FX and MX only where a clip that plays a sound sits on one of their lanes:
a play without sound design gets DX alone, not two files of digital silence (52 MB each on
the held-out storm script), and nothing in the set (the manifest, the DAW hand-offs, the
report) names a stem that was not written. Broadcast names are the stems' own
(engine/export/names.py ``broadcast_stem``; stems are 32-bit float).
"""

from __future__ import annotations

from collections.abc import Collection

from engine.export.names import broadcast_stem
from engine.project.model import Project

DME_FILES = ("DX.wav", "FX.wav", "MX.wav")  # OUTDIR/dme/: dialogue, effects (and ambience), music


def dme_buses(project: Project, playing: Collection[str] | None = None) -> tuple[int, ...]:
    """The DME buses a render writes (0 DX, 1 FX, 2 MX): dialogue always, effects and
    music where a clip that plays a sound (``playing``: the clip ids a render resolved to a
    usable file, a placeholder it matched included; None: the clips naming a file) sits
    on a lane of theirs. A bus without one is silence, and is not written."""
    kinds = {lane.name: lane.kind for lane in project.sound_lanes}
    sounding = {c.id for c in project.sounds if c.file} if playing is None else set(playing)
    carried = {2 if kinds.get(clip.lane) == "music" else 1 for clip in project.sounds
               if clip.id in sounding and clip.lane in kinds}
    return (0, *sorted(carried))


def dme_files(project: Project, style: str = "plain", buses: tuple[int, ...] = (0, 1, 2)) -> list[str]:
    """The DX, FX and MX stems' files in dme/, in that order: those of ``buses`` (:func:`dme_buses`)."""
    names = [DME_FILES[i] for i in buses]
    if style == "broadcast":
        return [broadcast_stem(project.title, name.removesuffix(".wav"), project.sample_rate, 32) + ".wav"
                for name in names]
    return names
