"""Staging: where a scene happens (its room) and where each line is heard from.

A scene's :class:`Room` is a preset (kitchen, cathedral, car, street...) or a
custom one (size, reverberation time, absorption, early reflections, outdoor:
no reverberant field, only the ground and ``walls`` near walls reflect). A
line's perspective (``off``, ``phone``, ``radio``, ``door``, ``moving-away``...)
says how it is miked: its level, high-frequency loss or muffling, the device
it is heard through (a :class:`Device`: band, drive, compression, hiss),
direct/reverberant balance and, for movement, how its pan and distance
travel across the line. A line's :class:`Position`
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
    ``outdoor`` has no reverberant field: open sky, only the ground and
    ``walls`` near walls reflect (0: open air, a clifftop; 1: one wall beside,
    a harbour wall, a lamp room's glass behind its gallery; 2: a street's
    facades either side), each at half the room's width."""

    name: str = "custom"
    size: tuple[float, float, float] = (5.0, 4.0, 2.6)
    rt60: float = 0.5
    absorption: float | None = None
    early_reflections: bool = True
    outdoor: bool = False
    walls: int = 0


WALLS_RANGE = (0, 2)


def _room(name: str, size: tuple[float, float, float], rt60: float) -> Room:
    return Room(name=name, size=size, rt60=rt60)


def _outside(name: str, size: tuple[float, float, float], walls: int, rt60: float = 0.1) -> Room:
    # Outdoors the rt60 is no reverberation time (there is no field to decay): the
    # presets keep the figures they always had, so their rooms are the ones made before.
    return Room(name=name, size=size, rt60=rt60, outdoor=True, walls=walls)


# RT60s are typical measured values for furnished spaces (mid frequencies). The small hard
# rooms ring longer than their size suggests: a lamp room is glass and iron (nothing
# absorbs), a stairwell tall stone; a boat's or a hut's cabin is small and panelled in wood.
ROOM_PRESETS: dict[str, Room] = {room.name: room for room in (
    _room("kitchen", (4.5, 3.5, 2.6), 0.55),
    _room("living room", (5.5, 4.5, 2.6), 0.45),
    _room("bedroom", (4.0, 3.5, 2.5), 0.35),
    _room("office", (6.0, 5.0, 2.8), 0.5),
    _room("bathroom", (2.6, 2.2, 2.4), 0.9),
    _room("cellar", (6.0, 4.0, 2.3), 1.1),
    _room("corridor", (12.0, 2.0, 2.7), 0.9),
    _room("stairwell", (4.0, 3.0, 12.0), 1.6),
    _room("lamp room", (4.0, 4.0, 3.5), 1.0),
    _room("cabin", (3.2, 2.4, 2.1), 0.3),
    _room("hall", (30.0, 18.0, 10.0), 1.8),
    _room("church", (28.0, 14.0, 11.0), 2.5),
    _room("cathedral", (60.0, 28.0, 24.0), 4.0),
    _room("cave", (25.0, 12.0, 6.0), 2.2),
    _room("car", (2.2, 1.5, 1.2), 0.1),
    _room("studio", (6.0, 4.5, 3.0), 0.25),
    # Outside: the ground and the near walls only. The street's facades are 6 m either side
    # (a forest's trees stand for walls, as they always did); the exposed places are open
    # air (a clifftop, a boat's deck: the ground only, as a field's) or have one wall
    # beside: the lamp room's glass 1.2 m behind a lighthouse's gallery, a harbour wall 4 m off.
    _outside("street", (40.0, 12.0, 15.0), 2, rt60=0.25),
    _outside("field", (60.0, 60.0, 30.0), 0),
    _outside("forest", (40.0, 40.0, 20.0), 2, rt60=0.2),
    _outside("beach", (60.0, 40.0, 30.0), 0),
    _outside("gallery", (30.0, 2.4, 30.0), 1),
    _outside("harbour", (60.0, 8.0, 30.0), 1),
    _outside("open air", (60.0, 60.0, 30.0), 0),
)}


@dataclass(frozen=True)
class Device:
    """What a voice is heard through (a telephone, a radio set, a public-address horn, an
    intercom box): its ``band_hz`` (the transmitter's and the loudspeaker's, applied before
    and after the drive), ``drive_db`` of saturation (an overdriven amplifier or speaker
    cone), the compression ``ratio`` of its automatic gain control, and ``noise_db`` of
    hiss under the speech (relative to the speech; None: none). Plain data:
    engine/audio/devices.py makes the sound."""

    name: str
    band_hz: tuple[float, float]
    drive_db: float
    ratio: float
    noise_db: float | None


# One line per device. The bands sit inside the speech band a telephone channel is measured
# on (300-3400 Hz) with their slopes, so a line heard through one keeps 20 dB and more
# below 300 Hz and above 3.4 kHz under what it keeps between (docs/dev/staging.md).
DEVICES: dict[str, Device] = {device.name: device for device in (
    Device("phone", (350.0, 3300.0), drive_db=10.0, ratio=3.0, noise_db=-48.0),
    Device("radio", (400.0, 2900.0), drive_db=20.0, ratio=6.0, noise_db=-32.0),
    Device("tannoy", (450.0, 3600.0), drive_db=16.0, ratio=4.0, noise_db=-50.0),
    Device("intercom", (400.0, 3000.0), drive_db=14.0, ratio=4.0, noise_db=-38.0),
)}


@dataclass(frozen=True)
class PerspectiveSpec:
    """How a perspective is miked. ``distance`` (metres) sets level and the
    direct/reverberant ratio; ``level_db`` is on top of that; ``lowpass_hz``
    muffles (a door, a wall, air); ``device`` is what the voice comes through
    (a telephone, a radio: :data:`DEVICES`); ``reverb`` scales the send to the
    room (0: none of the scene's room, as for a voice-over or the far end of a
    phone line; a tannoy's horn is in the room); ``path`` is movement:
    (fraction of the line, pan offset, distance) keyframes."""

    distance: float = REFERENCE_DISTANCE_M
    level_db: float = 0.0
    lowpass_hz: float | None = None
    device: Device | None = None
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
    # Through a device: the far end of a telephone at the ear and a radio set beside the
    # listener (dry, as drama futzes them), a tannoy's horn up in the scene's room, an
    # intercom's box on its wall.
    "phone": PerspectiveSpec(distance=0.5, device=DEVICES["phone"], reverb=0.0),
    "radio": PerspectiveSpec(distance=0.5, device=DEVICES["radio"], reverb=0.0),
    "tannoy": PerspectiveSpec(distance=4.0, level_db=6.0, device=DEVICES["tannoy"]),
    "intercom": PerspectiveSpec(distance=1.0, device=DEVICES["intercom"], reverb=0.5),
    "door": PerspectiveSpec(distance=3.0, level_db=-8.0, lowpass_hz=700.0),
    "distant": PerspectiveSpec(distance=12.0, lowpass_hz=5000.0),
    "moving-away": PerspectiveSpec(path=((0.0, 0.0, 0.7), (1.0, 0.7, 9.0))),
    "approaching": PerspectiveSpec(path=((0.0, 0.7, 9.0), (1.0, 0.0, 0.7))),
}
# The perspectives heard through a device (the ones a cue extension such as V.O. yields to).
DEVICE_PERSPECTIVES = frozenset(name for name, spec in PERSPECTIVES.items() if spec.device is not None)
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
    dry), the perspective's filters, device and level, and its pan and
    distance as keyframes over the line (one keyframe: static)."""

    room: Room | None
    level_db: float = 0.0
    lowpass_hz: float | None = None
    device: Device | None = None
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
    return LineStage(room=room, level_db=spec.level_db, lowpass_hz=spec.lowpass_hz, device=spec.device,
                     reverb=spec.reverb, path=path)


def _clamp(value: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, value))
