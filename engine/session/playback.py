"""The playback pass: what the playhead needs, and what it keeps fixed.

Lays the timeline out for the mixer, keeps the prefetch window ahead of the
playhead, pre-renders the rest, and handles play, pause, stop, seek, loop
wraps and late lines. A pass (reset on play, seek and loop wrap) keeps what
it has passed, so nothing already heard moves.
"""

from __future__ import annotations

import time

import numpy as np

from engine.audio.leveller import DEFAULT_LIVE_GAIN_DB, LineEnvelope, lane_offset_db, line_envelope
from engine.audio.live import PendingLines
from engine.audio.mixer import PlacedClip
from engine.project.timeline import Placement, layout_all
from engine.sched.request import Deadline, Origin
from engine.session.base import PassState, SessionCore
from engine.session.views import ClipView


class PlaybackPass(SessionCore):
    def _request_window(self, position_s: float) -> None:
        """Prefetch the lines in [position, position + look-ahead)."""
        end = position_s + self.lookahead_s
        if end <= self._requested_until:
            return
        for placement in self._placements:
            if placement.end <= position_s or placement.start >= end:
                continue
            if placement.start < self._requested_until:
                continue
            record = self._lines.get(placement.line_id)
            if record is not None and record.clip is None and placement.line_id not in self._pass.frozen:
                self._request(placement.line_id, record, Origin.PLAYBACK,
                              Deadline.on_timeline(placement.start))
        self._requested_until = end

    def _prerender_rest(self, position_s: float) -> None:
        if not self.prerender:
            return
        for placement in self._placements:
            record = self._lines.get(placement.line_id)
            if record is None or record.clip is not None:
                continue
            # Behind the playhead: no deadline (a timeline deadline in the past would be most urgent).
            deadline = (Deadline.on_timeline(placement.start) if placement.start >= position_s
                        else Deadline.none())
            self._request(placement.line_id, record, Origin.PRERENDER, deadline)

    def _placement(self, line_id: str) -> Placement | None:
        return self._placement_of.get(line_id)

    def _under_playhead(self, line_id: str, position_s: float) -> bool:
        placement = self._placement(line_id)
        return placement is not None and placement.start <= position_s < placement.end

    def _relayout(self) -> None:
        durations: dict[str, float] = {}
        clips: dict[str, np.ndarray] = {}
        for line_id, record in self._lines.items():
            clip = self._pass.held.get(line_id, record.clip)
            if clip is not None and line_id not in self._pass.frozen:
                durations[line_id] = clip.shape[0] / self.rate
                clips[line_id] = clip
        durations.update(self._pass.frozen)
        self._placements, sounds = layout_all(self.project, durations, self.sound_set.durations(self.rate),
                                              self._pass.pinned)
        self._place_sound_clips(sounds)
        self._placement_of = {p.line_id: p for p in self._placements}
        placed: list[PlacedClip] = []
        pending: list[tuple[int, str]] = []
        # The dialogue leveller levels for the gain the live master plays at (engine/audio/leveller.py).
        staging = self.master_gain_db if self.master_gain_db is not None else DEFAULT_LIVE_GAIN_DB
        offsets = {r.name: lane_offset_db(r.gain_db, r.pan) + staging for r in self.project.cast}
        envelopes: dict[tuple[int, float], tuple[np.ndarray, LineEnvelope]] = {}
        for p in self._placements:
            lane = self._lane_of.get(p.role)
            if lane is None:
                continue
            start = int(round(p.start * self.rate))
            clip = clips.get(p.line_id)
            if clip is not None:
                key = (id(clip), round(offsets[p.role], 3))
                known = self._envelopes.get(key)
                envelope = known[1] if known is not None and known[0] is clip else line_envelope(clip, self.rate, key[1])
                envelopes[key] = (clip, envelope)
                placed.append(PlacedClip(lane, start, clip, envelope))
            elif p.line_id not in self._pass.frozen and p.line_id not in self._pass.waiting:
                pending.append((start, p.line_id))
        pending.sort()
        self._envelopes = envelopes  # only the clips placed now (a new take's old clip goes)
        self.mixer.set_clips(placed)
        self._pending = PendingLines([s for s, _ in pending], [i for _, i in pending])
        self.player.set_pending(self._pending)
        self._clip_views = [ClipView(p.line_id, p.role, p.start, p.end, self._lines[p.line_id].clip is None
                                     if p.line_id in self._lines else True) for p in self._placements]
        self._apply_lanes()
        self._publish_status()

    def _new_pass(self, position_s: float) -> None:
        """Classify lines at a new start position: passed, under the playhead, ahead."""
        self._reset_pass()
        self._relayout()
        for p in self._placements:
            record = self._lines.get(p.line_id)
            if record is None or record.clip is not None:
                continue
            if p.end <= position_s:
                self._pass.frozen[p.line_id] = p.duration
            elif p.start < position_s:
                self._pass.waiting.add(p.line_id)  # starts from its beginning once ready
        self._relayout()
        self._requested_until = -1.0
        self.scheduler.set_playhead(position_s, playing=True)
        self._request_window(position_s)
        self._prerender_rest(position_s)

    def _play(self, from_s: float | None, until_s: float | None = None) -> None:
        self._prerendering = self.prerender
        position = self.player.snapshot().position_s if from_s is None else max(0.0, from_s)
        self._play_origin = position
        self._new_pass(position)
        self.player.start()
        until = None if until_s is None else max(int(round(position * self.rate)) + 1, int(round(until_s * self.rate)))
        self.player.play(int(round(position * self.rate)), until)

    def _play_lines(self, first: str, last: str) -> None:
        start = self._placement(first)
        if start is None:
            self.last_error = f"line {first} is not on the timeline"
            return
        self._prerendering = self.prerender
        self._play_origin = start.start
        self._new_pass(start.start)
        begin, end = self._placement(first), self._placement(last)
        assert begin is not None and end is not None
        self.player.start()
        frame = int(round(begin.start * self.rate))
        self.player.play(frame, max(frame + 1, int(round(end.end * self.rate))), at_once=True)

    def _prefetch(self, line_ids: list[str]) -> None:
        """Most urgent of all: playback origin, wall deadlines now, in order."""
        now = time.monotonic()
        for i, line_id in enumerate(line_ids):
            record = self._lines.get(line_id)
            if record is not None:
                self._request(line_id, record, Origin.PLAYBACK, Deadline.at(now + i * 1e-3))

    def _pause(self) -> None:
        position = self.player.snapshot().position_s  # near enough for the scheduler
        self.player.pause()  # the mixer stops where the listener is when it takes the command
        self.scheduler.set_playhead(position, playing=False, cancel_behind=False)
        self._end_pass()

    def _stop(self) -> None:
        self.player.pause()
        self.player.seek(int(round(self._play_origin * self.rate)))
        self.scheduler.set_playhead(self._play_origin, playing=False, cancel_behind=False)
        self._end_pass()

    def _end_pass(self) -> None:
        """Out of playback the timeline shows the layout export will use:
        no late-line pins, no lengths frozen for the pass."""
        self._reset_pass()
        self._relayout()

    def _reset_pass(self) -> None:
        for key in self._pass.held_keys:
            self.synth.cache.unpin(key)
        self._pass = PassState()

    def _seek(self, position_s: float) -> None:
        position_s = max(0.0, position_s)
        playing = self.player.snapshot().playing
        if playing:
            self._new_pass(position_s)
        self.player.seek(int(round(position_s * self.rate)))
        if not playing:
            self.scheduler.set_playhead(position_s, playing=False, cancel_behind=False)

    def _set_loop(self, region: tuple[float, float] | None) -> None:
        frames = None if region is None else (int(round(region[0] * self.rate)), int(round(region[1] * self.rate)))
        self.player.set_loop(frames)

    def _on_wrap(self) -> None:  # mixer thread: hand over to the control thread
        self._post(self._wrapped)

    def _wrapped(self) -> None:
        loop = self.player.snapshot().loop
        if loop is not None:
            self._new_pass(loop[0])

    def _on_late(self, line_id: str, start_frame: int) -> None:  # mixer thread
        self._post(lambda: self._late(line_id))

    def _late(self, line_id: str) -> None:
        record = self._lines.get(line_id)
        if record is None or record.clip is not None:
            return
        placement = self._placement(line_id)
        self.late_log.append((line_id, placement.start if placement is not None else -1.0))
        self._pass.waiting.add(line_id)
        self._relayout()  # no longer pending for the mixer
        # Most urgent now: its timeline deadline is in the past.
        self._request(line_id, record, Origin.PLAYBACK, Deadline.on_timeline(self.player.snapshot().mixed_s))
