"""The post stage: raw model audio -> finished clips, on thread ``radioplay-post``.

Shaping (trim, voice design, level, resample) runs here so inference never waits
for DSP. Each clip is shaped as soon as it arrives: what has arrived is shaped
in one round, those someone is listening for (playback, audition, service)
first, the rest in the order they came (within a batch, the scheduler's rank
order), so a line the playhead waits for is not shaped after one that could
wait, and no clip waits longer than one round. Clips are shaped alone, by their own
voice parameters (ClipSynthesizer.finish), so nothing is gained by holding
one back for others of its voice: a clip parked for its group would pace a
pre-render that runs one line at a time at the parking time per line, whatever
inference and shaping cost (docs/dev/benchmark-history.md).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.sched.job import Job
from engine.sched.request import Origin
from engine.synth.live_parts import LivePart, LiveShaper
from engine.synth.synthesizer import ClipSynthesizer, RawAudio


@dataclass
class Inferred:
    """What an inference worker hands over: one job's raw audio and timing."""

    job: Job
    raw: RawAudio
    started: float
    finished: float


@dataclass
class LiveItem:
    """A part of a line's live take (engine/sched/streaming.py): the raw audio of its
    units, the pause after each, each one's phrase, whether it is the last, and the
    predicted length of each unit still to come."""

    job: Job
    shaper: LiveShaper
    pieces: list[np.ndarray]
    pauses: list[float]
    phrase_of: list[int]
    last: bool
    remaining_s: tuple[float, ...]


class PostStage:
    def __init__(self, synth: ClipSynthesizer, *, done: Callable[[Inferred, np.ndarray, float], None],
                 failed: Callable[[list[Job], Exception], None],
                 live: Callable[[Job, LivePart], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``live``: where a shaped part of a live take goes (the scheduler hands it to
        the job's listeners)."""
        self.synth = synth
        self._done = done
        self._failed = failed
        self._live = live
        self.clock = clock
        self._queue: queue.Queue[Inferred | LiveItem | None] = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name="radioplay-post", daemon=True)

    def put(self, item: Inferred) -> None:
        self._queue.put(item)

    def put_live(self, item: LiveItem) -> None:
        """A part of a live take: shaped in the order parts come, before the job's whole clip."""
        self._queue.put(item)

    def close(self) -> None:
        """Shape everything still queued, then stop (sentinel)."""
        self._queue.put(None)

    def _loop(self) -> None:
        closing = False
        while not closing:
            arrived = [self._queue.get()]  # blocks only with nothing to do
            while True:
                try:
                    arrived.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            closing = None in arrived
            round_ = [item for item in arrived if item is not None]
            round_.sort(key=lambda item: item.job.origin >= Origin.EXPORT)  # stable: else as they came
            for item in round_:
                if isinstance(item, LiveItem):
                    self._shape_live(item)
                else:
                    self._shape(item)

    def _shape_live(self, item: LiveItem) -> None:
        if item.shaper.failed:
            return
        try:
            audio = item.shaper.add(item.pieces, item.pauses, item.phrase_of, item.last)
        except Exception:  # noqa: BLE001 - the whole clip (shaped apart) still comes, or fails the line
            item.shaper.failed = True
            return
        if self._live is not None:
            audio.flags.writeable = False
            self._live(item.job, LivePart(audio, self.synth.sample_rate, item.last, item.remaining_s))

    def _shape(self, item: Inferred) -> None:
        try:
            clip = self.synth.finish(item.raw)
        except Exception as exc:  # noqa: BLE001 - a DSP failure fails this line, not the stage
            self._failed([item.job], exc)
            return
        self._done(item, clip, self.clock())
