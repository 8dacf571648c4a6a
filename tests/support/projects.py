"""Small projects the tests build on the tiny generated voices."""

from __future__ import annotations

from pathlib import Path

from engine.project.model import Line, Project, Role, Scene, VoiceParams


def tiny_project(voice: Path, roles: int = 3, lines_per_role: int = 2) -> Project:
    names = [f"ROLE{i}" for i in range(roles)]
    project = Project(title="Tiny", sample_rate=48_000, scenes=[Scene("S1", "A room")])
    for i, name in enumerate(names):
        project.cast.append(Role(name=name, voice=VoiceParams(voice=str(voice), pitch=float(i)), pan=(i - 1) * 0.5))
    n = 0
    for k in range(lines_per_role):
        for name in names:
            n += 1
            project.lines.append(Line(id=f"L{n:04d}", role=name, scene="S1",
                                      text=f"Line number {n} spoken by {name.lower()}, take {k}."))
    return project
