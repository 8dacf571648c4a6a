"""The post stage: raw model audio -> finished clips, on thread ``radioplay-post``.

Shaping (trim, voice design, level, resample) runs here so inference never waits
for DSP. Clips of one voice and pitch are handed to the synthesizer
together: whatever is waiting is taken at once, and clips nobody is waiting
on urgently (export, pre-render) are parked until their group has
BATCH_SECONDS of audio, no more of that group is on its way, or PARK_MAX_S
has passed. A playback, audition or service clip is shaped immediately, with
anything parked beside it. (The groups were made to share one Rubber Band
run; each clip is now shaped alone through its voice design, so its samples
never depend on its group: see ClipSynthesizer.finish_many.)
"""

from __future__ import annotations

import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.sched.job import Job
from engine.sched.request import Origin
from engine.synth.synthesizer import ClipSynthesizer, RawAudio

BATCH_SECONDS = 30.0
PARK_MAX_S = 1.0
_IDLE = object()


@dataclass
class Inferred:
    """What an inference worker hands over: one job's raw audio and timing."""

    job: Job
    raw: RawAudio
    started: float
    finished: float


ShapeKey = tuple[str, float]


class PostStage:
    def __init__(self, synth: ClipSynthesizer, *, done: Callable[[Inferred, np.ndarray, float], None],
                 failed: Callable[[list[Job], Exception], None], outstanding: Callable[[ShapeKey], int],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.synth = synth
        self._done = done
        self._failed = failed
        self._outstanding = outstanding  # jobs of a shape group not yet shaped (pending + running)
        self.clock = clock
        self._queue: queue.Queue[Inferred | None] = queue.Queue()
        self._parked: dict[ShapeKey, list[Inferred]] = defaultdict(list)
        self._parked_at: dict[ShapeKey, float] = {}
        self.thread = threading.Thread(target=self._loop, name="radioplay-post", daemon=True)

    def put(self, item: Inferred) -> None:
        self._queue.put(item)

    def close(self) -> None:
        """Shape everything still queued or parked, then stop (sentinel)."""
        self._queue.put(None)

    def _loop(self) -> None:
        while True:
            closing = False
            try:
                first = self._queue.get(timeout=0.05 if self._parked else None)
            except queue.Empty:
                first = _IDLE  # type: ignore[assignment]
            items = []
            if first is None:
                closing = True
            elif first is not _IDLE:
                items.append(first)
            while not closing:  # take everything already waiting
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    closing = True
                else:
                    items.append(more)
            for item in items:
                key = item.job.shape_key
                self._parked[key].append(item)
                self._parked_at.setdefault(key, self.clock())
            # Most urgent group first (origin, then the job a worker took
            # first): the line the playhead waits for is never shaped after
            # one that could wait.
            for key in sorted(self._parked, key=self._urgency):
                if closing or self._ready(key):
                    self._shape(self._parked.pop(key))
                    self._parked_at.pop(key, None)
            if closing:
                return

    def _urgency(self, key: ShapeKey) -> tuple[int, float]:
        group = self._parked[key]
        return min(int(item.job.origin) for item in group), min(item.job.started for item in group)

    def _ready(self, key: ShapeKey) -> bool:
        group = self._parked[key]
        if any(item.job.origin < Origin.EXPORT for item in group):
            return True  # someone is listening for one of these
        if sum(item.raw.seconds for item in group) >= BATCH_SECONDS:
            return True
        if self.clock() - self._parked_at[key] >= PARK_MAX_S:
            return True
        return self._outstanding(key) <= len(group)  # nothing more of this group is coming

    def _shape(self, group: list[Inferred]) -> None:
        try:
            clips = self.synth.finish_many([item.raw for item in group])
        except Exception as exc:  # noqa: BLE001 - a DSP failure fails these lines, not the stage
            self._failed([item.job for item in group], exc)
            return
        finished = self.clock()
        for item, clip in zip(group, clips, strict=True):
            self._done(item, clip, finished)
