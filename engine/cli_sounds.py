"""The sound options and messages of the ``radioplay`` verbs (engine/cli.py).

``--sounds DIR`` (import, render, play) adds a folder to the sound library
after ``sounds/`` beside the project; ``--allow-missing-sounds`` (render)
renders with silence where a sound file cannot be used. Kept apart so the
command line module stays one screenful per verb.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.project.model import Project


def add_sounds_option(p: argparse.ArgumentParser, render: bool = False) -> None:
    p.add_argument("--sounds", action="append", default=[], metavar="DIR",
                   help="a folder of sound files for the cues (after sounds/ beside the project; repeatable)")
    if render:
        p.add_argument("--allow-missing-sounds", action="store_true",
                       help="render even if a sound file is missing or unreadable (silence there)")


def match_cues(project: Project, out: Path, folders: list[str]) -> list[str]:
    """Give the imported cues the library's matching sounds; the lines to print."""
    if not project.sounds:
        return []
    from engine.synth.sounds import SoundLibrary, assign_matches

    matched = assign_matches(project, SoundLibrary.for_project(out, [Path(f) for f in folders]))
    lanes = ", ".join(lane.name for lane in project.sound_lanes)
    return [f"Sound cues: {len(project.sounds)} on {lanes} ({len(matched)} matched to a sound, "
            f"{len(project.sounds) - len(matched)} placeholders)",
            *(f"  {clip.lane}: {clip.cue!r} -> {info.path}" for clip, info in matched)]
