"""The Session: one open production, the engine behind the studio and ``radioplay play``.

A :class:`Session` owns the synthesizer, the scheduler, the live player and
the state of every line (planned, queued, synthesizing, ready, failed). The
studio and the CLI talk to it only through its methods, which never block:
they put an event on a queue and return. Export takes the session (its
``render_session``: a long job, run from a worker thread).

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

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from engine.audio.live import BLOCK, LivePlayer
from engine.audio.meters import MeterSnapshot
from engine.audio.mixer import BlockMixer
from engine.audio.programme import Programme
from engine.audio.sinks import NULL_SINK, DeviceSink, OutputSink, SinkStats, open_sink
from engine.audio.soundbus import SoundBus
from engine.metrics.hub import MetricsHub
from engine.mixdown.sound_placement import SoundSet
from engine.project.model import Project, VoiceParams
from engine.project.snapshot import freeze
from engine.sched.cost import Outlook
from engine.sched.policy import RolePriorityPolicy
from engine.sched.scheduler import Scheduler
from engine.session.base import LineRecord, PassState
from engine.session.checking import CheckDesk, SpeechChecker
from engine.session.lines import LineBook
from engine.session.mix import LiveMix
from engine.session.outlook import session_outlook
from engine.session.playback import PlaybackPass
from engine.session.sound_desk import SoundDesk
from engine.session.views import (
    ClipView,
    LineStatus,
    SessionState,
    SoundView,
    TransportSnapshot,
    waveform_peaks,
)
from engine.synth.backends.synth_device import SynthDevice
from engine.synth.synthesizer import ClipSynthesizer, make_synthesizer
from engine.synth.wordmap import WordTime, line_words

log = logging.getLogger("engine.session")

LOOKAHEAD_S = 20.0  # playback prefetch window ahead of the playhead
TICK_S = 0.1  # the control thread's housekeeping period
CLOSE_WAIT_S = 60.0  # how long close waits for the event in hand


class Session:
    """The coordinator of the session's parts (each owns its state and is handed
    its collaborators): the line book, the playback pass, the live mix, the
    sound desk and the check desk. It owns the applied snapshot, the control
    thread and its queue, and applies each new snapshot across the parts."""

    def __init__(self, project: Project, project_path: Path | None = None, *, output: str | None = None,
                 prerender: bool = True, prerender_on_open: bool = True, synth: ClipSynthesizer | None = None,
                 sink: OutputSink | None = None,
                 lookahead_s: float = LOOKAHEAD_S, block: int = BLOCK, sound_folders: Sequence[Path] = (),
                 check: bool = False, device: SynthDevice | None = None) -> None:
        self.project = freeze(project)  # the control thread's snapshot
        self._latest = self.project  # the newest handed over (update), for export
        self._latest_typing = False
        self._update_posted = False
        self._handover = threading.Lock()  # update() vs the control thread taking the newest snapshot
        self.project_path = project_path
        self.rate = project.sample_rate
        self.prerender = prerender
        self.lookahead_s = lookahead_s
        # device: where a synthesizer made here runs (synth_device.py); None: plain CPU sessions.
        self.synth = synth or make_synthesizer(project_path, self.rate, device=device)
        self.metrics = MetricsHub()
        self.scheduler = Scheduler(self.synth, RolePriorityPolicy(), metrics=self.metrics, capacity=8192)
        # check: the speech check runs in the background, below every other origin (engine/session/checking.py).
        self.checker = SpeechChecker(self.synth, self.scheduler) if check else None
        audio_error = None
        if sink is None:
            sink, audio_error = open_sink(self.rate, output)
        self._events: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._closed = False
        self.last_error: str | None = None  # the last problem the control thread met (for a status line)
        applied = self._applied
        self.sound_desk = SoundDesk(applied, project_path, sound_folders, self.synth.cache, self.rate,
                                    reshape_lanes=lambda: self.live_mix.reshape_lanes(),
                                    room_ready=lambda: self.playback.request_relayout())
        self.live_mix = LiveMix(applied, self.rate, self.synth, self.scheduler, self.sound_desk, sink, block,
                                records=lambda: self.book.records, pending=lambda: self.playback.pending,
                                on_late=lambda line_id, frame: self.playback.on_late(line_id, frame),
                                on_wrap=lambda: self.playback.on_wrap(), on_end=lambda: self.playback.on_end(),
                                on_gain=lambda: self.playback.relayout(),
                                take_alone=lambda line_id, clip: self.playback.take_alone(line_id, clip),
                                post=self._post,
                                closed=lambda: self._closed, report_error=self._report_error,
                                audio_error=audio_error)
        self.book = LineBook(applied, self.rate, self.synth, self.scheduler, lambda: self.live_mix.player,
                             self._post, self._report_error)
        self.playback = PlaybackPass(applied, self.rate, self.book, self.live_mix, self.sound_desk, self.scheduler,
                                     self.synth.cache, prerender=prerender, prerender_on_open=prerender_on_open,
                                     lookahead_s=lookahead_s, post=self._post, report_error=self._report_error)
        self.book.playback = self.playback
        self.check_desk = CheckDesk(self.checker, lambda: self.book.records, applied, self._post)
        self._thread = threading.Thread(target=self._run, name="radioplay-live", daemon=True)
        self._post(self.sound_desk.resolve)
        self._post(self.book.replan_all)
        self._post(self.book.load_voices)
        if self.playback.prerendering:
            self._post(lambda: self.playback.prerender_rest(0.0))
        self._thread.start()
        # The player (its ring, sink and mixer thread) starts with the first
        # play or audition: opening a project loads voices, which holds the GIL
        # for a while, and an idle device would only count that as underruns.

    def _applied(self) -> Project:
        return self.project

    def _report_error(self, message: str) -> None:
        self.last_error = message

    # What the parts own, read where the Session's readers (the CLI, the benchmarks, tests) look.
    @property
    def player(self) -> LivePlayer:
        return self.live_mix.player

    @property
    def programme(self) -> Programme:
        return self.live_mix.programme

    @property
    def mixer(self) -> BlockMixer:
        return self.live_mix.mixer

    @property
    def master_gain_db(self) -> float | None:
        return self.live_mix.master_gain_db

    @property
    def audio_error(self) -> str | None:
        return self.live_mix.audio_error

    @property
    def sound_bus(self) -> SoundBus | None:
        return self.sound_desk.bus

    @property
    def sound_set(self) -> SoundSet:
        return self.sound_desk.sound_set

    @property
    def sound_folders(self) -> list[Path]:
        return self.sound_desk.folders

    @property
    def late_log(self) -> list[tuple[str, float]]:
        """(line id, timeline seconds where it was reached) of every late line."""
        return self.playback.late_log

    @property
    def _lines(self) -> dict[str, LineRecord]:
        return self.book.records

    @property
    def _pass(self) -> PassState:
        return self.playback.pass_state

    def update(self, project: Project, *, typing: bool = False) -> None:
        """Hand over the production as it is now: a snapshot
        (engine.project.snapshot) nobody changes afterwards. The control
        thread compares it with the one it has and re-plans only what
        changed; snapshots that arrive faster than it applies them are
        skipped (the newest wins). With ``typing`` the lines whose text
        changed are re-planned once they have been quiet for
        ``TYPING_QUIET_S`` (not on every keystroke); their timing follows at once."""
        with self._handover:
            self._latest = project
            self._latest_typing = typing and (self._latest_typing or not self._update_posted)
            posted, self._update_posted = self._update_posted, True
        if not posted:
            self._post(self._take_update)

    def play(self, from_s: float | None = None, until_s: float | None = None) -> None:
        """Play from ``from_s`` (or where the playhead is); with ``until_s``
        stop exactly there (the table read plays a stretch of lines, then
        waits for its reader)."""
        self._post(lambda: self.playback.play(from_s, until_s))

    def play_lines(self, first: str, last: str) -> None:
        """Play from the start of line ``first`` to the end of line ``last``, then
        stop (positions as laid out when the command is handled: clips that
        arrived meanwhile count)."""
        self._post(lambda: self.playback.play_lines(first, last))

    def prefetch(self, line_ids: list[str]) -> None:
        """Voice these lines before any other, in this order (the table read's
        next replies: they must come from memory the moment a reader stops)."""
        self._post(lambda: self.playback.prefetch(line_ids))

    def pause(self) -> None:
        self._post(self.playback.pause)

    def stop(self) -> None:
        self._post(self.playback.stop)

    def seek(self, position_s: float) -> None:
        self._post(lambda: self.playback.seek(position_s))

    def set_loop(self, region: tuple[float, float] | None) -> None:
        if region is not None and region[1] <= region[0]:
            raise ValueError(f"loop {region[0]:.2f}-{region[1]:.2f} s: the end must come after the start")
        self._post(lambda: self.playback.set_loop(region))

    def audition(self, role: str, text: str, voice: VoiceParams | None = None) -> None:
        """Hear ``text`` as ``role`` at once; ``voice`` tries other voice settings (a
        speaker being chosen) without changing the role."""
        self._post(lambda: self.live_mix.audition(role, text, voice))

    def audition_take(self, line_id: str, seed: int) -> None:
        """Hear one take of a line (made at audition priority if it is new)
        without choosing it: A/B comparing takes is hearing each in turn."""
        self._post(lambda: self.live_mix.audition_take(line_id, seed))

    def play_recording(self, audio: np.ndarray, rate: int) -> None:
        """Play a mono recording at once on the audition voice (a catalogue's voice sample)."""
        self._post(lambda: self.live_mix.play_recording(audio, rate))

    def clips(self) -> list[ClipView]:
        return self.playback.clip_views

    def line_status(self) -> dict[str, LineStatus]:
        return self.book.status

    def outlook(self, from_s: float = 0.0) -> Outlook:
        """Can the workers voice the lines not voiced yet before the playhead reaches them
        from ``from_s`` (at the speed they measure here)? Any thread: it reads the published
        clip views and the snapshot the control thread applied (engine/session/outlook.py)."""
        return session_outlook(self.project, self.playback.clip_views, self.book.status, self.scheduler.cost,
                               self.scheduler.workers, from_s)

    def sounds(self) -> list[SoundView]:
        return self.sound_desk.views

    def sound_peaks(self, clip_id: str, columns: int) -> np.ndarray | None:
        """(columns, 2) min/max of a sound clip as laid out (engine/session/sound_desk.py)."""
        return self.sound_desk.peaks(clip_id, columns)

    def fix_lines(self, line_ids: Sequence[str], takes: int) -> None:
        """Up to ``takes`` new takes of each of ``line_ids`` that is not locked,
        made at origin CHECK; ``state().fixing`` reports the best of each."""
        self.check_desk.fix_lines(line_ids, takes)

    def clip_peaks(self, line_id: str, columns: int) -> np.ndarray | None:
        record = self.book.records.get(line_id)
        clip = record.clip if record is not None else None
        if clip is None or columns <= 0:
            return None
        return waveform_peaks(clip, columns)

    def line_words(self, line_id: str) -> tuple[WordTime, ...]:
        """The line's written words timed within the clip it plays (empty: no
        clip yet, a recorded take, or a clip without timings). Any thread: it
        reads the line's record as clip_peaks does and the applied snapshot."""
        record = self.book.records.get(line_id)
        plan = record.plan if record is not None and record.clip is not None else None
        if plan is None:
            return ()
        try:
            text = self.project.line(line_id).text
        except KeyError:
            return ()
        return line_words(text, plan, self.synth.cache)

    def transport(self) -> TransportSnapshot:
        mix = self.live_mix
        player = mix.player
        snap = player.snapshot()
        sink: SinkStats = snap.sink
        duration = self.playback.end_frame / self.rate  # as export: where playing stops
        audition = snap.audition if isinstance(snap.audition, tuple) else None
        return TransportSnapshot(snap.position_s, snap.playing, duration, snap.loop, len(self.playback.late_log),
                                 sink.underruns, sink.cpu_load, player.sink.name, mix.audio_error,
                                 sink.device_underflows, audition, snap.ended)

    def state(self) -> SessionState:
        """One read of everything the studio draws; never waits for the control thread."""
        checker = self.checker
        return SessionState(self.transport(), self.book.status, self.playback.clip_views, self.levels(),
                            self.metrics.snapshot(), self.last_error, self.sound_desk.views,
                            *((checker.results, checker.fixing) if checker is not None else ()))

    def levels(self) -> MeterSnapshot | None:
        """Per-lane peaks and the master's short-term loudness, as heard live."""
        meters = self.live_mix.programme.meters
        return meters.snapshot if meters is not None else None

    def set_output(self, name: str | None) -> None:
        """Switch the output (a device name, "null", or None for the default
        device); playback continues from where it was. The name is what to
        remember: device indices change when devices come and go."""
        self._post(lambda: self.live_mix.set_output(name))

    def outputs(self) -> list[str]:
        return [*DeviceSink.available(), NULL_SINK]

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Block until the control thread has handled every event so far (tests, CLI)."""
        done = threading.Event()
        self._post(done.set)
        return done.wait(timeout)

    def handed_over(self) -> Project:
        """The newest snapshot handed over by :meth:`update`, applied yet or not
        (what an export of the session renders)."""
        return self._latest

    def refresh_from_cache(self) -> None:
        """Take up clips that appeared in the cache meanwhile (an export through
        this session's synthesizer voiced them)."""
        self._post(self.book.refresh_from_cache)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._events.put(None)
        # The event in hand finishes first (a re-plan of many lines takes seconds on a
        # busy machine); closing the scheduler under it would fail it mid-way, and a
        # thread still in native code when the interpreter exits aborts the process.
        self._thread.join(timeout=CLOSE_WAIT_S)
        self.live_mix.close()
        if self.checker is not None:
            self.checker.close()
        self.scheduler.close()
        self.playback.reset_pass()
        for record in self.book.records.values():
            self.book.release(record)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _post(self, event: Callable[[], None]) -> None:
        if not self._closed:
            self._events.put(event)

    def _run(self) -> None:
        next_tick = time.monotonic()
        while True:
            # The tick runs on time however many events arrive (a burst of
            # edits must not starve the prefetch window).
            timeout = next_tick - time.monotonic()
            if timeout <= 0:
                next_tick = time.monotonic() + TICK_S
                self._handle(self._tick)
                continue
            try:
                event = self._events.get(timeout=timeout)
            except queue.Empty:
                continue
            if event is None or self._closed:
                return
            self._handle(event)

    def _handle(self, event: Callable[[], None]) -> None:
        if self._closed:
            return  # closing: work queued for a session that is going away is dropped
        try:
            event()
        except Exception as exc:  # keep the session alive; say what failed
            if self._closed:  # work overtaken by close (the scheduler refuses it): nothing failed
                return
            log.exception("session control thread: %s", exc)
            self.last_error = f"{type(exc).__name__}: {exc}"

    def _tick(self) -> None:
        """Keep the prefetch window ahead of the playhead; re-plan lines typing
        has left alone long enough; refresh line states."""
        snap = self.live_mix.player.snapshot()
        if snap.playing:
            self.playback.request_window(snap.mixed_s)
        due = self.book.quiet_lines()
        if due:
            self.book.replan(due, edited=True)
            self.playback.relayout()
        else:
            self.book.publish_status()
        self.check_desk.offer_checks()

    def _take_update(self) -> None:
        with self._handover:
            project, typing = self._latest, self._latest_typing
            self._update_posted, self._latest_typing = False, False
        self._apply(project, typing)

    def _apply(self, new: Project, typing: bool) -> None:
        """Move from the applied snapshot to ``new``: re-plan the lines whose
        sound changed, rebuild the lanes if the cast changed shape, and lay
        the timeline out again."""
        old, self.project = self.project, new
        if new is old:
            return
        recast = self.book.recast(old, new)
        if [r.name for r in old.cast] != [r.name for r in new.cast]:
            self.live_mix.reshape_lanes()
        self.book.apply(old, new, recast, typing)
        if new.master_effect != old.master_effect:
            self.live_mix.master_changed()
        if new.sounds is not old.sounds or new.sound_lanes is not old.sound_lanes:
            self.sound_desk.changed(old)
        self.playback.relayout()
