"""The Session: one open production, the engine behind the studio and ``radioplay play``.

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

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.audio.live import BLOCK, PendingLines
from engine.audio.meters import MeterSnapshot
from engine.audio.sinks import NULL_SINK, DeviceSink, OutputSink, SinkStats, open_sink
from engine.export.mixplan import programme_frames
from engine.export.render import RenderOptions, RenderReport, render_project
from engine.export.sounds import SoundSet
from engine.farm.farm import open_farm
from engine.metrics.hub import MetricsHub
from engine.project.model import Project, VoiceParams
from engine.project.snapshot import freeze
from engine.project.timeline import Placement
from engine.sched.cost import Outlook, PendingLine, playback_outlook
from engine.sched.policy import RolePriorityPolicy
from engine.sched.request import LineRequest
from engine.sched.scheduler import Scheduler
from engine.session.base import LineRecord, PassState
from engine.session.checking import CheckDesk, SpeechChecker
from engine.session.lines import LineBook
from engine.session.mix import LiveMix
from engine.session.playback import PlaybackPass
from engine.session.sounds import SoundDesk
from engine.session.views import (
    ClipView,
    LineStatus,
    SessionState,
    SoundView,
    TransportSnapshot,
    waveform_peaks,
)
from engine.synth.synthesizer import ClipSynthesizer, make_synthesizer
from engine.synth.wordmap import WordTime, line_words

log = logging.getLogger("engine.session")

LOOKAHEAD_S = 20.0  # playback prefetch window ahead of the playhead
TICK_S = 0.1  # the control thread's housekeeping period


class Session(LineBook, PlaybackPass, LiveMix, SoundDesk, CheckDesk):
    def __init__(self, project: Project, project_path: Path | None = None, *, output: str | None = None,
                 prerender: bool = True, prerender_on_open: bool = True, synth: ClipSynthesizer | None = None,
                 sink: OutputSink | None = None,
                 lookahead_s: float = LOOKAHEAD_S, block: int = BLOCK,
                 sound_folders: Sequence[Path] = (), check: bool = False) -> None:
        self.project = freeze(project)  # the control thread's snapshot
        self._latest = self.project  # the newest handed over (update), for export
        self._latest_typing = False
        self._update_posted = False
        self._handover = threading.Lock()  # update() vs the control thread taking the newest snapshot
        self._quiet: dict[str, float] = {}  # line id -> when typing in it has been quiet long enough
        self._auditions: dict[str, LineRequest] = {}
        self.project_path = project_path
        self.rate = project.sample_rate
        self.prerender = prerender
        self.lookahead_s = lookahead_s
        self.synth = synth or make_synthesizer(project_path, self.rate)
        self.metrics = MetricsHub()
        self.scheduler = Scheduler(self.synth, RolePriorityPolicy(), metrics=self.metrics, capacity=8192)
        # check: the speech check runs in the background, below every other origin (engine/session/checking.py).
        self.checker = SpeechChecker(self.synth, self.scheduler) if check else None
        self._offered: dict[str, str] = {}
        if sink is None:
            sink, self.audio_error = open_sink(self.rate, output)
        else:
            self.audio_error = None
        self._lines: dict[str, LineRecord] = {}
        self._pass = PassState()
        self._placements: list[Placement] = []
        self._placement_of: dict[str, Placement] = {}
        self._envelopes = {}
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
        self.sound_folders = [Path(f) for f in sound_folders]  # --sounds DIR: searched after sounds/
        self.sound_set = SoundSet()
        self._library = None
        self._sound_views = []
        self.mixer = self._new_mixer()
        self.sound_bus = self._new_sound_bus()
        self.programme = self._new_programme()
        self._block = block
        self._pending = PendingLines.empty()
        self.player = self._make_player(sink)
        self._events: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._closed = False
        self.last_error: str | None = None  # the last problem the control thread met (for a status line)
        self._thread = threading.Thread(target=self._run, name="radioplay-live", daemon=True)
        self._post(self._resolve_sounds)
        self._post(self._replan_all)
        self._post(self._load_voices)
        if self._prerendering:
            self._post(lambda: self._prerender_rest(0.0))
        self._thread.start()
        # The player (its ring, sink and mixer thread) starts with the first
        # play or audition: opening a project loads voices, which holds the GIL
        # for a while, and an idle device would only count that as underruns.

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
        self._post(lambda: self._play(from_s, until_s))

    def play_lines(self, first: str, last: str) -> None:
        """Play from the start of line ``first`` to the end of line ``last``, then
        stop (positions as laid out when the command is handled: clips that
        arrived meanwhile count)."""
        self._post(lambda: self._play_lines(first, last))

    def prefetch(self, line_ids: list[str]) -> None:
        """Voice these lines before any other, in this order (the table read's
        next replies: they must come from memory the moment a reader stops)."""
        self._post(lambda: self._prefetch(line_ids))

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

    def audition(self, role: str, text: str, voice: VoiceParams | None = None) -> None:
        """Hear ``text`` as ``role`` at once; ``voice`` tries other voice settings (a
        speaker being chosen) without changing the role."""
        self._post(lambda: self._audition(role, text, voice))

    def audition_take(self, line_id: str, seed: int) -> None:
        """Hear one take of a line (made at audition priority if it is new)
        without choosing it: A/B comparing takes is hearing each in turn."""
        self._post(lambda: self._audition_take(line_id, seed))

    def play_recording(self, audio: np.ndarray, rate: int) -> None:
        """Play a mono recording at once on the audition voice (a catalogue's voice sample)."""
        self._post(lambda: self._play_recording(audio, rate))

    def clips(self) -> list[ClipView]:
        return self._clip_views

    def line_status(self) -> dict[str, LineStatus]:
        return self._status

    def outlook(self, from_s: float = 0.0) -> Outlook:
        """Can the workers voice the lines not voiced yet before the playhead reaches them
        from ``from_s`` (at the speed they measure here)? Any thread: it reads the published
        clip views and the snapshot the control thread applied."""
        backend = {r.name: r.voice.backend for r in self.project.cast}
        lines = [PendingLine(c.start, c.end - c.start, backend.get(c.role, "piper"), not c.estimated)
                 for c in self._clip_views]
        return playback_outlook(lines, self.scheduler.cost, self.scheduler.workers, from_s)

    def sounds(self) -> list[SoundView]:
        return self._sound_views

    def clip_peaks(self, line_id: str, columns: int) -> np.ndarray | None:
        record = self._lines.get(line_id)
        clip = record.clip if record is not None else None
        if clip is None or columns <= 0:
            return None
        return waveform_peaks(clip, columns)

    def line_words(self, line_id: str) -> tuple[WordTime, ...]:
        """The line's written words timed within the clip it plays (empty: no
        clip yet, a recorded take, or a clip without timings). Any thread: it
        reads the line's record as clip_peaks does and the applied snapshot."""
        record = self._lines.get(line_id)
        plan = record.plan if record is not None and record.clip is not None else None
        if plan is None:
            return ()
        try:
            text = self.project.line(line_id).text
        except KeyError:
            return ()
        return line_words(text, plan, self.synth.cache)

    def transport(self) -> TransportSnapshot:
        snap = self.player.snapshot()
        sink: SinkStats = snap.sink
        end = max(max((c.end for c in self._clip_views), default=0.0),
                  max((s.end for s in self._sound_views), default=0.0))
        duration = programme_frames(int(round(end * self.rate)), self.programme) / self.rate  # as export
        return TransportSnapshot(snap.position_s, snap.playing, duration, snap.loop, len(self.late_log),
                                 sink.underruns, sink.cpu_load, self.player.sink.name, self.audio_error,
                                 sink.device_underflows)

    def state(self) -> SessionState:
        """One read of everything the studio draws; never waits for the control thread."""
        checker = self.checker
        return SessionState(self.transport(), self._status, self._clip_views, self.levels(),
                            self.metrics.snapshot(), self.last_error, self._sound_views,
                            *((checker.results, checker.fixing) if checker is not None else ()))

    def levels(self) -> MeterSnapshot | None:
        """Per-lane peaks and the master's short-term loudness, as heard live."""
        meters = self.programme.meters
        return meters.snapshot if meters is not None else None

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
               cancel: threading.Event | None = None, ray: str | None = None) -> RenderReport:
        """Render mix, stems, captions and cue sheet (blocking: call it from a
        worker thread). Shares the synthesizer and cache, so lines already
        heard are not synthesized again. ``ray``: a cluster address (or auto)
        whose actors voice what is missing (engine/farm; NoWorkers when none);
        each actor's work shows in the engine monitor beside the sessions."""
        try:
            if options is not None and self.sound_folders and not options.sound_folders:
                options = replace(options, sound_folders=tuple(self.sound_folders))
            with open_farm(ray, self.synth, metrics=self.metrics) as farm:
                return render_project(self._latest, self.synth, outdir, options, progress, cancel,
                                      scheduler=farm.scheduler if farm else self.scheduler,
                                      project_path=self.project_path)
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
        if self.checker is not None:
            self.checker.close()
        self.scheduler.close()
        self._reset_pass()
        for record in self._lines.values():
            self._release(record)

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
            if event is None:
                return
            self._handle(event)

    def _handle(self, event: Callable[[], None]) -> None:
        try:
            event()
        except Exception as exc:  # keep the session alive; say what failed
            log.exception("session control thread: %s", exc)
            self.last_error = f"{type(exc).__name__}: {exc}"

    def _tick(self) -> None:
        """Keep the prefetch window ahead of the playhead; re-plan lines typing
        has left alone long enough; refresh line states."""
        snap = self.player.snapshot()
        if snap.playing:
            self._request_window(snap.mixed_s)
        now = time.monotonic()
        due = [line_id for line_id, at in self._quiet.items() if at <= now]
        if due:
            for line_id in due:
                del self._quiet[line_id]
            self._replan(due, edited=True)
            self._relayout()
        else:
            self._publish_status()
        self._offer_checks()

    def _take_update(self) -> None:
        with self._handover:
            project, typing = self._latest, self._latest_typing
            self._update_posted, self._latest_typing = False, False
        self._apply(project, typing)
