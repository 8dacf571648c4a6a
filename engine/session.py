"""One open production: the engine behind the studio and ``radioplay play``.

A :class:`Session` owns the synthesizer, the scheduler, the live player and
the state of every line (planned, queued, synthesizing, ready, failed). The
studio and the CLI talk to it only through its methods, which never block:
they put an event on a queue and return. Export is the exception (it is a
long job: call it from a worker thread).

Threads (besides the scheduler's and the player's):

- ``radioplay-live``: the control thread. It alone changes the session's
  state: plans lines, submits and cancels requests, takes arriving clips,
  lays the timeline out and hands the mixer a new clip index, and keeps the
  look-ahead window of playback prefetches ahead of the playhead. Readers
  (the GUI at 10-30 Hz) get immutable snapshots it publishes.

Playback model. The timeline is laid out with real durations where clips
exist and estimates elsewhere. When play starts (or the playhead jumps or a
loop wraps) the lines in the look-ahead window are requested with timeline
deadlines, those behind the playhead are cancelled, and the rest of the
project is pre-rendered at the lowest priority. So that nothing already
heard moves, a pass keeps what it has passed: lines the playhead passed
without a clip keep their estimated length until the next pass. A line whose
start the playhead reaches before its clip is ready is a *late line*: it is
counted, and starts where the playhead is once its clip arrives (later lines
follow it), unless the playhead has already left its estimated span, in
which case it is heard on the next pass.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.audio.effects import LIMITER_CEILING_DB
from engine.audio.live import BLOCK, LivePlayer, PendingLines
from engine.audio.meters import LevelMeters, MeterSnapshot
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.programme import Programme
from engine.audio.sinks import NULL_SINK, DeviceSink, OutputSink, SinkStats, open_sink
from engine.export.render import RenderOptions, RenderReport, programme_for, programme_frames, render_project
from engine.metrics.hub import MetricsHub
from engine.project.model import Project
from engine.project.timeline import Placement, layout
from engine.sched.policy import RolePriorityPolicy
from engine.sched.request import Deadline, LineRequest, Origin, QueueFull
from engine.sched.scheduler import Scheduler
from engine.session_views import ClipView, LineState, LineStatus, TransportSnapshot, waveform_peaks
from engine.synth.errors import TextError, VoiceError
from engine.synth.pipeline import Cancelled
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer, make_synthesizer

log = logging.getLogger(__name__)

LOOKAHEAD_S = 20.0  # playback prefetch window ahead of the playhead
TICK_S = 0.1  # the control thread's housekeeping period
# Master gain while playing live, before a render has measured the programme:
# lines arrive levelled at -23 LUFS; the sample needs ~+10 dB to reach -16.
DEFAULT_LIVE_GAIN_DB = 10.0


@dataclass
class _Line:
    """The control thread's record of one line."""

    plan: ClipPlan | None = None
    error: str | None = None
    clip: np.ndarray | None = None
    clip_key: str | None = None  # the key ``clip`` was made for (pinned in the cache)
    request: LineRequest | None = None
    failed: str | None = None


@dataclass
class _Pass:
    """What one playback pass keeps fixed (reset on play, seek and loop wrap)."""

    frozen: dict[str, float] = field(default_factory=dict)  # passed without a clip: estimated length
    held: dict[str, np.ndarray] = field(default_factory=dict)  # edited while playing: old clip this pass
    held_keys: list[str] = field(default_factory=list)  # their cache pins, released with the pass
    pinned: dict[str, float] = field(default_factory=dict)  # late lines: start where they arrived
    waiting: set[str] = field(default_factory=set)  # reached (or under the playhead) without a clip


class Session:
    def __init__(self, project: Project, project_path: Path | None = None, *, output: str | None = None,
                 prerender: bool = True, prerender_on_open: bool = True, synth: ClipSynthesizer | None = None,
                 sink: OutputSink | None = None,
                 lookahead_s: float = LOOKAHEAD_S, block: int = BLOCK) -> None:
        self.project = project
        self.project_path = project_path
        self.rate = project.sample_rate
        self.prerender = prerender
        self.lookahead_s = lookahead_s
        self.synth = synth or make_synthesizer(project_path, self.rate)
        self.metrics = MetricsHub()
        self.scheduler = Scheduler(self.synth, RolePriorityPolicy(), metrics=self.metrics, capacity=8192)
        if sink is None:
            sink, self.audio_error = open_sink(self.rate, output)
        else:
            self.audio_error = None
        self._lines: dict[str, _Line] = {}
        self._pass = _Pass()
        self._placements: list[Placement] = []
        self._placement_of: dict[str, Placement] = {}
        self._clip_views: list[ClipView] = []
        self._status: dict[str, LineStatus] = {}
        self._requested_until = -1.0  # timeline seconds the prefetch window has covered
        # Pre-render fills idle time from the moment the project opens (the
        # studio shows lines becoming ready); without prerender_on_open it
        # waits for the first play (a cold-start measurement wants idle workers).
        self._prerendering = prerender and prerender_on_open
        self._play_origin = 0.0  # where the last play() started (stop returns here)
        self.late_log: list[tuple[str, float]] = []  # (line id, timeline seconds where it was reached)
        self._lane_of: dict[str, int] = {}
        self.master_gain_db: float | None = None  # solved like export's once every clip exists
        self._loudness_signature: object = None
        self._loudness = ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-loudness")
        self.mixer = self._new_mixer()
        self.programme = self._new_programme()
        self._block = block
        self._pending = PendingLines.empty()
        self.player = self._make_player(sink)
        self._events: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._closed = False
        self.last_error: str | None = None  # the last problem the control thread met (for a status line)
        self._thread = threading.Thread(target=self._run, name="radioplay-live", daemon=True)
        self._post(self._replan_all)
        self._post(self._load_voices)
        if self._prerendering:
            self._post(lambda: self._prerender_rest(0.0))
        self._thread.start()
        # The player (its ring, sink and mixer thread) starts with the first
        # play or audition: opening a project loads voices, which holds the GIL
        # for a while, and an idle device would only count that as underruns.

    # --- the public, non-blocking interface ---------------------------------------

    def line_changed(self, line_id: str) -> None:
        self._post(lambda: self._replan([line_id], edited=True))

    def lines_changed(self) -> None:
        self._post(self._replan_all)

    def role_changed(self, role: str) -> None:
        self._post(lambda: self._role_changed(role))

    def cast_changed(self) -> None:
        self._post(self._cast_changed)

    def play(self, from_s: float | None = None) -> None:
        self._post(lambda: self._play(from_s))

    def pause(self) -> None:
        self._post(self._pause)

    def stop(self) -> None:
        self._post(self._stop)

    def seek(self, position_s: float) -> None:
        self._post(lambda: self._seek(position_s))

    def set_loop(self, region: tuple[float, float] | None) -> None:
        if region is not None and region[1] <= region[0]:
            raise ValueError(f"loop {region[0]:.2f}-{region[1]:.2f} s: the end must come after the start")
        self._post(lambda: self._set_loop(region))

    def audition(self, role: str, text: str) -> None:
        self._post(lambda: self._audition(role, text))

    def clips(self) -> list[ClipView]:
        return self._clip_views

    def line_status(self) -> dict[str, LineStatus]:
        return self._status

    def clip_peaks(self, line_id: str, columns: int) -> np.ndarray | None:
        record = self._lines.get(line_id)
        clip = record.clip if record is not None else None
        if clip is None or columns <= 0:
            return None
        return waveform_peaks(clip, columns)

    def transport(self) -> TransportSnapshot:
        snap = self.player.snapshot()
        sink: SinkStats = snap.sink
        end = max((c.end for c in self._clip_views), default=0.0)
        duration = programme_frames(int(round(end * self.rate)), self.programme) / self.rate  # as export
        return TransportSnapshot(snap.position_s, snap.playing, duration, snap.loop, len(self.late_log),
                                 sink.underruns, sink.cpu_load, self.player.sink.name, self.audio_error,
                                 sink.device_underflows)

    def levels(self) -> MeterSnapshot | None:
        """Per-lane peaks and the master's short-term loudness, as heard live."""
        meters = self.programme.meters
        return meters.snapshot if meters is not None else None

    def master_changed(self) -> None:
        """The project's master preset changed: applied from the next block."""
        self._post(self._master_changed)

    def set_output(self, name: str | None) -> None:
        """Switch the output (a device name, "null", or None for the default
        device); playback continues from where it was. The name is what to
        remember: device indices change when devices come and go."""
        self._post(lambda: self._set_output(name))

    def outputs(self) -> list[str]:
        return [*DeviceSink.available(), NULL_SINK]

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Block until the control thread has handled every event so far (tests, CLI)."""
        done = threading.Event()
        self._post(done.set)
        return done.wait(timeout)

    def export(self, outdir: Path, options: RenderOptions | None = None,
               progress: Callable[[str, int, int], None] | None = None,
               cancel: threading.Event | None = None) -> RenderReport:
        """Render mix, stems, captions and cue sheet (blocking: call it from a
        worker thread). Shares the synthesizer and cache, so lines already
        heard are not synthesized again."""
        try:
            return render_project(self.project, self.synth, outdir, options, progress, cancel,
                                  scheduler=self.scheduler)
        finally:
            self._post(self._refresh_from_cache)  # lines the export voiced are ready here too

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._events.put(None)
        self._thread.join(timeout=5.0)
        self._loudness.shutdown(wait=True, cancel_futures=True)
        self.player.close()
        self.scheduler.close()
        self._reset_pass()
        for record in self._lines.values():
            self._release(record)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- control thread -------------------------------------------------------------

    def _make_player(self, sink: OutputSink) -> LivePlayer:
        return LivePlayer(self.programme, self.rate, sink, on_late=self._on_late, on_wrap=self._on_wrap,
                          block=self._block)

    def _new_programme(self) -> Programme:
        """The export's chain over the live mixer, so what is heard is what is exported."""
        lanes = self.mixer.lanes
        programme = Programme(self.mixer, self.rate, [r.effect for r in self.project.cast] or ["none"] * lanes,
                              self.project.master_effect, gain_db=self.master_gain_db or DEFAULT_LIVE_GAIN_DB,
                              meters=LevelMeters(self.rate, lanes))
        return programme

    def _set_output(self, name: str | None) -> None:
        snap = self.player.snapshot()
        sink, error = open_sink(self.rate, name)
        self.player.close()
        self.audio_error = error
        self.player = self._make_player(sink)
        self.player.set_pending(self._pending)
        if snap.loop is not None:
            self.player.set_loop((int(round(snap.loop[0] * self.rate)), int(round(snap.loop[1] * self.rate))))
        frame = int(round(snap.position_s * self.rate))
        if snap.playing:
            self.player.start()
            self.player.play(frame)
        else:
            self.player.seek(frame)

    def _post(self, event: Callable[[], None]) -> None:
        if not self._closed:
            self._events.put(event)

    def _run(self) -> None:
        next_tick = time.monotonic()
        while True:
            try:
                event = self._events.get(timeout=max(0.0, next_tick - time.monotonic()))
            except queue.Empty:
                event = self._tick
                next_tick = time.monotonic() + TICK_S
            if event is None:
                return
            try:
                event()
            except Exception as exc:  # keep the session alive; say what failed
                log.exception("session control thread: %s", exc)
                self.last_error = f"{type(exc).__name__}: {exc}"

    def _tick(self) -> None:
        """Keep the prefetch window ahead of the playhead; refresh line states."""
        snap = self.player.snapshot()
        if snap.playing:
            self._request_window(snap.mixed_s)
        self._publish_status()

    # planning and requests

    def _new_mixer(self) -> BlockMixer:
        self._lane_of = {r.name: i for i, r in enumerate(self.project.cast)}
        return BlockMixer([], max(1, len(self.project.cast)), max_block=max(BLOCK, 8192))

    def _replan_all(self) -> None:
        ids = [line.id for line in self.project.lines]
        for gone in set(self._lines) - set(ids):
            record = self._lines.pop(gone)
            self._drop_request(record)
            self._release(record)
        self._replan(ids)

    def _replan(self, line_ids: list[str], edited: bool = False) -> None:
        """Plan lines again after a change; a line whose sound changed loses its
        clip. Edited lines are synthesized at once (the producer wants to hear
        them); others wait for playback, pre-render or export."""
        roles = {r.name: r for r in self.project.cast}
        known = {line.id: line for line in self.project.lines}
        snap = self.player.snapshot()
        for line_id in line_ids:
            line = known.get(line_id)
            if line is None:
                continue
            record = self._lines.setdefault(line_id, _Line())
            role = roles.get(line.role)
            plan: ClipPlan | None = None
            error: str | None = None
            if role is None:
                error = f"unknown role {line.role!r} (not in the cast)"
            else:
                try:
                    plan = self.synth.plan(line.text, role.voice, self.project.lexicon)
                except (TextError, VoiceError) as exc:
                    error = str(exc)
            if plan is not None and record.plan is not None and plan.key == record.plan.key and record.error is None:
                continue  # nothing that changes the sound changed
            self._drop_request(record)
            old_clip = record.clip
            if old_clip is not None and snap.playing and self._under_playhead(line_id, snap.mixed_s):
                # Finish the line being heard with its old take; its pin goes with the pass.
                self._pass.held[line_id] = old_clip
                if record.clip_key is not None:
                    self._pass.held_keys.append(record.clip_key)
                record.clip, record.clip_key = None, None
            self._release(record)
            record.plan, record.error, record.failed = plan, error, None
            if plan is not None:
                self._take_cached(line_id, record)
                if record.clip is None and (edited or self._prerendering):
                    self._request(line_id, record, Origin.AUDITION if edited else Origin.PRERENDER)
        self._relayout()

    def _load_voices(self) -> None:
        """Load the cast's voices now, so the first play does not wait for it."""
        seen: set[str] = set()
        for record in self._lines.values():
            if record.plan is not None and str(record.plan.voice.model_path) not in seen:
                seen.add(str(record.plan.voice.model_path))
                try:
                    self.synth.voice(record.plan.voice)
                except VoiceError as exc:
                    self.last_error = str(exc)

    def _refresh_from_cache(self) -> None:
        changed = False
        for line_id, record in self._lines.items():
            if record.clip is None and record.plan is not None:
                self._take_cached(line_id, record)
                changed = changed or record.clip is not None
        if changed:
            self._relayout()

    def _take_cached(self, line_id: str, record: _Line) -> None:
        assert record.plan is not None
        clip, pinned = self.synth.cache.acquire(record.plan.key)
        if clip is not None:
            record.clip, record.clip_key = clip, record.plan.key if pinned else None

    def _request(self, line_id: str, record: _Line, origin: Origin, deadline: Deadline | None = None) -> None:
        if record.plan is None or record.clip is not None:
            return
        if record.request is not None and not record.request.future.done():
            if origin >= record.request.origin:
                return  # already asked at least this urgently
        placement = self._placement(line_id)
        role = placement.role if placement is not None else self.project.line(line_id).role
        weight = self.project.role(role).priority
        if deadline is None:
            deadline = Deadline.on_timeline(placement.start) if placement is not None else Deadline.none()
        request = LineRequest(plan=record.plan, role=role, origin=origin, deadline=deadline, weight=weight,
                              line_id=line_id)
        try:
            future = self.scheduler.submit(request, timeout=0.0)
        except QueueFull as exc:  # 8192 lines pending: the next play, seek or edit asks again
            self.last_error = str(exc)
            return
        record.request = request
        key = record.plan.key

        def done(f: Future[np.ndarray]) -> None:  # on a scheduler thread: hand over
            self._post(lambda: self._arrived(line_id, key, f))

        future.add_done_callback(done)

    def _drop_request(self, record: _Line) -> None:
        if record.request is not None:
            record.request.future.cancel()
            record.request = None

    def _release(self, record: _Line) -> None:
        if record.clip_key is not None:
            self.synth.cache.unpin(record.clip_key)
        record.clip, record.clip_key = None, None

    def _arrived(self, line_id: str, key: str, future: Future[np.ndarray]) -> None:
        record = self._lines.get(line_id)
        if record is None or record.plan is None or record.plan.key != key or future.cancelled():
            return
        if record.request is not None and record.request.future is future:
            record.request = None
        exc = future.exception()
        if exc is not None:
            record.failed = str(exc)
            self._publish_status()
            return
        if record.clip is None:
            self._take_cached(line_id, record)
            if record.clip is None:  # not kept in memory or on disk: use the result itself
                record.clip, record.clip_key = future.result(), None
        if line_id in self._pass.waiting:
            self._pass.waiting.discard(line_id)
            snap = self.player.snapshot()
            placement = self._placement(line_id)
            if snap.playing and placement is not None and snap.mixed_s < placement.end:
                # Start one block past where the mixer is, so no block already
                # mixed (while this ran) holds its first frames.
                self._pass.pinned[line_id] = snap.mixed_s + self.player.block / self.rate
            elif placement is not None:
                self._pass.frozen[line_id] = placement.duration  # heard on the next pass
        self._relayout()

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

    # layout

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
        self._placements = layout(self.project, durations, self._pass.pinned)
        self._placement_of = {p.line_id: p for p in self._placements}
        placed: list[PlacedClip] = []
        pending: list[tuple[int, str]] = []
        for p in self._placements:
            lane = self._lane_of.get(p.role)
            if lane is None:
                continue
            start = int(round(p.start * self.rate))
            clip = clips.get(p.line_id)
            if clip is not None:
                placed.append(PlacedClip(lane, start, clip))
            elif p.line_id not in self._pass.frozen and p.line_id not in self._pass.waiting:
                pending.append((start, p.line_id))
        pending.sort()
        self.mixer.set_clips(placed)
        self._pending = PendingLines([s for s, _ in pending], [i for _, i in pending])
        self.player.set_pending(self._pending)
        self._clip_views = [ClipView(p.line_id, p.role, p.start, p.end, self._lines[p.line_id].clip is None
                                     if p.line_id in self._lines else True) for p in self._placements]
        self._apply_lanes()
        self._publish_status()

    def _apply_lanes(self) -> None:
        audible = self.project.audible_roles()
        for role in self.project.cast:
            lane = self._lane_of.get(role.name)
            if lane is not None and lane < self.mixer.lanes:
                self.mixer.set_lane(lane, role.gain_db, role.pan, role.name in audible)
                if self.programme.lane_effects[lane] != role.effect:
                    self.programme.set_lane_effect(lane, role.effect)
        self._check_loudness()

    def _master_changed(self) -> None:
        if self.programme.master_effect != self.project.master_effect:
            self.programme.set_master_effect(self.project.master_effect)
        self._check_loudness()

    def _check_loudness(self) -> None:
        """Once every line has a clip, solve the master gain as export does
        (in the background: it is a pass over the programme), so live playback
        is as loud as the exported mix. Until then a nominal gain is used."""
        if not self._lines or any(r.clip is None for r in self._lines.values()):
            return
        signature = (tuple((lid, r.clip_key, id(r.clip)) for lid, r in self._lines.items()),
                     tuple((r.name, r.gain_db, r.pan, r.mute, r.solo, r.effect) for r in self.project.cast),
                     self.project.master_effect)
        if signature == self._loudness_signature:
            return
        self._loudness_signature = signature
        clips = {lid: r.clip for lid, r in self._lines.items() if r.clip is not None}
        project = self.project
        future = self._loudness.submit(solve_live_gain, project, clips, self.rate, lambda: self._closed)

        def solved(f: Future[float]) -> None:
            self._post(lambda: self._gain_solved(signature, f))

        future.add_done_callback(solved)

    def _gain_solved(self, signature: object, future: Future[float]) -> None:
        if future.cancelled() or future.exception() is not None or signature != self._loudness_signature:
            return
        self.master_gain_db = future.result()
        self.programme.set_master_gain(self.master_gain_db)

    def _publish_status(self) -> None:
        states = self.scheduler.job_states()
        status: dict[str, LineStatus] = {}
        for line_id, record in self._lines.items():
            if record.error is not None:
                status[line_id] = LineStatus(LineState.FAILED, record.error)
            elif record.failed is not None:
                status[line_id] = LineStatus(LineState.FAILED, record.failed)
            elif record.clip is not None:
                status[line_id] = LineStatus(LineState.READY)
            elif record.plan is not None and record.plan.key in states:
                running = states[record.plan.key]
                status[line_id] = LineStatus(LineState.SYNTHESIZING if running else LineState.QUEUED)
            else:
                status[line_id] = LineStatus(LineState.MISSING)
        self._status = status

    # transport

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

    def _play(self, from_s: float | None) -> None:
        self._prerendering = self.prerender
        position = self.player.snapshot().position_s if from_s is None else max(0.0, from_s)
        self._play_origin = position
        self._new_pass(position)
        self.player.start()
        self.player.play(int(round(position * self.rate)))

    def _pause(self) -> None:
        position = self.player.snapshot().position_s
        self.player.pause()
        self.player.seek(int(round(position * self.rate)))
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
        self._pass = _Pass()

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

    # cast

    def _role_changed(self, name: str) -> None:
        with contextlib.suppress(KeyError):
            role = self.project.role(name)
            self.scheduler.set_role_weight(name, role.priority)
        self._replan([line.id for line in self.project.lines if line.role == name], edited=True)
        self._apply_lanes()

    def _cast_changed(self) -> None:
        self.mixer = self._new_mixer()
        self.programme = self._new_programme()
        self.player.source = self.programme
        self._replan_all()
        self._relayout()

    def _audition(self, role_name: str, text: str) -> None:
        try:
            role = self.project.role(role_name)
            plan = self.synth.plan(text, role.voice, self.project.lexicon)
        except (KeyError, TextError, VoiceError) as exc:
            self.last_error = str(exc)
            return
        request = LineRequest(plan=plan, role=role_name, origin=Origin.AUDITION, weight=role.priority)
        future = self.scheduler.submit(request, timeout=0.0)
        future.add_done_callback(lambda f: self._post(lambda: self._play_audition(role_name, f)))

    def _play_audition(self, role_name: str, future: Future[np.ndarray]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        gain = 10 ** (self.programme.gain_db / 20)
        self.player.start()
        self.player.audition(future.result(), gain, 10 ** (LIMITER_CEILING_DB / 20))


def solve_live_gain(project: Project, clips: dict[str, np.ndarray], rate: int,
                    cancelled: Callable[[], bool] = lambda: False,
                    target_lufs: float = RenderOptions().target_lufs) -> float:
    """The master gain export would choose for these clips (same programme,
    analysis and limiter simulation), on a private mixer. Raises Cancelled
    between blocks once ``cancelled()`` says so (the session is closing)."""
    programme, _, total = programme_for(project, clips)

    def check() -> None:
        if cancelled():
            raise Cancelled("the session closed")

    gain_db, _ = programme.analyse(total, check=check).solve_gain(target_lufs, LIMITER_CEILING_DB)
    return gain_db


__all__ = ["ClipView", "LineState", "LineStatus", "Session", "TransportSnapshot", "solve_live_gain", "waveform_peaks"]
