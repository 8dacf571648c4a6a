"""What every DAW writer gets (:class:`Handoff`): the cue sheet's timeline,
one file per line and one per sound clip written beside the project, the
cast, the sound lanes, the scenes; and the names of those files, known
before anything is voiced.

A sound clip's file is the clip as its lane plays it (trimmed or looped to
its span, its fades, gain and pan baked in, through the same SoundBus the
mix uses); the lane's own gain, pan, mute and solo go on its track, and
ducking under the dialogue is left to the DAW (it depends on the mix).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import soundfile as sf

from engine.audio.soundbus import SoundBus
from engine.export.daw.staging import automation
from engine.export.delivery import scene_chapters
from engine.export.names import safe_stem, unique_file_names
from engine.export.outputset import OutputSet
from engine.mixdown.sound_placement import SoundSet, place_sounds
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement

DAWS = ("reaper", "audacity", "otio")
LINES_DIR = "lines"
SOUNDS_DIR = "sound-clips"
_BLOCK = 8192
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
class SoundFile:
    clip_id: str
    lane: str
    cue: str
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
    sounds: list[SoundFile]
    # Staging (engine/export/daw/staging.py): role -> (seconds, pan, distance) points, and
    # role -> its stem's file (the rendered staging) when stems were written.
    automation: dict[str, list[tuple[float, float, float]]] = field(default_factory=dict)
    stems: dict[str, str] = field(default_factory=dict)


def one_line(text: str) -> str:
    """A name or text as one line of a DAW's text format (Audacity's labels,
    REAPER's fields): every control, format or line-separator character (a
    newline, tab, NUL, U+2028...) becomes a space and runs of spaces one, so a
    hostile name can neither add a row nor end a field."""
    cleaned = "".join(" " if unicodedata.category(ch)[0] == "C" or ch in "\u2028\u2029" else ch for ch in text)
    return " ".join(cleaned.split())


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


def sound_files(project: Project) -> dict[str, str]:
    """One file per sound clip: ``sound-clips/0001_LANE_CLIPID.wav``."""
    width = max(4, len(str(len(project.sounds))))
    names = unique_file_names([f"{n:0{width}d} {c.lane} {c.id}" for n, c in enumerate(project.sounds, 1)], ".wav")
    return {c.id: f"{SOUNDS_DIR}/{name.file}" for c, name in zip(project.sounds, names, strict=True)}


def daw_files(kind: str, project: Project, name: str) -> list[str]:
    """What ``--daw KIND`` adds to the export set."""
    extra = [project_file(kind, name)]
    if kind == "audacity":
        extra.append(safe_stem(name) + "-labels.txt")
    return [*extra, *line_files(project).values(), *sound_files(project).values()]


def clip_as_played(project: Project, sounds: SoundSet, placement: SoundPlacement) -> np.ndarray:
    """(frames, 2) float32: the clip over its span as its lane plays it
    before the lane's gain and ducking (silence for a placeholder or a
    missing file, as the mix has it; a placed effect staged, its room's tail too)."""
    rate = project.sample_rate
    frames = int(round(placement.end * rate)) - int(round(placement.start * rate))
    placed = place_sounds(project, sounds, [placement])
    frames = max(frames, placed[0].length) if placed else frames
    out = np.zeros((max(0, frames), 2), dtype=np.float32)
    if not placed or not frames:
        return out
    bus = SoundBus(["effects"], rate, _BLOCK)
    bus.set_sounds([replace(placed[0], lane=0, start=0)])
    stems = np.zeros((1, _BLOCK, 2), dtype=np.float32)
    for t in range(0, frames, _BLOCK):
        n = min(_BLOCK, frames - t)
        bus.process(t, n, stems[:, :n])
        out[t:t + n] = stems[0, :n]
    return out


def _write_sounds(project: Project, placements: Sequence[SoundPlacement], sounds: SoundSet,
                  output: OutputSet) -> list[SoundFile]:
    files = sound_files(project)
    clips = {c.id: c for c in project.sounds}
    out = []
    for p in sorted(placements, key=lambda p: (p.start, p.clip_id)):
        audio = clip_as_played(project, sounds, p)
        sf.write(output.path(files[p.clip_id]), audio, project.sample_rate, subtype="FLOAT")
        out.append(SoundFile(p.clip_id, p.lane, clips[p.clip_id].cue, files[p.clip_id], p.start, audio.shape[0]))
    placed = {p.clip_id for p in placements}
    for clip_id, rel in files.items():  # a clip with no place on the timeline: an empty file, no item
        if clip_id not in placed:
            sf.write(output.path(rel), np.zeros((0, 2), dtype=np.float32), project.sample_rate, subtype="FLOAT")
    return out


def build_handoff(project: Project, placements: list[Placement], clips: Mapping[str, np.ndarray],
                  output: OutputSet, sound_placements: Sequence[SoundPlacement] = (),
                  sounds: SoundSet | None = None, stems: dict[str, str] | None = None) -> Handoff:
    """Write each line's (dry) and each sound clip's file into ``output`` and
    describe the timeline; ``stems``: role -> its stem file, the rendered staging."""
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
    written = _write_sounds(project, sound_placements, sounds or SoundSet(), output)
    length = max([*(p.end for p in placements), *(p.end for p in sound_placements)], default=0.0)
    staged = automation(project, placements)
    return Handoff(project, rate, lines, scenes, length, written, staged,
                   {role: file for role, file in (stems or {}).items() if role in staged})
