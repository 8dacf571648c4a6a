"""Staging: where a scene happens (its room) and where each line is heard from.

A scene's :class:`Room` is a preset (kitchen, cathedral, car, street...) or a
custom one (size, reverberation time, absorption, early reflections, outdoor:
no reverberant field). A line's perspective (``off``, ``phone``, ``door``,
``moving-away``...) says how it is miked: its level, high-frequency loss,
band limits or muffling, direct/reverberant balance and, for movement, how
its pan and distance travel across the line. A line's :class:`Position`
(pan, distance, and keyframes for movement) is what the producer sets by
hand; it wins over what the perspective implies.

Plain data, no audio: :mod:`engine.audio.rooms` turns a room into impulse
responses and :mod:`engine.audio.staging` applies a :class:`LineStage`.
How rooms and perspectives are recognised in a script is in
:mod:`engine.project.staging_rules`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The distance at which a voice is heard at its lane's level (metres): nearer is
# louder and drier, further is quieter and more reverberant (inverse distance law).
REFERENCE_DISTANCE_M = 1.0
DISTANCE_RANGE = (0.2, 60.0)
RT60_RANGE = (0.05, 12.0)
ROOM_SIDE_RANGE = (1.0, 200.0)


@dataclass(frozen=True)
class Room:
    """A space a scene happens in. ``size`` (length, width, height, metres) and
    ``rt60`` (seconds) set the geometry and how long it rings; ``absorption``
    (0..1 energy absorbed per reflection) None derives it from the RT60
    (Eyring); ``early_reflections`` keeps the image-source reflections;
    ``outdoor`` has no reverberant field (only the ground and nearby walls
    reflect)."""

    name: str = "custom"
    size: tuple[float, float, float] = (5.0, 4.0, 2.6)
    rt60: float = 0.5
    absorption: float | None = None
    early_reflections: bool = True
    outdoor: bool = False


def _room(name: str, size: tuple[float, float, float], rt60: float, outdoor: bool = False) -> Room:
    return Room(name=name, size=size, rt60=rt60, outdoor=outdoor)


# RT60s are typical measured values for furnished spaces (mid frequencies).
ROOM_PRESETS: dict[str, Room] = {room.name: room for room in (
    _room("kitchen", (4.5, 3.5, 2.6), 0.55),
    _room("living room", (5.5, 4.5, 2.6), 0.45),
    _room("bedroom", (4.0, 3.5, 2.5), 0.35),
    _room("office", (6.0, 5.0, 2.8), 0.5),
    _room("bathroom", (2.6, 2.2, 2.4), 0.9),
    _room("cellar", (6.0, 4.0, 2.3), 1.1),
    _room("corridor", (12.0, 2.0, 2.7), 0.9),
    _room("stairwell", (4.0, 3.0, 12.0), 1.6),
    _room("hall", (30.0, 18.0, 10.0), 1.8),
    _room("church", (28.0, 14.0, 11.0), 2.5),
    _room("cathedral", (60.0, 28.0, 24.0), 4.0),
    _room("cave", (25.0, 12.0, 6.0), 2.2),
    _room("car", (2.2, 1.5, 1.2), 0.1),
    _room("studio", (6.0, 4.5, 3.0), 0.25),
    _room("street", (40.0, 12.0, 15.0), 0.25, outdoor=True),
    _room("field", (60.0, 60.0, 30.0), 0.1, outdoor=True),
    _room("forest", (40.0, 40.0, 20.0), 0.2, outdoor=True),
    _room("beach", (60.0, 40.0, 30.0), 0.1, outdoor=True),
)}


@dataclass(frozen=True)
class PerspectiveSpec:
    """How a perspective is miked. ``distance`` (metres) sets level and the
    direct/reverberant ratio; ``level_db`` is on top of that; ``lowpass_hz``
    muffles (a door, a wall, air); ``band_hz`` limits the band (a telephone);
    ``reverb`` scales the send to the room (0: none of the scene's room, as
    for a voice-over or the far end of a phone line); ``path`` is movement:
    (fraction of the line, pan offset, distance) keyframes."""

    distance: float = REFERENCE_DISTANCE_M
    level_db: float = 0.0
    lowpass_hz: float | None = None
    band_hz: tuple[float, float] | None = None
    reverb: float = 1.0
    path: tuple[tuple[float, float, float], ...] = ()


# The perspective names are the project file's `perspective` values.
PERSPECTIVES: dict[str, PerspectiveSpec] = {
    "close": PerspectiveSpec(distance=0.4),
    # Off stage is out of sight: around a corner or through an open door, so the room hears it
    # less too (level_db scales the room's share as well as the direct sound's).
    "off": PerspectiveSpec(distance=6.0, level_db=-8.0, lowpass_hz=3500.0),
    "off-camera": PerspectiveSpec(distance=3.0, level_db=-2.0, lowpass_hz=6000.0),
    "voice-over": PerspectiveSpec(distance=0.5, reverb=0.0),
    "phone": PerspectiveSpec(distance=0.5, band_hz=(300.0, 3400.0), reverb=0.0),
    "door": PerspectiveSpec(distance=3.0, level_db=-8.0, lowpass_hz=700.0),
    "distant": PerspectiveSpec(distance=12.0, lowpass_hz=5000.0),
    "moving-away": PerspectiveSpec(path=((0.0, 0.0, 0.7), (1.0, 0.7, 9.0))),
    "approaching": PerspectiveSpec(path=((0.0, 0.7, 9.0), (1.0, 0.0, 0.7))),
}
# A line with no perspective: the actor at the mic, a drama studio's working distance.
NO_PERSPECTIVE = PerspectiveSpec(distance=0.7)


@dataclass(frozen=True)
class Position:
    """Where the producer put a line: ``pan`` (-1..1; None: the role's) and
    ``distance`` (metres; None: the perspective's). ``path`` is movement
    automation: (fraction of the line 0..1, pan, distance) keyframes, linear
    between them; it wins over pan and distance where it is set."""

    pan: float | None = None
    distance: float | None = None
    path: tuple[tuple[float, float, float], ...] = ()


@dataclass(frozen=True)
class LineStage:
    """Everything the audio floor needs to stage one line: its room (None:
    dry), the perspective's filters and level, and its pan and distance as
    keyframes over the line (one keyframe: static)."""

    room: Room | None
    level_db: float = 0.0
    lowpass_hz: float | None = None
    band_hz: tuple[float, float] | None = None
    reverb: float = 1.0
    path: tuple[tuple[float, float, float], ...] = field(default=((0.0, 0.0, REFERENCE_DISTANCE_M),))

    @property
    def moving(self) -> bool:
        return len({(pan, distance) for _, pan, distance in self.path}) > 1


def line_stage(room: Room | None, perspective: str, position: Position | None, role_pan: float) -> LineStage | None:
    """A line's staging from its scene's room, its perspective and the producer's
    position; None when there is nothing to stage (a dry, unplaced line is mixed
    exactly as before staging existed)."""
    if room is None and not perspective and position is None:
        return None
    spec = PERSPECTIVES.get(perspective, NO_PERSPECTIVE)
    position = position or Position()
    pan = role_pan if position.pan is None else position.pan
    distance = spec.distance if position.distance is None else position.distance
    if position.path:
        path = position.path
    elif spec.path:
        # A movement keeps its direction relative to where the role stands: away towards the
        # side the role is on (the right when centred).
        side = -1.0 if pan < 0 else 1.0
        path = tuple((at, _clamp(pan + side * offset, -1.0, 1.0), d) for at, offset, d in spec.path)
    else:
        path = ((0.0, pan, distance),)
    return LineStage(room=room, level_db=spec.level_db, lowpass_hz=spec.lowpass_hz, band_hz=spec.band_hz,
                     reverb=spec.reverb, path=path)


def _clamp(value: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, value))
