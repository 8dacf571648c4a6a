"""Sound design in the project: sound lanes, sound clips and script cues.

Beside the cast's dialogue lanes a production has sound lanes of three
kinds: ``effects`` (one-shots), ``ambience`` and ``music`` (beds). A sound
clip is a file on a lane, anchored like a line is: at its cue's place
between two lines (``anchor="cue"``, standing before ``line``; None: after
the last line), to a line's start or end (``"line_start"``/``"line_end"``),
or pinned to a time (``"time"``), plus ``offset`` seconds. A clip without a
file yet is a placeholder: it keeps its cue text, shows on its lane and is
silent in the mix.

Beds end at a matching OUT cue (``end="out"``, the OUT standing before
``out_line``), at the next clip on the same lane or the end of the scene,
whichever is first (``"next"``), at the end of the scene (``"scene"``), or
after ``length`` seconds (``"length"``); one-shots play their file once
(``"file"``) unless given a length. Where each clip sits in time is worked
out with the lines, by :func:`engine.project.timeline.layout_all`.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import TypedDict

from engine.project.defaults import (
    DEFAULT_BED_LEAD_S,
    DEFAULT_DUCKING,
    DEFAULT_GAIN_DB,
    DEFAULT_PAN,
    SOUND_LANE_NAMES,
)
from engine.project.staging import Position

LANE_KINDS = ("effects", "ambience", "music")
ANCHORS = ("cue", "line_start", "line_end", "time")
ENDS = ("file", "out", "next", "scene", "length")
# cues.json's "kind" of a clip on a lane of each kind.
CUE_KINDS = {"effects": "sfx", "ambience": "ambience", "music": "music"}

# Script words that open a cue, and the lane kind each one means.
CUE_WORDS = {"SFX": "effects", "FX": "effects", "SOUND": "effects", "AMBIENCE": "ambience",
             "ATMOS": "ambience", "MUSIC": "music"}
_CUE = re.compile(r"(?P<word>sfx|fx|sound|ambience|atmos|music)\s*(?::\s*(?P<text>.*)|\s+(?P<out>out)\s*[.!]?)",
                  re.I | re.S)


@dataclass(frozen=True)
class Ducking:
    """How a sound lane steps back under dialogue; ``depth_db`` 0 is off."""

    depth_db: float = 0.0
    attack_s: float = 0.15
    release_s: float = 0.8
    lookahead_s: float = 0.2

    @property
    def on(self) -> bool:
        return self.depth_db < 0.0


def default_ducking(kind: str) -> Ducking:
    """On by default for music, gentler for ambience, off for effects."""
    return Ducking(*DEFAULT_DUCKING[kind])


@dataclass
class SoundLane:
    """A lane of effects, ambience or music under the cast lanes."""

    name: str
    kind: str = "effects"
    gain_db: float = DEFAULT_GAIN_DB
    pan: float = DEFAULT_PAN
    mute: bool = False
    solo: bool = False
    ducking: Ducking = field(default_factory=Ducking)

    @classmethod
    def of_kind(cls, kind: str, name: str | None = None) -> SoundLane:
        return cls(name=name or SOUND_LANE_NAMES[kind], kind=kind, ducking=default_ducking(kind))


@dataclass
class SoundClip:
    """One sound on a sound lane (see the module docstring for anchors and ends)."""

    id: str
    lane: str
    cue: str = ""
    file: str = ""  # relative to the project folder when it can be; "" = a placeholder
    anchor: str = "cue"
    line: str | None = None
    offset: float = 0.0
    gain_db: float = DEFAULT_GAIN_DB
    pan: float = DEFAULT_PAN
    fade_in: float = 0.0
    fade_out: float = 0.0
    loop: bool = False
    end: str = "file"
    out_line: str | None = None
    length: float | None = None
    overlap: bool = False  # a one-shot at its cue: the next line does not wait for it
    lead: float = 0.0  # a bed at its cue: the next line follows this long after it starts
    # An effect placed in its scene's room, as a line is (engine/project/staging.py): a
    # perspective ("distant", "door"...) and the producer's position; neither: unstaged.
    # Clips on ambience and music lanes keep them but are never staged (an ambience is the room).
    perspective: str = ""
    position: Position | None = None

    @property
    def placeholder(self) -> bool:
        return not self.file


def new_sound_id() -> str:
    return "X" + uuid.uuid4().hex[:10]


# cue: a sound an action line describes, where it stands; bed: a scene's weather or exposure
# bed, standing before its first line (engine/project/weather.py).
SUGGESTION_KINDS = ("cue", "bed")
SUGGESTION_STATES = ("suggested", "accepted", "dismissed")


@dataclass(frozen=True)
class SoundSuggestion:
    """A sound the script describes but does not cue (``Gulls. A diesel engine idles.`` in an
    action line): offered to the producer, who accepts it (a clip on a lane of
    ``lane_kind`` where it stands: engine/project/sound_suggestions.py) or dismisses it;
    never spoken. Its span is where it stands: its ``scene`` and the ``line`` it stands
    before (None: after the last line), from line ``source_line`` of the script.
    ``sound`` is what the vocabulary read (``engine``), ``text`` the clip's cue.
    ``evidence`` is the script's own sentence; ``file`` the library sound it matched
    ("": none matched, shown unmatched, never guessed); ``clip`` the clip an accepted one
    made."""

    id: str
    text: str
    sound: str = ""  # what it is: a name of engine/project/sound_words.py's vocabulary ("gulls", "engine")
    lane_kind: str = "effects"
    kind: str = "cue"
    evidence: str = ""
    scene: str | None = None
    line: str | None = None
    source_line: int = 0
    file: str = ""
    state: str = "suggested"
    clip: str | None = None

    @property
    def open(self) -> bool:
        """Still waiting for the producer's answer."""
        return self.state == "suggested"


@dataclass(frozen=True)
class Cue:
    """A script line that is a sound cue: ``SFX: thunder`` or ``MUSIC OUT``."""

    kind: str  # a lane kind
    text: str
    out: bool = False


def parse_cue(line: str) -> Cue | None:
    """The cue a script line is, or None: ``SFX:``, ``FX:``, ``SOUND:``
    (effects), ``AMBIENCE:``, ``ATMOS:`` (ambience), ``MUSIC:`` (music), any
    case, and ``MUSIC OUT`` / ``AMBIENCE OUT`` / ``ATMOS OUT``."""
    m = _CUE.fullmatch(line.strip())
    if m is None:
        return None
    kind = CUE_WORDS[m.group("word").upper()]
    if m.group("out"):
        return Cue(kind, "", out=True) if kind != "effects" else None
    text = " ".join((m.group("text") or "").split())
    if text.rstrip(".!").lower() == "out":  # "MUSIC: out" says the same as "MUSIC OUT"
        return Cue(kind, "", out=True) if kind != "effects" else Cue(kind, text)
    return Cue(kind, text)


class ClipDefaults(TypedDict, total=False):
    """The SoundClip fields a fresh clip of a lane's kind starts with (typed, so ``**`` checks)."""

    end: str
    loop: bool
    fade_in: float
    fade_out: float
    lead: float


def bed_defaults(kind: str) -> ClipDefaults:
    """What a fresh clip of a kind starts with: beds loop, fade and lead in."""
    if kind == "effects":
        return {"end": "file"}
    return {"loop": True, "end": "next", "fade_in": 1.0, "fade_out": 1.5, "lead": DEFAULT_BED_LEAD_S[kind]}
