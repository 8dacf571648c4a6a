"""What ``radioplay import`` does with sound cues (engine/cli.py).

``--sounds DIR`` (import, render, play; engine/export/command.py declares
it) adds a folder to the sound library after ``sounds/`` beside the project;
the imported cues take the sounds they match. Kept apart so the command line
module stays under its size limit.
"""

from __future__ import annotations

from pathlib import Path

from engine.project.model import Project


def match_cues(project: Project, out: Path, folders: list[str]) -> list[str]:
    """Give the imported cues the library's matching sounds; the lines to print."""
    if not project.sounds:
        return []
    from engine.synth.sound_library import SoundLibrary, assign_matches

    matched = assign_matches(project, SoundLibrary.for_project(out, [Path(f) for f in folders]))
    lanes = ", ".join(lane.name for lane in project.sound_lanes)
    return [f"Sound cues: {len(project.sounds)} on {lanes} ({len(matched)} matched to a sound, "
            f"{len(project.sounds) - len(matched)} placeholders)",
            *(f"  {clip.lane}: {clip.cue!r} -> {info.path}" for clip, info in matched)]
