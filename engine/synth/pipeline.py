"""Planning a project's lines for synthesis, and what a whole-project job returns.

``plan_lines`` runs the text frontend and voice lookup for every line and
reports every problem at once (line number, id and role). The synthesis
itself goes through the scheduler (``engine.export.lines``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.project.model import Line, Project
from engine.project.takes import voice_of
from engine.synth.errors import TextError, VoiceError
from engine.synth.missing_voices import MissingVoice, describe_missing, missing_voices
from engine.synth.read_transfer import direction_for
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

Progress = Callable[[str, int, int], None]


class LineErrors(ValueError):
    """One or more lines cannot be synthesized; each entry names the line and role, or
    the role alone when its voice is the problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class VoicesNotInstalled(LineErrors):
    """The only problem: the cast needs voices this machine does not have (one line, grouped
    by voice, with how to get them: engine/synth/missing_voices.py)."""

    def __init__(self, missing: list[MissingVoice]) -> None:
        super().__init__([describe_missing(missing)])
        self.missing = missing


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


def plan_line(synth: ClipSynthesizer, project: Project, line: Line, seed: int | None = None) -> ClipPlan:
    """The one way a project line is planned: its chosen take (or ``seed``),
    in its lock's voice or its role's, with its role's lexicon over the project's. Raises
    KeyError (unknown role), TextError or VoiceError. A take directed by a read is planned
    with its read (engine/synth/read_transfer.py; ReadError, a TextError, when it cannot be used)."""
    seed = line.take if seed is None else seed
    return synth.plan(line.text, voice_of(project, line), project.lexicon_for(line.role), seed=seed,
                      note=line.note, timing=project.timing, read=direction_for(line, seed))


def plan_lines(project: Project, synth: ClipSynthesizer) -> dict[str, ClipPlan]:
    """Plan every line or raise LineErrors listing every problem at once (VoicesNotInstalled
    when the only problem is voices this machine does not have: said once, not per line)."""
    roles = {r.name: r for r in project.cast}
    plans: dict[str, ClipPlan] = {}
    problems: list[str] = []
    absent = missing_voices(project, synth.library.resolve)
    unvoiced = {line_id for missing in absent for line_id in missing.line_ids}
    # A voice problem (missing model, unknown speaker) is the role's: said once, with its lines counted.
    role_problems: dict[str, tuple[int, str, list[int]]] = {}  # role -> (index in problems, message, lines)
    for number, line in enumerate(project.lines, start=1):
        where = f"line {number} ({line.id}, role {line.role})"
        role = roles.get(line.role)
        if role is None:
            problems.append(f"{where}: unknown role {line.role!r}")
            continue
        if line.id in unvoiced:
            continue
        if line.role in role_problems:
            role_problems[line.role][2].append(number)
            continue
        try:
            plans[line.id] = plan_line(synth, project, line)
        except TextError as exc:
            problems.append(f"{where}: {exc}")
        except VoiceError as exc:
            role_problems[line.role] = (len(problems), str(exc), [number])
            problems.append("")
    for name, (index, message, numbers) in role_problems.items():
        count = f"{len(numbers)} line{'s' if len(numbers) != 1 else ''}, first line {numbers[0]}"
        problems[index] = f"role {name} ({count}): {message}"
    if absent and not problems:
        raise VoicesNotInstalled(absent)
    if problems or absent:
        raise LineErrors(([describe_missing(absent)] if absent else []) + problems)
    return plans

