"""Direct a line by voice: a producer's read becomes a new take in the role's voice.

The read is trimmed, checked and aligned (engine/direct/read.py); what is kept of it
is written beside the project's takes (``takes/`` in the project's folder, as the
table read records there: ``<LINE>.read-<digest>.wav``, named by its contents, so no
read ever replaces another); the line gets a new take (a new seed, chosen) with a
:class:`~engine.project.read_takes.ReadTake` beside it. Voicing it is the
synthesizer's, as for every take (engine/synth/read_transfer.py), so the take
reproduces from the saved project and the read's file.

Nothing here writes the project: the caller does (the command line in place, the
studio through one undo step).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from engine.direct.read import AlignedRead, ReadRefused, prepare_read
from engine.fsutil import atomic_write_bytes
from engine.output_paths import WAV, OutputPathError, folder_problem, problem_with
from engine.project.model import Project
from engine.project.read_takes import STRENGTH_RANGE, ReadTake
from engine.project.takes import with_new_take, with_read_take
from engine.rehearse.take_names import take_file_names
from engine.synth.read_transfer import file_digest
from engine.terminal_text import echo

TAKES_FOLDER = "takes"  # beside the project file, where the table read records its takes
_CONTEXT = 12  # lines either side whose words the recognizer also knows
# What a take follows of the read ("timing only, intonation only, both"), as (timing, intonation) shares.
FOLLOWS: Mapping[str, tuple[int, int]] = {"both": (1, 1), "timing": (1, 0), "intonation": (0, 1)}


class DirectError(ValueError):
    """The line cannot be directed (unknown, locked, unsaved project); one line."""


@dataclass(frozen=True)
class Directed:
    """A line directed by a read: the project with its new take chosen, the take, and the read."""

    project: Project
    take: ReadTake
    read: AlignedRead


def strengths(follow: str, strength: int) -> tuple[int, int]:
    """(timing, intonation) percentages for ``follow`` (both, timing, intonation) at ``strength``."""
    if follow not in FOLLOWS:
        raise DirectError(f"unknown transfer {follow!r} (choose {', '.join(FOLLOWS)})")
    if not STRENGTH_RANGE[0] <= strength <= STRENGTH_RANGE[1]:
        raise DirectError(f"strength {strength} is out of range [{STRENGTH_RANGE[0]}, {STRENGTH_RANGE[1]}] %")
    timing, intonation = FOLLOWS[follow]
    return timing * strength, intonation * strength


def takes_folder(project_path: Path) -> Path:
    return project_path.parent / TAKES_FOLDER


def read_file_name(project: Project, line_id: str, digest: str) -> str:
    """The read's file name: the line's take name (safe and distinct: engine/rehearse/take_names.py)
    with the read's digest, so two reads of one line never share a file."""
    stem = take_file_names([line.id for line in project.lines])[line_id].removesuffix(".wav")
    return f"{stem}.read-{digest[:12]}.wav"


def wav_bytes(audio: np.ndarray, rate: int) -> bytes:
    """The read as it is kept: mono 24-bit WAV (as recorded takes are)."""
    import soundfile

    out = io.BytesIO()
    soundfile.write(out, np.clip(audio, -1.0, 1.0), rate, subtype="PCM_24", format="WAV")
    return out.getvalue()


def direct_line(project: Project, project_path: Path, line_id: str, audio: np.ndarray, rate: int, *,
                timing: int = 100, intonation: int = 100, language: str = "en-us") -> Directed:
    """The line ``line_id`` with a new take directed by ``audio`` (a read at ``rate``), chosen.
    Writes the read beside the project's takes. Raises DirectError or ReadRefused (one line
    each), OutputPathError when the read's file cannot be written there."""
    try:
        line = project.line(line_id)
    except KeyError:
        known = ", ".join(line.id for line in project.lines[:8])
        raise DirectError(f"no line {echo(line_id, 60)} in the project (lines: {known}"
                          f"{', ...' if len(project.lines) > 8 else ''})") from None
    if line.locked is not None:
        raise DirectError(f"line {echo(line_id, 60)} is locked: unlock it to make a new take")
    if line.role not in project.role_names():
        raise DirectError(f"line {echo(line_id, 60)}: unknown role {echo(line.role, 60)}")
    for value, name in ((timing, "timing"), (intonation, "intonation")):
        if not STRENGTH_RANGE[0] <= value <= STRENGTH_RANGE[1]:
            raise DirectError(f"{name} {value} % is out of range [0, 100]")
    index = project.lines.index(line)
    context = [other.text for other in project.lines[max(0, index - _CONTEXT):index + _CONTEXT + 1]
               if other is not line]
    aligned = prepare_read(audio, rate, line.text, lexicon=project.lexicon_for(line.role), context=context,
                           language=language)
    data = wav_bytes(aligned.audio, aligned.rate)
    digest = file_digest(data)
    path = _write_read(takes_folder(project_path), read_file_name(project, line_id, digest), data)
    take = ReadTake(with_new_take(line).take, str(path.absolute()), digest, line.text, aligned.words, timing,
                    intonation)
    directed = with_read_take(line, take)
    return Directed(replace(project, lines=[directed if other is line else other for other in project.lines]),
                    take, aligned)


def discard_read(project: Project, read: Path) -> None:
    """Remove a read kept for a take that was not made (cancelled, or its voicing failed),
    unless a take of ``project`` is directed by the same file: a read is named by its
    contents, so the same read directing a line twice is one file."""
    kept = read.resolve()
    if any(Path(take.read).resolve() == kept for line in project.lines for take in line.read_takes):
        return
    try:
        read.unlink(missing_ok=True)
    except OSError:
        pass  # a stray file beside the takes, never a wrong take


def _write_read(folder: Path, name: str, data: bytes) -> Path:
    """The read's bytes at ``folder/name`` (atomically), by the rule of every output: the
    folder a folder, the name never a FIFO, a device or another kind of file."""
    if folder.exists() and not folder.is_dir():
        raise OutputPathError(f"{echo(folder)}: is a file, not a folder; the project keeps its takes there")
    if (problem := folder_problem(folder)) is not None:
        raise OutputPathError(f"{echo(folder)}: {problem}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if (problem := problem_with(path, WAV)) is not None:
        raise OutputPathError(f"{echo(path)}: {problem}")
    atomic_write_bytes(path, data)
    return path


__all__ = ["DirectError", "Directed", "ReadRefused", "direct_line", "discard_read", "strengths", "takes_folder"]
