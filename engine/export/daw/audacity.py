"""Audacity: a ``.lof`` list of files (each line's file at its offset; File >
Open on the list builds the timeline) and a label track file (File > Import >
Labels): one label per line, ``SPEAKER: text``, over the line's span; the
sound clips' files too, each labelled ``LANE: cue``; a staged role's stem (the
rendered staging: rooms, perspectives, movement) at offset 0 beside its dry lines."""

from __future__ import annotations

from engine.export.daw.handoff import Handoff, one_line, project_file
from engine.export.names import safe_stem
from engine.export.outputset import OutputSet


def write(handoff: Handoff, output: OutputSet, name: str) -> None:
    lof = [f'file "{line.file}" offset {line.start:.6f}' for line in handoff.lines]
    lof += [f'file "{sound.file}" offset {sound.start:.6f}' for sound in handoff.sounds]
    lof += [f'file "{stem}" offset 0.000000' for stem in handoff.stems.values()]  # the rendered staging
    output.path(project_file("audacity", name)).write_text("\n".join(lof) + "\n", encoding="utf-8", newline="\n")
    # One row per label: names and texts lose their tabs, newlines and NULs (one_line).
    labels = [f"{line.start:.6f}\t{line.start + line.frames / handoff.rate:.6f}\t"
              f"{one_line(line.role)}: {one_line(line.text)}" for line in handoff.lines]
    labels += [f"{s.start:.6f}\t{s.start + s.frames / handoff.rate:.6f}\t"
               f"{one_line(s.lane)}: {one_line(s.cue or s.clip_id)}" for s in handoff.sounds]
    labels += [f"{s.start:.6f}\t{s.start:.6f}\t[{one_line(s.title)}]" for s in handoff.scenes]
    output.path(safe_stem(name) + "-labels.txt").write_text("\n".join(labels) + "\n", encoding="utf-8",
                                                            newline="\n")
