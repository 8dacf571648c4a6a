"""Planning a project's lines for synthesis, and what a whole-project job returns.

``plan_lines`` runs the text frontend and voice lookup for every line and
reports every problem at once (line number, id and role). The synthesis
itself goes through the scheduler (``engine.export.lines``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.project.model import Project
from engine.synth.errors import TextError, VoiceError
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

Progress = Callable[[str, int, int], None]


class LineErrors(ValueError):
    """One or more lines cannot be synthesized; each entry names line and role."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class Cancelled(RuntimeError):
    pass


@dataclass
class SynthesisResult:
    clips: dict[str, np.ndarray]
    plans: dict[str, ClipPlan]
    synthesized: int = 0
    cached: int = 0
    audio_seconds_synthesized: float = 0.0
    model_seconds: float = 0.0  # untrimmed model output, comparable to the ONNX ceiling
    pinned: list[str] = field(default_factory=list)


def plan_lines(project: Project, synth: ClipSynthesizer) -> dict[str, ClipPlan]:
    """Plan every line or raise LineErrors listing every problem at once."""
    roles = {r.name: r for r in project.cast}
    plans: dict[str, ClipPlan] = {}
    problems: list[str] = []
    for number, line in enumerate(project.lines, start=1):
        where = f"line {number} ({line.id}, role {line.role})"
        role = roles.get(line.role)
        if role is None:
            problems.append(f"{where}: unknown role {line.role!r}")
            continue
        try:
            plans[line.id] = synth.plan(line.text, role.voice, project.lexicon)
        except (TextError, VoiceError) as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        raise LineErrors(problems)
    return plans

