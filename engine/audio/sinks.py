"""Where live frames go: the sound device, or a null sink on a real-time clock.

Both read the same :class:`FrameRing` that the mixer thread fills, behind
one small interface, so the player never knows which it feeds.

- :class:`DeviceSink`: rtmixer's C callback (on PortAudio's audio thread)
  copies frames out of the ring; no Python, no GIL, no allocation on that
  path. The device is chosen and remembered by name (indices change when
  devices come and go) and found again after a device-list refresh.
- :class:`NullSink`: a thread (``radioplay-null-sink``) that consumes frames
  at the rate a sound card would, for headless playback and benchmarks.

Underruns are counted where they happen: the ring had fewer frames than the
sink needed (the mixer thread was late). rtmixer ends a ring-buffer action
when the ring runs dry, so the device sink notices that in :meth:`service`
(called by the mixer thread), counts it, and starts the ring again.
PortAudio's own output-underflow flags and the callback's CPU load are
reported beside it. They are counted only while the transport plays (the
player says so through ``set_playing``): a stopped transport's ring holds
silence, and one that runs dry while voices load (the GIL held for seconds)
plays silence all the same, so the producer's trouble counter stays quiet.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

from engine.audio.portaudio import (
    find_output_device,
    load_rtmixer,
    load_sounddevice,
    output_devices,
    portaudio_error,
    refresh_devices,
)
from engine.audio.ring import CHANNELS, FrameRing

NULL_SINK = "null"


class AudioUnavailable(RuntimeError):
    """The requested output cannot be opened (no PortAudio, unknown device)."""


@dataclass(frozen=True)
class SinkStats:
    frames_played: int  # frames the sink has taken from the ring (silence included)
    underruns: int  # times the ring had fewer frames than the sink needed
    device_underflows: int  # PortAudio output-underflow flags (0 for the null sink)
    cpu_load: float  # PortAudio's estimate of the callback's share of its time budget
    latency_s: float  # from leaving the ring to the speaker (the device's output latency)


class OutputSink(Protocol):
    name: str
    rate: int

    def start(self, ring: FrameRing) -> None: ...

    def service(self) -> None: ...

    def set_playing(self, playing: bool) -> None: ...

    def stats(self) -> SinkStats: ...

    def close(self) -> None: ...


class NullSink:
    """Consumes frames on a real-time clock (``speed`` > 1 runs faster, for
    benchmarks that want a full playback in less time)."""

    name = NULL_SINK

    def __init__(self, rate: int, period_s: float = 0.005, speed: float = 1.0) -> None:
        self.rate = rate
        self.period_s = period_s
        self.speed = speed
        self._ring: FrameRing | None = None
        self._consumed = 0
        self._underruns = 0
        self._counting = True  # a sink fed by no player counts every dry ring
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, ring: FrameRing) -> None:
        self._ring = ring
        self._thread = threading.Thread(target=self._run, name="radioplay-null-sink", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        ring = self._ring
        assert ring is not None
        started = time.monotonic()
        while not self._stop.wait(self.period_s):
            due = int((time.monotonic() - started) * self.rate * self.speed) - self._consumed
            if due <= 0:
                continue
            available = ring.read_available()
            take = min(due, available)
            if take < due and self._counting:
                self._underruns += 1
            ring.commit_read(take)
            # Time moves on whether or not there was audio, as on a sound card.
            self._consumed += due

    def service(self) -> None:
        pass

    def set_playing(self, playing: bool) -> None:
        """Count underruns from now on only if ``playing`` (the transport's state)."""
        self._counting = playing

    def stats(self) -> SinkStats:
        return SinkStats(self._consumed, self._underruns, 0, 0.0, 0.0)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)


class DeviceSink:
    """A PortAudio output device fed by rtmixer from the ring."""

    def __init__(self, rate: int, device: str | None = None, latency: str | float = 0.1) -> None:
        problem = portaudio_error()
        if problem is not None:
            raise AudioUnavailable(problem)
        self.rate = rate
        rtmixer: Any = load_rtmixer()  # not None: portaudio_error() was None
        sd: Any = load_sounddevice()
        index: int | None
        if device is None:
            index = None
            self.name = str(sd.query_devices(kind="output")["name"]) if _has_default_output(sd) else ""
            if not self.name:
                raise AudioUnavailable("no sound: there is no default output device "
                                       "(choose one by name, or use the null output)")
        else:
            index = find_output_device(device)
            if index is None:
                refresh_devices()  # it may have appeared since PortAudio started
                index = find_output_device(device)
            if index is None:
                raise AudioUnavailable(f"no output device called {device!r}; "
                                       f"devices: {', '.join(self.available()) or 'none'}")
            self.name = str(sd.query_devices(index)["name"])
        self._mixer = rtmixer.Mixer(device=index, channels=CHANNELS, samplerate=rate, latency=latency)
        self._ring: FrameRing | None = None
        self._action: Any = None
        self._done_frames = 0  # frames played by actions that have ended
        self._ended_underflows = 0  # PortAudio's flags of the actions that have ended, all of them
        self._underflows_seen = 0  # the flags (all actions) at the last count
        self._underflows = 0  # the flags raised while the transport played
        self._underruns = 0
        self._counting = True
        self._flows_lock = threading.Lock()  # the mixer thread's set_playing vs a reader's stats

    @staticmethod
    def available() -> list[str]:
        return output_devices()

    def start(self, ring: FrameRing) -> None:
        if ring.portaudio_ring is None:
            raise AudioUnavailable("the ring buffer was built without PortAudio")
        self._ring = ring
        self._mixer.start()
        self._action = self._mixer.play_ringbuffer(ring.portaudio_ring)

    def service(self) -> None:
        """Restart the ring after it ran dry (rtmixer ends the action then)."""
        action = self._action
        if action is None or action in self._mixer.actions:
            return
        self._done_frames += int(action.done_frames)
        self._ended_underflows += int(action.stats.output_underflows)
        if self._counting:
            self._underruns += 1
        assert self._ring is not None
        self._action = self._mixer.play_ringbuffer(self._ring.portaudio_ring)

    def set_playing(self, playing: bool) -> None:
        """Count underruns from now on only if ``playing`` (the transport's state)."""
        self._count_underflows()
        self._counting = playing

    def _all_underflows(self) -> int:
        action = self._action
        return self._ended_underflows + (int(action.stats.output_underflows) if action is not None else 0)

    def _count_underflows(self) -> int:
        """PortAudio's flags raised while playing: those since the last count join the
        count only if the transport played meanwhile (it changes state only through
        set_playing, which counts first)."""
        with self._flows_lock:
            seen = self._all_underflows()
            if self._counting:
                self._underflows += seen - self._underflows_seen
            self._underflows_seen = seen
            return self._underflows

    def stats(self) -> SinkStats:
        action = self._action
        done = self._done_frames + (int(action.done_frames) if action is not None else 0)
        return SinkStats(done, self._underruns, self._count_underflows(), float(self._mixer.cpu_load),
                         float(self._mixer.latency))

    def close(self) -> None:
        try:
            self._mixer.stop()
        finally:
            self._mixer.close()


def _has_default_output(sd: Any) -> bool:
    try:
        sd.query_devices(kind="output")
    except Exception:  # sounddevice raises when PortAudio has no default output
        return False
    return True


def open_sink(rate: int, output: str | None) -> tuple[OutputSink, str | None]:
    """The sink for ``output`` (None = default device, "null", or a device
    name). When no device can be opened, falls back to the null sink and says
    why (the studio shows it; playback still runs)."""
    if output == NULL_SINK:
        return NullSink(rate), None
    try:
        return DeviceSink(rate, output), None
    except AudioUnavailable as exc:
        return NullSink(rate), str(exc)
    except Exception as exc:  # PortAudio errors (device busy, bad rate) name themselves
        return NullSink(rate), f"no sound: could not open {output or 'the default output'}: {exc}"
