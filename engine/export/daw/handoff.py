"""What every DAW writer gets (:class:`Handoff`): the cue sheet's timeline,
one file per line written beside the project, the cast, the scenes; and the
names of those files, known before anything is voiced."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import soundfile as sf

from engine.export.delivery import scene_chapters
from engine.export.names import safe_stem, unique_file_names
from engine.export.outputset import OutputSet
from engine.project.model import Project
from engine.project.timeline import Placement

DAWS = ("reaper", "audacity", "otio")
LINES_DIR = "lines"
_EXTENSIONS = {"reaper": ".rpp", "audacity": ".lof", "otio": ".otio"}


@dataclass(frozen=True)
class LineFile:
    line_id: str
    role: str
    text: str
    file: str  # relative to the output folder
    start: float  # seconds, the cue sheet's
    frames: int


@dataclass(frozen=True)
class SceneSpan:
    title: str
    start: float
    end: float


@dataclass
class Handoff:
    project: Project
    rate: int
    lines: list[LineFile]
    scenes: list[SceneSpan]
    length_s: float


def project_file(kind: str, name: str) -> str:
    """``PROJECT.rpp`` and friends, named after the project file (made safe)."""
    if kind not in DAWS:
        raise ValueError(f"unknown DAW {kind!r} (choose {', '.join(DAWS)})")
    return safe_stem(name) + _EXTENSIONS[kind]


def line_files(project: Project) -> dict[str, str]:
    """One file per line, numbered in script order: ``lines/0001_ROLE_L0001.wav``."""
    width = max(4, len(str(len(project.lines))))
    names = unique_file_names([f"{n:0{width}d} {line.role} {line.id}" for n, line in enumerate(project.lines, 1)],
                              ".wav")
    return {line.id: f"{LINES_DIR}/{name.file}" for line, name in zip(project.lines, names, strict=True)}


def daw_files(kind: str, project: Project, name: str) -> list[str]:
    """What ``--daw KIND`` adds to the export set."""
    extra = [project_file(kind, name)]
    if kind == "audacity":
        extra.append(safe_stem(name) + "-labels.txt")
    return [*extra, *line_files(project).values()]


def build_handoff(project: Project, placements: list[Placement], clips: dict[str, np.ndarray],
                  output: OutputSet) -> Handoff:
    """Write each line's file into ``output`` and describe the timeline."""
    files = line_files(project)
    texts = {line.id: line.text for line in project.lines}
    rate = project.sample_rate
    lines = []
    for p in sorted(placements, key=lambda p: (p.start, p.line_id)):
        clip = clips[p.line_id]
        sf.write(output.path(files[p.line_id]), clip, rate, subtype="PCM_24")
        lines.append(LineFile(p.line_id, p.role, texts[p.line_id], files[p.line_id], p.start, int(clip.shape[0])))
    by_line = {p.line_id: p for p in placements}
    scenes = []
    for chapter in scene_chapters(project):
        placed = [by_line[i] for i in chapter.line_ids if i in by_line]
        if placed:
            scenes.append(SceneSpan(chapter.title, min(p.start for p in placed), max(p.end for p in placed)))
    return Handoff(project, rate, lines, scenes, max((p.end for p in placements), default=0.0))
