"""The production being made: cast, scenes, lines, lexicon, timing.

Plain dataclasses with no I/O and no Qt, so the GUI, the CLI, the HTTP
service and the file format all share one definition of each concept.
"""

from __future__ import annotations

import uuid
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from engine.project.defaults import (
    DEFAULT_BACKEND,
    DEFAULT_BEAT,
    DEFAULT_COLOUR,
    DEFAULT_GAIN_DB,
    DEFAULT_LINE_GAP,
    DEFAULT_LONG_PAUSE,
    DEFAULT_PAN,
    DEFAULT_PAUSE,
    DEFAULT_PITCH,
    DEFAULT_PRIORITY,
    DEFAULT_SAMPLE_RATE,
    DEFAULT_SCENE_GAP,
    DEFAULT_SPEED,
    DEFAULT_TITLE,
    DEFAULT_VARIATION,
    DEFAULT_VOICE,
    ROLE_COLOURS,
)
from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.presets import DEFAULT_LANE_EFFECT, DEFAULT_MASTER_EFFECT
from engine.project.read_takes import ReadTake
from engine.project.sound import SoundClip, SoundLane, SoundSuggestion
from engine.project.staging import Position, Room


@dataclass(frozen=True)
class VoiceParams:
    """Everything that changes how a role's lines *sound* before mixing.

    This is part of every clip cache key: changing any field re-synthesizes
    the role's lines, while mix settings (gain, pan, mute) never do.

    ``voice`` is a voice-library id (``en_US-joe-medium``) or a path to a
    Piper ``.onnx`` file; ``speaker`` selects a speaker of a multi-speaker
    voice by id or name. ``speed`` > 1 is faster; ``variation`` scales the
    model's noise (0 = flat and steady, 1 = the voice's default liveliness);
    ``pitch`` is in semitones and preserves formants (the shaping stage
    folds it into the design's F0 level: one WORLD path). ``design`` is the
    voice design over the installed voice (engine.project.design; neutral
    = the voice as installed).
    """

    voice: str = DEFAULT_VOICE
    backend: str = DEFAULT_BACKEND
    speaker: int | str | None = None
    speed: float = DEFAULT_SPEED
    variation: float = DEFAULT_VARIATION
    pitch: float = DEFAULT_PITCH
    design: VoiceDesign = NEUTRAL

    @property
    def effective_design(self) -> VoiceDesign:
        """What the shaping stage applies: the design with ``pitch`` added to its F0 level."""
        if not self.pitch:
            return self.design
        return self.design.with_changes(f0_shift=self.design.f0_shift + self.pitch).clamped()

    def with_changes(self, **changes: object) -> VoiceParams:
        return replace(self, **changes)  # type: ignore[arg-type]


GENDERS = ("female", "male")
AGES = ("child", "adult", "older")


@dataclass(frozen=True)
class Character:
    """Who a role is, as far as casting cares: gender and age ("" = not known),
    the evidence they were read from (engine/project/casting.py ``infer_characters``)
    and whether the producer set them (then a new inference never overrides them)."""

    gender: str = ""  # one of GENDERS or ""
    age: str = ""  # one of AGES or ""
    evidence: str = ""  # where it came from, in words: "title MRS.", "line L0012: 'her son TOM'"
    by_producer: bool = False

    def with_changes(self, **changes: object) -> Character:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass
class Role:
    """A character in the cast and its lane on the timeline."""

    name: str
    colour: str = DEFAULT_COLOUR
    voice: VoiceParams = field(default_factory=VoiceParams)
    gain_db: float = DEFAULT_GAIN_DB
    pan: float = DEFAULT_PAN  # -1 = left, +1 = right
    mute: bool = False
    solo: bool = False
    priority: float = DEFAULT_PRIORITY  # scheduler base weight: leads get more
    effect: str = DEFAULT_LANE_EFFECT  # lane preset (engine.project.presets.LANE_EFFECTS)
    # The role's own pronunciations: they win over the project lexicon's for this role's lines.
    # Replaced, never edited in place (the frontend indexes a lexicon once per dict).
    lexicon: dict[str, str] = field(default_factory=dict)
    character: Character = field(default_factory=Character)


@dataclass
class Scene:
    """A scene; ``room`` is where it happens (None: no room, lines dry), with
    ``room_evidence`` saying why it was chosen (the heading's words, or
    "set by hand")."""

    id: str
    heading: str = ""
    notes: list[str] = field(default_factory=list)
    room: Room | None = None
    room_evidence: str = ""


@dataclass
class Line:
    """One spoken line. ``note`` is a delivery note: kept, never spoken.

    Placement, most specific first: ``start`` pins the line to an absolute
    time in seconds; ``with_previous`` starts it together with the previous
    line (dual dialogue); ``overlap`` starts it that many seconds before the
    previous line ends (an interruption). The relative forms survive edits
    that change earlier lines' lengths, which absolute times would not.

    Takes (engine.project.takes): ``take`` is the seed of the take heard,
    ``takes`` every seed made for the line; ``locked`` holds the voice the
    chosen take keeps while the role's voice changes (None: not locked).
    ``recording`` is a recorded take (a WAV file; an absolute path in memory,
    stored relative to the project file): the mix and the export use it
    instead of synthesis for this line. ``read_takes``: the takes directed by
    a producer's read (engine/project/read_takes.py), each beside its seed.

    Staging: ``perspective`` (engine.project.staging.PERSPECTIVES: off, phone, radio,
    door, moving-away...) with ``perspective_evidence``, and ``position`` (pan,
    distance, movement keyframes) set in the studio.
    """

    id: str
    role: str
    text: str
    scene: str | None = None
    note: str = ""
    pause_before: float = 0.0
    start: float | None = None
    overlap: float = 0.0
    with_previous: bool = False
    take: int = 0
    takes: tuple[int, ...] = ()
    locked: VoiceParams | None = None
    recording: str | None = None
    read_takes: tuple[ReadTake, ...] = ()
    # Staging (engine/project/staging.py): how the line is miked ("" = as its role is) and why
    # (the script's words that said so), and where the producer placed it.
    perspective: str = ""
    perspective_evidence: str = ""
    position: Position | None = None


@dataclass
class Timing:
    """Gaps used when lines simply follow each other, and the lengths of the
    timing directions inside a line ("(beat)", "(pause)", "(long pause)")."""

    line_gap: float = DEFAULT_LINE_GAP
    scene_gap: float = DEFAULT_SCENE_GAP
    beat: float = DEFAULT_BEAT
    pause: float = DEFAULT_PAUSE
    long_pause: float = DEFAULT_LONG_PAUSE


@dataclass
class Revision:
    """One revised draft brought into the production (engine/project/revision.py: colours, marks).

    ``changed``: ids of the lines it re-voiced (words changed, split, merged) and
    ``added`` those it brought in; ``earlier``: the changed lines as they were before
    it; ``removed``: lines it took out, as they were; ``flagged``: ids of lines whose
    recording a person made no longer matches the words (the recording is in
    ``earlier``, and the line is synthesized until it is recorded again).
    """

    name: str
    date: str  # ISO 8601 day, UTC (YYYY-MM-DD)
    colour: str
    script: str = ""  # the draft's file name, as the producer knows it
    changed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    earlier: list[Line] = field(default_factory=list)
    removed: list[Line] = field(default_factory=list)
    flagged: tuple[str, ...] = ()


@dataclass
class Project:
    title: str = DEFAULT_TITLE
    sample_rate: int = DEFAULT_SAMPLE_RATE
    cast: list[Role] = field(default_factory=list)
    scenes: list[Scene] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    lexicon: dict[str, str] = field(default_factory=dict)
    timing: Timing = field(default_factory=Timing)
    master_effect: str = DEFAULT_MASTER_EFFECT  # engine.project.presets.MASTER_EFFECTS
    # Sound design (engine/project/sound.py): lanes under the cast's, and their clips.
    sound_lanes: list[SoundLane] = field(default_factory=list)
    sounds: list[SoundClip] = field(default_factory=list)
    # Sounds the script's action lines describe, offered as cues (engine/project/sound_suggestions.py).
    sound_suggestions: list[SoundSuggestion] = field(default_factory=list)
    # Script revisions brought in, oldest first (engine/project/revision.py): marks and history.
    revisions: list[Revision] = field(default_factory=list)

    def role(self, name: str) -> Role:
        for role in self.cast:
            if role.name == name:
                return role
        raise KeyError(f"unknown role {name!r}")

    def lexicon_for(self, role: str) -> Mapping[str, str]:
        """The lexicon a role's lines are spoken with: its own entries first,
        then the project's. A ChainMap, not a merged dict: the frontend
        indexes each layer once, however many lines it speaks."""
        own = next((r.lexicon for r in self.cast if r.name == role), None)
        return ChainMap(own, self.lexicon) if own else self.lexicon

    def role_names(self) -> list[str]:
        return [r.name for r in self.cast]

    def spoken_by_role(self) -> dict[str, list[str]]:
        """Each role's line texts in script order (every role of the cast, with or without lines)."""
        spoken: dict[str, list[str]] = {r.name: [] for r in self.cast}
        for line in self.lines:
            spoken.setdefault(line.role, []).append(line.text)
        return spoken

    def line(self, line_id: str) -> Line:
        for line in self.lines:
            if line.id == line_id:
                return line
        raise KeyError(f"unknown line {line_id!r}")

    def audible_roles(self) -> set[str]:
        """Roles heard in the mix: solo wins over mute, as on a console (a
        soloed sound lane silences the unsoloed roles too)."""
        soloed = {r.name for r in self.cast if r.solo}
        if soloed or any(lane.solo for lane in self.sound_lanes):
            return soloed
        return {r.name for r in self.cast if not r.mute}

    def audible_sound_lanes(self) -> set[str]:
        """Sound lanes heard in the mix, by the same rule as the roles."""
        soloed = {lane.name for lane in self.sound_lanes if lane.solo}
        if soloed or any(r.solo for r in self.cast):
            return soloed
        return {lane.name for lane in self.sound_lanes if not lane.mute}

    def sound_lane(self, name: str) -> SoundLane:
        for lane in self.sound_lanes:
            if lane.name == name:
                return lane
        raise KeyError(f"unknown sound lane {name!r}")


def new_line_id() -> str:
    """A stable id for a line created in the editor (imports number theirs)."""
    return "L" + uuid.uuid4().hex[:10]


def next_colour(index: int) -> str:
    return ROLE_COLOURS[index % len(ROLE_COLOURS)]
