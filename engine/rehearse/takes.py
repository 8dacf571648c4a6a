"""Recorded takes (``--record DIR``): each live line as a WAV of its own.

The reader's sound from the cue to the end of the line, trimmed to the
speech with a short pad so breaths and consonant tails survive, at the
project rate, written to a temporary name and renamed (a run stopped
mid-write leaves no half file). The file is named after the line id made
safe (engine/export/names.py): a hostile id cannot leave the folder, and the
names are made for every line of the project at once, so ids that sanitize
alike (``A/1`` and ``A_1``) get distinct files (``A_1.wav``, ``A_1-2.wav``)
instead of one take overwriting the other. A simulated reader's folder of
recordings is read under the same names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.fsutil import commit, temp_path_for
from engine.output_paths import WAV, OutputPathError, folder_problem, problem_with, stat_inputs
from engine.project.model import Project
from engine.rehearse.listener import Heard
from engine.terminal_text import echo

PAD_S = 0.15


def trimmed(heard: Heard, rate: int, pad_s: float = PAD_S) -> np.ndarray | None:
    """The speech of the line with ``pad_s`` either side, or None when none was heard."""
    if not heard.audio or heard.audio_start is None or heard.speech_start is None or heard.speech_end is None:
        return None
    audio = np.concatenate(heard.audio)
    begin = max(0, int((heard.speech_start - heard.audio_start - pad_s) * rate))
    end = min(audio.size, int((heard.speech_end - heard.audio_start + pad_s) * rate))
    return audio[begin:end] if end > begin else None


def check_takes(folder: Path, file_names: Iterable[str], inputs: Sequence[tuple[str, str | Path]] = (),
                overwrite: bool = False) -> None:
    """The takes folder and each take's name, checked before a read starts by the rule of
    every output (engine/output_paths.py): a folder (made where missing), and no take
    replaces one of ``inputs`` (the project, a simulated reader's recordings: one folder
    for both would replace each read with its trimmed take), a FIFO or a device, or (without
    ``overwrite``) a file that is not a WAV. Raises OutputPathError (one line)."""
    if folder.exists() and not folder.is_dir():
        raise OutputPathError(f"--record {echo(folder)}: is a file, not a folder; --record needs a folder")
    problem = folder_problem(folder)
    if problem is not None:
        raise OutputPathError(f"--record {echo(folder)}: {problem}")
    if not folder.is_dir():
        return  # nothing in it yet
    seen = stat_inputs(inputs)
    for name in file_names:
        problem = problem_with(folder / name, WAV, seen, overwrite)
        if problem is not None:
            raise OutputPathError(f"--record {echo(folder)}: {echo(name)} {problem}")


def save_take(heard: Heard, rate: int, folder: Path, file_name: str) -> Path | None:
    """Write the line's take as ``folder/file_name`` (engine/rehearse/take_names.py)."""
    import soundfile

    audio = trimmed(heard, rate)
    if audio is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / file_name
    temp = temp_path_for(final)
    try:
        soundfile.write(str(temp), audio, rate, subtype="PCM_24", format="WAV")
        # What the name holds was checked before the read (engine/rehearse/command.py);
        # a FIFO, a device or a link out of the folder put there since is not replaced.
        problem = problem_with(final, WAV, overwrite=True)
        if problem is not None:
            raise OutputPathError(f"--record {echo(folder)}: {echo(file_name)} {problem}")
        commit(temp, final)
    finally:
        temp.unlink(missing_ok=True)
    return final


def attach_takes(project: Project, takes: dict[str, Path]) -> Project:
    """The production with these lines' recorded takes in place of synthesis."""
    lines = [replace(line, recording=str(takes[line.id].absolute())) if line.id in takes else line
             for line in project.lines]
    return replace(project, lines=lines)
