"""The neutral result of parsing a script file, before it becomes a Project.

Importers (Fountain, plain text) only parse; turning the parsed elements into
roles, scenes and lines is done once, in ``engine.project.importers.build``, so
both formats share the same casting rules and the same report.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SceneHeading:
    """Start of a new scene (Fountain scene heading or a ``# Scene`` comment)."""

    heading: str
    source_line: int


@dataclass(frozen=True)
class Dialogue:
    """One spoken block of one character.

    ``character`` is the cue as normalized for casting (extensions stripped,
    upper-cased unless forced with ``@``); ``extensions`` keeps what was
    stripped, e.g. ``("V.O.",)``. ``note`` is the parenthetical delivery note,
    which is kept for the actor/producer but never spoken.
    """

    character: str
    text: str
    source_line: int
    extensions: tuple[str, ...] = ()
    note: str = ""
    dual: bool = False


@dataclass(frozen=True)
class Action:
    """Scene description; kept as a scene note, voiced only with narrate-action."""

    text: str
    source_line: int


@dataclass(frozen=True)
class Pause:
    """An explicit pause, e.g. ``[pause 1.5]`` in plain-text scripts."""

    seconds: float
    source_line: int


@dataclass(frozen=True)
class Transition:
    """``CUT TO:`` and friends: kept as a scene note, never spoken."""

    text: str
    source_line: int


@dataclass(frozen=True)
class Note:
    """A comment to self (``# check the pub name``): a scene note, never voiced."""

    text: str
    source_line: int


@dataclass(frozen=True)
class SoundCue:
    """``SFX: thunder`` (``kind`` a sound lane kind: effects, ambience, music)
    or, with ``out``, ``MUSIC OUT``: a cue for the sound lanes, never a role."""

    kind: str
    text: str
    source_line: int
    out: bool = False


Element = SceneHeading | Dialogue | Action | Pause | Transition | Note | SoundCue


@dataclass
class ParsedScript:
    """Everything an importer found, in script order, plus what it noticed."""

    source: str
    title: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    elements: list[Element] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class ScriptSyntaxError(ValueError):
    """A script could not be parsed; names the file and line."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}:{line}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem
