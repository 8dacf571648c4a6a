"""A render's sounds checked before synthesis: an unusable sound file fails the
render with one line naming the file and the cue (unless
``--allow-missing-sounds``), and the warnings a render shows (placeholders,
relinked files, sounds rendered as silence). The sounds themselves are found,
loaded and placed in engine/mixdown/sound_placement.py, as live playback does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine.export.outputset import ExportError
from engine.mixdown.sound_placement import SoundSet, describe, resolve_sounds
from engine.project.model import Project
from engine.synth.cache import ClipCache
from engine.synth.sound_library import SoundLibrary


class MissingSound(ExportError):
    """A sound clip's file cannot be used (one line: the file, the cue, why,
    and how to render anyway)."""


def check_sounds(sounds: SoundSet, allow_missing: bool) -> list[str]:
    """Warnings for a render: placeholders, and (allowed) missing files.
    Raises MissingSound for the first missing file unless ``allow_missing``."""
    if sounds.problems and not allow_missing:
        raise MissingSound(f"{next(iter(sounds.problems.values()))} "
                           "(--allow-missing-sounds renders the rest with silence there)")
    warnings = [f"placeholder: {describe(c)} has no sound yet (silent)" for c in sounds.placeholders]
    warnings += list(sounds.relinked.values())
    warnings += [f"{problem} (rendered as silence)" for problem in sounds.problems.values()]
    return warnings


def project_sounds(project: Project, project_path: Path | None, folders: Sequence[Path] = (),
                   allow_missing: bool = False, cache: ClipCache | None = None,
                   load: bool = True) -> tuple[SoundSet, list[str]]:
    """A render's sounds and the warnings to show; raises MissingSound (one
    line) for an unusable file unless ``allow_missing``. ``load=False``: the
    same check from the files' headers alone (see resolve_sounds); a render
    runs it before synthesis and loads the audio while the lines are voiced."""
    if not project.sounds:
        return SoundSet(), []
    project_dir = Path(project_path).resolve().parent if project_path is not None else None
    library = SoundLibrary.for_project(project_path, folders)
    sounds = resolve_sounds(project, project_dir, library, cache, load)
    return sounds, check_sounds(sounds, allow_missing)
