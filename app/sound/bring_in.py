"""Bringing a producer's own sound files into the project: copied into its sounds/ folder.

Copied, not referenced: a project's sounds/ folder travels with it (copy the folder, zip it,
open it on another machine) and is the library's first folder, so a copied sound is found the
same way a cue written in the script is. A reference to ~/Downloads/door.wav breaks the day the
file moves. An unsaved project has no folder yet: its sounds go to the user sound folder (every
project's library), and the panel says so.

Each copy goes to a temporary name first and is renamed into place, so a half-copied file is
never indexed; a file already there with the same bytes is reused, one with other bytes is
kept and the new one named ``door-2.wav``. Only the file's own name is used (a name from
elsewhere never makes a path outside the folder).
"""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from engine.synth.sound_library import SOUND_SUFFIXES, user_sound_dir


def sounds_folder(project_path: Path | None) -> Path:
    """Where brought-in sounds go: the project's sounds/ folder, or the user sound folder
    while the project has never been saved."""
    return Path(project_path).resolve().parent / "sounds" if project_path is not None else user_sound_dir()


def is_sound(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in SOUND_SUFFIXES and not path.name.startswith(".")


def sound_files_in(folder: Path) -> list[Path]:
    """The sound files under ``folder`` (subfolders too), in name order."""
    return sorted(p for p in folder.rglob("*") if is_sound(p) and not any(
        part.startswith(".") for part in p.relative_to(folder).parts))


def copy_in(source: Path, folder: Path) -> Path:
    """``source`` copied into ``folder`` (made if missing); the path of the copy (or of the
    identical file already there). Raises OSError with the file named."""
    folder.mkdir(parents=True, exist_ok=True)
    name = Path(source.name)  # its own name only: never a path out of the folder
    target = folder / name
    number = 1
    while target.exists():
        if target.resolve() == source.resolve() or filecmp.cmp(target, source, shallow=False):
            return target
        number += 1
        target = folder / f"{name.stem}-{number}{name.suffix}"
    partial = folder / f".{target.name}.part"
    try:
        shutil.copyfile(source, partial)
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise OSError(f"{source}: cannot copy into {folder} ({exc.strerror or exc})") from None
    return target


def bring_in(files: Iterable[Path], folder: Path) -> tuple[list[Path], list[str]]:
    """Copy the sound files among ``files`` (a folder: the sound files under it, into a
    subfolder of its name) into ``folder``. Returns the copies and one line per problem."""
    copied: list[Path] = []
    problems: list[str] = []
    for path in files:
        path = Path(path)
        try:
            if path.is_dir():
                sub = folder / path.name
                found = sound_files_in(path)
                if not found:
                    problems.append(f"{path}: no sound files in this folder ({', '.join(SOUND_SUFFIXES)})")
                for file in found:
                    copied.append(copy_in(file, sub / file.relative_to(path).parent))
            elif is_sound(path):
                copied.append(copy_in(path, folder))
            elif path.exists():
                problems.append(f"{path}: not a sound file ({', '.join(SOUND_SUFFIXES)})")
            else:
                problems.append(f"{path}: no such file")
        except OSError as exc:
            problems.append(str(exc))
    return copied, problems
