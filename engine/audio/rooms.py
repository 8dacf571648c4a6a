"""A room's sound: its reverberant impulse response, made from its geometry and cached.

pyroomacoustics simulates the room (a shoebox of the room's size): image
sources for the early reflections and ray tracing for the late reverberant
field, with wall absorption solved from the room's RT60 (Eyring's formula,
which holds for absorbent rooms where Sabine's overestimates the time). A
spaced pair of microphones (20 cm) hears a source at 2 m (nearer in a small
room), which gives a stereo response.

What the stager needs is the *reverberant* part: the response with its
direct sound cut out and its time origin at the direct sound's arrival,
scaled so that a source at the reference distance has a direct sound of 1.
The direct sound is then applied by the stager at the line's own distance
(inverse distance law), which is how a character's distance sets its
direct-to-reverberant ratio while the room's field stays the same.

Outdoor rooms have no ceiling and no walls but the room's ``walls`` near
ones (a street's two facades, the one harbour wall, none on a clifftop):
open sky and open ends absorb everything, only the ground and those walls
reflect, image sources to order 2 and no ray tracing, so there is no
reverberant field and nothing rings after the first few milliseconds.

Responses are cached as ``.npy`` files in ``rooms/`` of the cache folder
(``RADIOPLAY_CACHE_DIR`` or the user cache), keyed by the room and the rate:
a cathedral takes seconds to simulate, and the same room is used for every
line of its scenes.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import threading
import warnings
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from engine.fsutil import atomic_write_bytes
from engine.project.staging import REFERENCE_DISTANCE_M, Room

# Bumped when the simulation changes, so cached responses are made again.
ROOMS_VERSION = 4  # 4: the ray tracer seeded (ROOM_SEED), one room the same everywhere
# pyroomacoustics draws its rays from a package-wide generator; unseeded, the same room
# differed from one simulation to the next (a cellar's late energy by 3 %, enough to
# move a staged line's trim). Seeded before each simulation, under one lock, since the
# generator is global and rooms simulate on several threads.
ROOM_SEED = 28
_SEEDED = threading.Lock()
CALIBRATION_RUNS = 4  # simulations at most, the first with Eyring's absorption
MIC_SPACING_M = 0.2
SOURCE_DISTANCE_M = 2.0
EARLY_ORDER = 3  # image sources up to this order; ray tracing beyond
OUTDOOR_ORDER = 2
# Bumped when the outdoor simulation changes (indoor rooms keep their cached responses).
OUTDOOR_VERSION = 2  # 2: open sky and ends absorb everything (they reflected 1 %); ``walls``
OPEN_AIR = 1.0  # energy absorbed by open sky: nothing comes back
GROUND_ABSORPTION = 0.3  # paving, stone, packed sand
WALL_ABSORPTION = 0.4  # a facade, a harbour wall, the lamp room's glass and frames
_CUT_MS = 2.0  # the direct sound's fractional-delay filter spreads this far either side


def rooms_cache_dir() -> Path:
    override = os.environ.get("RADIOPLAY_CACHE_DIR")
    if override:
        return Path(override) / "rooms"
    import platformdirs

    return platformdirs.user_cache_path("radioplay", appauthor=False) / "rooms"


def wall_absorption(room: Room) -> float:
    """Energy absorbed per reflection: the room's own, or solved from its RT60
    by Eyring's formula T = 0.161 V / (-S ln(1 - a))."""
    if room.absorption is not None:
        return room.absorption
    length, width, height = room.size
    volume = length * width * height
    surface = 2 * (length * width + length * height + width * height)
    return float(min(0.99, max(0.01, 1.0 - math.exp(-0.161 * volume / (surface * room.rt60)))))


def _key(room: Room, rate: int) -> str:
    fields = asdict(room)
    spec: dict[str, object] = {"room": fields, "rate": rate, "version": ROOMS_VERSION}
    if room.outdoor:
        spec["outdoor"] = OUTDOOR_VERSION
    else:
        del fields["walls"]  # only outdoors: an indoor room keeps the response made before it existed
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:24]


def decay_time(response: np.ndarray, rate: int) -> float:
    """RT60 of a mono response by Schroeder's backward integration: the slope of
    the energy decay curve from -5 to -25 dB (T20), extrapolated to 60 dB."""
    energy = np.cumsum(response[::-1] ** 2)[::-1]
    if energy[0] <= 0:
        return 0.0
    curve = 10 * np.log10(np.maximum(energy / energy[0], 1e-30))
    span = np.nonzero((curve <= -5.0) & (curve >= -25.0))[0]
    if span.size < 2:
        return 0.0
    slope = np.polyfit(span / rate, curve[span], 1)[0]
    return float(-60.0 / slope) if slope < 0 else 0.0


def simulate(room: Room, rate: int) -> np.ndarray:
    """The room's reverberant response ((frames, 2) float32): direct sound cut,
    time origin at its arrival, a direct sound of 1 at the reference distance.

    Ray tracing with air absorption does not decay as Eyring's formula says
    (measured: 10-18 % short in furnished rooms, a cathedral's late field
    longer), so a room whose absorption was solved from its RT60 is
    simulated again with the absorption its decay (Schroeder, T20) says would
    hit the RT60, up to CALIBRATION_RUNS times, until within 5 %."""
    absorption = wall_absorption(room)
    response = _simulate(room, rate, absorption)
    if room.outdoor or room.absorption is not None:
        return response
    for _ in range(CALIBRATION_RUNS - 1):
        measured = decay_time(response.mean(axis=1), rate)
        if measured <= 0 or abs(measured / room.rt60 - 1.0) <= 0.05:
            break
        # Eyring's time goes as 1 / -ln(1 - a): scale that by what the last run missed by.
        absorption = min(0.99, max(0.01, 1.0 - math.exp(math.log(1.0 - absorption) * measured / room.rt60)))
        response = _simulate(room, rate, absorption)
    return response


def _simulate(room: Room, rate: int, absorption: float) -> np.ndarray:
    import pyroomacoustics as pra

    length, width, height = room.size
    mic_height = min(1.6, height * 0.5)
    distance = min(SOURCE_DISTANCE_M, 0.35 * min(length, width))
    listener = np.array([length * 0.5, width * 0.5, mic_height])
    source = listener + np.array([distance, 0.0, 0.0])
    source[0] = min(source[0], length - 0.1)
    distance = float(np.linalg.norm(source - listener))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyroomacoustics warns about ray counts and its own defaults
        if room.outdoor:
            # Open sky and open ends; the ground and the near walls (the long sides: the
            # first on the south, a second facing it) reflect.
            south = WALL_ABSORPTION if room.walls >= 1 else OPEN_AIR
            north = WALL_ABSORPTION if room.walls >= 2 else OPEN_AIR
            materials = {"east": pra.Material(OPEN_AIR), "west": pra.Material(OPEN_AIR),
                         "north": pra.Material(north), "south": pra.Material(south),
                         "floor": pra.Material(GROUND_ABSORPTION), "ceiling": pra.Material(OPEN_AIR)}
            sim = pra.ShoeBox(list(room.size), fs=rate, materials=materials, max_order=OUTDOOR_ORDER,
                              air_absorption=True)
        else:
            sim = pra.ShoeBox(list(room.size), fs=rate, materials=pra.Material(absorption),
                              max_order=EARLY_ORDER if room.early_reflections else 0, air_absorption=True,
                              ray_tracing=True)
            # A large receiver keeps the ray count (and the time) down in a cathedral.
            sim.set_ray_tracing(receiver_radius=0.5, n_rays=20_000, energy_thres=1e-7)
        sim.add_source(source.tolist())
        mics = np.c_[listener + [0.0, -MIC_SPACING_M / 2, 0.0], listener + [0.0, MIC_SPACING_M / 2, 0.0]]
        sim.add_microphone_array(mics)
        with _SEEDED:
            pra.random.seed(numpy=ROOM_SEED, libroom=ROOM_SEED)
            sim.compute_rir()
    responses = [np.asarray(sim.rir[m][0], dtype=np.float64) for m in (0, 1)]
    frames = max(r.shape[0] for r in responses)
    stereo = np.zeros((frames, 2))
    for m, r in enumerate(responses):
        stereo[:r.shape[0], m] = r
    # The direct sound: the strongest peak near where distance / c puts it.
    arrival = int(round(float(np.linalg.norm(source - mics[:, 0])) / sim.c * rate))
    arrival += int(pra.constants.get("frac_delay_length")) // 2
    cut = int(round(_CUT_MS * 1e-3 * rate))
    window = np.abs(stereo[max(0, arrival - cut):arrival + cut, 0])
    peak = max(0, arrival - cut) + int(np.argmax(window))
    direct = float(np.abs(stereo[peak, 0]))
    reverb = stereo[peak:].copy()
    reverb[:cut] = 0.0
    # At the reference distance the direct sound is direct * distance / reference: scale it to 1.
    reverb *= REFERENCE_DISTANCE_M / (direct * distance)
    # Trim the silent end (60 dB below the response's peak energy decay).
    energy = np.cumsum((reverb ** 2).sum(axis=1)[::-1])[::-1]
    if energy[0] > 0:
        keep = int(np.searchsorted(-energy, -energy[0] * 1e-6)) + 1
        reverb = reverb[:max(keep, cut + 1)]
    return np.ascontiguousarray(reverb, dtype=np.float32)


class RoomResponses:
    """Reverberant responses by room and rate: memory, then the disk cache, then
    a simulation (one per room at a time; other rooms simulate meanwhile).
    ``response`` waits for it (export); ``ready`` and ``prepare`` never do
    (live playback's control thread)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self._memory: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._making: dict[str, threading.Lock] = {}
        self._waiting: dict[str, list[Callable[[], None]]] = {}  # prepare()'s callbacks by room

    def response(self, room: Room, rate: int) -> np.ndarray:
        key = _key(room, rate)
        with self._lock:
            found = self._memory.get(key)
            if found is not None:
                return found
            making = self._making.setdefault(key, threading.Lock())
        with making:
            with self._lock:
                found = self._memory.get(key)
            if found is None:
                found = self._load_or_make(key, room, rate)
                found.setflags(write=False)
                with self._lock:
                    self._memory[key] = found
        return found

    def ready(self, room: Room, rate: int) -> np.ndarray | None:
        """The response if it is in memory already (never waits)."""
        with self._lock:
            return self._memory.get(_key(room, rate))

    def prepare(self, room: Room, rate: int, done: Callable[[], None]) -> None:
        """Make the response on a ``radioplay-rooms`` thread (the disk cache or a
        simulation, seconds for a big room) and call ``done`` there when it is
        ready; once per room and rate however often it is asked, and ``done`` called once
        however often it was passed. A daemon thread:
        quitting does not wait for a cathedral (the cache file is written
        atomically, so an interrupted simulation leaves nothing half made)."""
        key = _key(room, rate)
        with self._lock:
            if key in self._memory:
                return
            waiting = self._waiting.get(key)
            if waiting is not None:
                # Every line staged in a room not made yet asks again at every relayout: one
                # answer per listener, not one per ask (a flood of relayouts once it is made).
                if done not in waiting:
                    waiting.append(done)
                return
            self._waiting[key] = [done]

        def make() -> None:
            try:
                self.response(room, rate)
            finally:
                with self._lock:
                    callbacks = self._waiting.pop(key, [])
                for callback in callbacks:
                    callback()

        threading.Thread(target=make, name="radioplay-rooms", daemon=True).start()

    def _load_or_make(self, key: str, room: Room, rate: int) -> np.ndarray:
        folder = self.directory or rooms_cache_dir()
        path = folder / f"{key}.npy"
        try:
            loaded: np.ndarray = np.load(path, allow_pickle=False)
            if loaded.dtype == np.float32 and loaded.ndim == 2 and loaded.shape[1] == 2:
                return loaded
        except (OSError, ValueError):
            pass
        made = simulate(room, rate)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            np.save(buffer, made, allow_pickle=False)
            atomic_write_bytes(path, buffer.getvalue())
        except OSError:
            pass  # a read-only cache folder costs a simulation next time, nothing more
        return made


_shared: RoomResponses | None = None
_shared_lock = threading.Lock()


def shared_responses() -> RoomResponses:
    """The process's responses (the cache folder as the environment says at first use)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = RoomResponses()
        return _shared
