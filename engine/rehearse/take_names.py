"""The file name of each line's recorded take (and of a simulated reader's
recording): the line id made safe by engine/export/names.py, for every line
of the project at once, so ids that sanitize alike (``A/1`` and ``A_1``) get
distinct files (``A_1.wav``, ``A_1-2.wav``) instead of one take overwriting
the other. Apart from takes.py so the reader can use it without an import circle."""

from __future__ import annotations

from engine.export.names import unique_file_names


def take_file_names(line_ids: list[str]) -> dict[str, str]:
    """The WAV file name of each line's take: safe, and distinct for distinct
    ids (the first line in script order keeps the plain name)."""
    return {n.name: n.file for n in unique_file_names(line_ids, ".wav")}
