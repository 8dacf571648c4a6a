"""The live mixer thread: timeline -> programme -> ring -> sink.

Thread ``radioplay-mixer`` keeps the ring buffer topped up: whenever a
block's worth of room is free it renders the next block of the timeline
through the same :class:`~engine.audio.programme.Programme` the export uses
(block mixer, lane effects, master gain, compressor, limiter) straight into
the ring's write region, then publishes it to the sink. While paused it
writes silence, so the device never starves. The block mixer allocates
nothing per block; the limiter and any wet effects allocate their
block-sized results (on this thread, never on the audio callback, which is
rtmixer's C code).

Everything the mixer thread reads from other threads is swapped in whole
(the clip index, the pending-line table, the lane settings, the source), and
everything it reports (position, late lines, first audio) is written into
preallocated slots or handed to a callback, so control threads never wait
for a block and the mixer never waits for them.

Transport commands arrive through a deque (atomic append/popleft) and take
effect at the next block boundary: at most one block period (``block /
rate``: 21 ms at 1024 frames and 48 kHz) after the call.

Playing stops by itself at the programme's end (:meth:`LivePlayer.set_end`, the
last clip's end and its tail) unless a loop is set: the playhead stays at the end
and ``on_end`` says so, as a DAW stops at the end of its project rather than
playing silence on. The sink is told whether the transport plays, so it counts
underruns only then (engine/audio/sinks.py).
"""

from __future__ import annotations

import bisect
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.audio.ring import FrameRing
from engine.audio.sinks import OutputSink, SinkStats

BLOCK = 1024
RING_FRAMES = 8192
FIRST_SOUND_LEVEL = 10 ** (-50 / 20)  # a sample this loud (either channel) is the first sound of a play
_HISTORY = 64  # blocks remembered to map "frames played" back to timeline positions


class BlockSource(Protocol):
    """What the player mixes from: the export's Programme (lane effects, master
    chain), or a bare BlockMixer. ``process`` writes frames [t, t+n) into ``out``."""

    max_block: int

    def process(self, t: int, n: int, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class PendingLines:
    """Lines on the timeline that have no clip yet, by start frame (sorted):
    the playhead reaching one of them makes it a late line."""

    starts: list[int]
    line_ids: list[str]

    @staticmethod
    def empty() -> PendingLines:
        return PendingLines([], [])


@dataclass(frozen=True)
class PlayerSnapshot:
    position_s: float  # what the listener hears now (frames played by the sink)
    mixed_s: float  # how far the mixer has got
    playing: bool
    loop: tuple[float, float] | None
    late_lines: int
    sink: SinkStats
    audition: object = None  # the tag of the audition being heard now (None: none)
    ended: bool = False  # playing stopped at the programme's end, and has not started since


class LivePlayer:
    def __init__(self, source: BlockSource, rate: int, sink: OutputSink,
                 on_late: Callable[[str, int], None] | None = None,
                 on_wrap: Callable[[], None] | None = None,
                 block: int = BLOCK, ring_frames: int = RING_FRAMES,
                 on_end: Callable[[], None] | None = None) -> None:
        """``on_late``, ``on_wrap`` and ``on_end`` (playing stopped at the programme's end)
        are called on the mixer thread: they hand over and return."""
        self.source = source  # swapped whole when the cast changes
        self.rate = rate
        self.sink = sink
        self.block = block
        self.on_late = on_late
        self.on_wrap = on_wrap
        self.on_end = on_end
        self.ring = FrameRing(ring_frames, use_portaudio=sink.name != "null")
        self.pending = PendingLines.empty()
        self._commands: deque[tuple[str, int, int]] = deque()
        self._t = 0  # next timeline frame to mix
        self._playing = False
        self._loop: tuple[int, int] | None = None
        self._late = 0
        self._written = 0  # frames published to the ring
        self._hist_counter = np.zeros(_HISTORY, dtype=np.int64)
        self._hist_pos = np.full(_HISTORY, -1, dtype=np.int64)
        self._hist_next = 0
        self._play_command_at = 0.0
        self.first_audio_at: float | None = None  # monotonic time of the first non-silent block after play()
        self._watch_first_audio = False
        self._watch_first_sound = False
        # Ring counters (frames published before it) of the first sound after play() and of where
        # play(until=) stopped: the sink has played them once its frames_played passes them.
        self.first_sound_counter: int | None = None
        self.hold_counter: int | None = None
        self._hold: int | None = None  # play(until=): the timeline frame where playing stops
        self._end: int | None = None  # the programme's end (set_end): playing stops there without a loop
        self._ended = False  # playing stopped at _end (until the next play or seek)
        self._region_at = 0  # ring counter of the region being rendered
        self._audition: tuple[np.ndarray, int] | None = None  # (clip, next frame)
        self._audition_level = (np.float32(1.0), np.float32(1.0))
        self._audition_tag: object = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="radioplay-mixer", daemon=True)
        self._started = False

    # --- control side (any thread) ----------------------------------------------

    def start(self) -> None:
        if not self._started:
            self._started = True
            self._prime()
            self.sink.set_playing(False)
            self.sink.start(self.ring)
            self._thread.start()

    def play(self, from_frame: int | None = None, until_frame: int | None = None, *, at_once: bool = False) -> None:
        """Play from ``from_frame`` (or where it is); with ``until_frame`` stop
        there, exactly, as if paused (the table read plays one stretch of
        lines and waits for the reader). ``at_once`` (with ``from_frame``):
        re-mix what the ring already holds from the new place, so the first
        sound is heard a block after the command instead of a ring later
        (the table read's reply)."""
        self.first_audio_at = None
        self.first_sound_counter = None
        self.hold_counter = None
        self._play_command_at = time.monotonic()
        self._commands.append(("cue" if at_once and from_frame is not None else "play",
                               -1 if from_frame is None else from_frame, 0 if until_frame is None else until_frame))

    def pause(self) -> None:
        self._commands.append(("pause", 0, 0))

    def seek(self, frame: int) -> None:
        if not self._started:  # no mixer thread yet to apply it: the first play() starts from here
            self._t = max(0, frame)
            return
        self._commands.append(("seek", frame, 0))

    def set_loop(self, region: tuple[int, int] | None) -> None:
        if region is None:
            self._commands.append(("loop", -1, -1))
        else:
            start, end = region
            if end <= start:
                raise ValueError(f"loop region {start}..{end}: the end must come after the start")
            self._commands.append(("loop", start, end))

    def audition(self, clip: np.ndarray, gain: float = 1.0, ceiling: float = 1.0, tag: object = None) -> None:
        """Play a clip at once, over the programme (playing or not), at ``gain``, held
        under ``ceiling`` (it does not pass the master chain): mono, or (frames, 2)
        already mixed. ``tag`` says what it is while it is heard (the snapshot's
        ``audition``)."""
        self._audition_level = (np.float32(gain), np.float32(ceiling))
        self._audition_tag = tag
        self._audition = (clip, 0)

    def set_end(self, frame: int | None) -> None:
        """The programme's end (None: none): playing without a loop stops there."""
        self._end = frame

    def set_pending(self, pending: PendingLines) -> None:
        self.pending = pending

    @property
    def play_command_at(self) -> float:
        return self._play_command_at

    def snapshot(self) -> PlayerSnapshot:
        sink = self.sink.stats()
        loop = None if self._loop is None else (self._loop[0] / self.rate, self._loop[1] / self.rate)
        tag = self._audition_tag if self._audition is not None else None
        return PlayerSnapshot(self._heard(sink.frames_played) / self.rate, self._t / self.rate, self._playing,
                              loop, self._late, sink, tag, self._ended)

    def close(self) -> None:
        self._stop.set()
        if self._started:
            self._thread.join(timeout=2.0)
        self.sink.close()

    # --- mixer thread ---------------------------------------------------------------

    def _prime(self) -> None:
        """Fill the ring with silence so the device starts with a full buffer."""
        offset, first, second = self.ring.write_regions(self.ring.frames)
        self.ring.data.fill(0.0)
        self.ring.commit_write(first + second)
        self._written += first + second

    def _run(self) -> None:
        period = self.block / self.rate
        while not self._stop.is_set():
            self.sink.service()
            while self._commands:
                self._apply(*self._commands.popleft())
            if self.ring.write_available() < self.block:
                time.sleep(period / 4)
                continue
            self._fill_block()

    def _set_playing(self, playing: bool) -> None:
        self._playing = playing
        self.sink.set_playing(playing)  # underruns count only while the transport plays

    def _apply(self, command: str, a: int, b: int) -> None:
        if command in ("play", "cue", "seek"):
            self._ended = False
        if command in ("play", "cue"):
            self._hold = b if b > 0 else None  # 0: no stop (a stop at frame 0 would play nothing)
            self._set_playing(True)
            self._watch_first_audio = True
            self._watch_first_sound = True
            if a >= 0:
                self._t = a
                self._retract(rewrite=command == "cue")
        elif command == "pause":
            # Stop where the listener will stop, decided here: a position read by
            # another thread before this command arrived is already in the past
            # (the device played on meanwhile) and seeking back to it repeats audio.
            if self._playing:
                self._t = self._timeline_at(self._retract_boundary())
            self._set_playing(False)
            self._hold = None
            self._retract()
        elif command == "seek":
            self._t = max(0, a)
            self._retract()
        elif command == "loop":
            self._loop = None if a < 0 else (a, b)
            if self._loop is not None and not a <= self._t < b:
                self._t = a

    def _retract_boundary(self) -> int:
        """The ring counter from which ``_retract`` replaces what is queued."""
        readable = self.ring.read_available()
        return self._written - readable + min(readable, self.block)

    def _retract(self, rewrite: bool = False) -> None:
        """Silence what is queued but not yet played (beyond the block the
        device may be reading now), so pause, stop and seek are heard within
        a block instead of after the whole ring (170 ms). With ``rewrite``
        (play from a new place) the queued frames are mixed again from the
        new position instead: the first sound is heard a block after the
        command, not a ring later (the table read's reply)."""
        ring = self.ring
        readable = ring.read_available()
        keep = min(readable, self.block)
        drop = readable - keep
        if drop <= 0:
            return
        offset, first, second = ring.read_regions(readable)
        start = (offset + keep) % ring.frames
        end = start + drop
        boundary = self._written - drop
        stale = self._hist_counter >= boundary
        if rewrite:
            # Blocks queued after the boundary now hold the timeline from _t on.
            self._hist_pos[stale] = self._t + (self._hist_counter[stale] - boundary)
            k = self._hist_next % _HISTORY
            self._hist_counter[k], self._hist_pos[k] = boundary, self._t
            self._hist_next += 1
            self._region_at = boundary
            self._render(ring.data[start:min(end, ring.frames)])
            if end > ring.frames:
                self._region_at = boundary + ring.frames - start
                self._render(ring.data[:end - ring.frames])
            return
        ring.data[start:min(end, ring.frames)].fill(0.0)
        if end > ring.frames:
            ring.data[:end - ring.frames].fill(0.0)
        self._hist_pos[stale] = -1
        # Silence from the boundary on, even inside the block that holds it: the
        # playhead stops there instead of running to the block's end and back.
        k = self._hist_next % _HISTORY
        self._hist_counter[k], self._hist_pos[k] = boundary, -1
        self._hist_next += 1

    def _fill_block(self) -> None:
        offset, first, second = self.ring.write_regions(self.block)
        n = first + second
        k = self._hist_next % _HISTORY
        self._hist_counter[k] = self._written
        self._hist_pos[k] = self._t if self._playing else -1
        self._hist_next += 1
        data = self.ring.data
        for base, region in ((self._written, data[offset:offset + first]), (self._written + first, data[:second])):
            if not region.shape[0]:
                continue
            self._region_at = base
            if self._playing:
                self._render(region)
            elif self._audition is not None:
                region.fill(0.0)
                self._add_audition(region)
            else:
                region.fill(0.0)
        self.ring.commit_write(n)
        self._written += n

    def _render(self, out: np.ndarray) -> None:
        """Mix the timeline into ``out`` (a region of the ring), wrapping at the loop end."""
        done = 0
        n = out.shape[0]
        source = self.source
        while done < n:
            if not self._playing:  # reached play(until=) within this region
                out[done:].fill(0.0)
                if self._audition is not None:
                    self._add_audition(out[done:])
                return
            length = min(n - done, source.max_block)
            loop = self._loop
            if loop is not None and self._t + length > loop[1]:
                length = max(1, loop[1] - self._t)
            hold = self._hold
            end = self._end if loop is None else None  # a loop plays on past the end
            stop = hold if end is None or (hold is not None and hold <= end) else end
            if stop is not None and self._t + length >= stop:
                length = stop - self._t
                if length <= 0:
                    self._set_playing(False)
                    self._hold = None
                    self.hold_counter = self._region_at + done
                    if stop != hold:
                        self._ended = True
                        if self.on_end is not None:
                            self.on_end()
                    continue
            view = out[done:done + length]
            self._check_late(self._t, length)
            source.process(self._t, length, out=view)
            if self._audition is not None:
                self._add_audition(view)
            if self._watch_first_audio and view.any():
                self.first_audio_at = time.monotonic()
                self._watch_first_audio = False
            if self._watch_first_sound:
                loud = np.flatnonzero(np.abs(view[:, 0]) + np.abs(view[:, 1]) >= FIRST_SOUND_LEVEL)
                if loud.size:
                    self.first_sound_counter = self._region_at + done + int(loud[0])
                    self._watch_first_sound = False
            self._t += length
            done += length
            if loop is not None and self._t >= loop[1]:
                self._t = loop[0]
                if self.on_wrap is not None:
                    self.on_wrap()

    def _add_audition(self, out: np.ndarray) -> None:
        audition = self._audition
        if audition is None:
            return
        clip, at = audition
        take = min(out.shape[0], clip.shape[0] - at)
        if take > 0:
            gain, ceiling = self._audition_level
            target = out[:take]
            np.add(target, (clip[at:at + take] if clip.ndim == 2 else clip[at:at + take, None]) * gain, out=target)
            np.clip(target, -ceiling, ceiling, out=target)
        self._audition = (clip, at + take) if at + take < clip.shape[0] else None

    def _check_late(self, t: int, n: int) -> None:
        pending = self.pending
        if not pending.starts:
            return
        first = bisect.bisect_left(pending.starts, t)
        last = bisect.bisect_left(pending.starts, t + n)
        for i in range(first, last):
            self._late += 1
            if self.on_late is not None:
                self.on_late(pending.line_ids[i], pending.starts[i])

    def _heard(self, played: int) -> int:
        """The timeline frame the sink is playing now (from the block history)."""
        return self._timeline_at(played)

    def _timeline_at(self, played: int) -> int:
        """The timeline frame at ring counter ``played`` (from the block history).
        Silence queued before play() maps to where play started."""
        counters = self._hist_counter
        positions = self._hist_pos
        filled = min(self._hist_next, _HISTORY)
        best = -1
        upcoming = -1  # the first playing block not yet reached by the sink
        for k in range(filled):
            counter = int(counters[k])
            if counter <= played:
                if best < 0 or counter > int(counters[best]):
                    best = k
            elif positions[k] >= 0 and (upcoming < 0 or counter < int(counters[upcoming])):
                upcoming = k
        if best >= 0 and positions[best] >= 0:
            return int(positions[best]) + (played - int(counters[best]))
        if upcoming >= 0:
            return int(positions[upcoming])
        return self._t
