"""Hand-off to a DAW: the timeline as a project another program opens.

Every writer gets the same :class:`~engine.export.daw.handoff.Handoff` (the
cue sheet's placements, one audio file per line written beside the project,
the cast's gain and pan, the scenes), so REAPER, Audacity and
OpenTimelineIO show the same timeline the cue sheet and the captions
describe.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.export.daw import audacity, otio, reaper
from engine.export.daw.handoff import DAWS, build_handoff, daw_files
from engine.export.outputset import OutputSet
from engine.mixdown.sound_placement import SoundSet
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement

__all__ = ["DAWS", "daw_files", "write_daw"]
_WRITERS = {"reaper": reaper.write, "audacity": audacity.write, "otio": otio.write}


def write_daw(kind: str, project: Project, name: str, placements: list[Placement],
              clips: dict[str, np.ndarray], output: OutputSet, sound_placements: Sequence[SoundPlacement] = (),
              sounds: SoundSet | None = None, stems: dict[str, str] | None = None) -> None:
    handoff = build_handoff(project, placements, clips, output, sound_placements, sounds, stems)
    _WRITERS[kind](handoff, output, name)
