"""The live mix: lanes, effects, output and loudness matching.

The export's programme over the live mixer (what is heard is what is
exported), one lane per role, the output device, auditions, and the master
gain solved as export solves it once every line has a clip (on the
"radioplay-loudness" thread).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from engine.audio.effects import LIMITER_CEILING_DB
from engine.audio.live import BLOCK, LivePlayer, PendingLines
from engine.audio.meters import LevelMeters
from engine.audio.mixer import BlockMixer
from engine.audio.programme import Programme
from engine.audio.sinks import OutputSink, open_sink
from engine.audio.staging import line_stages
from engine.mixdown.live_gain import nominal_gain_db, solve_live_gain
from engine.mixdown.memo import GainMemo, SolvedGain
from engine.mixdown.sound_placement import apply_sound_lanes
from engine.project.model import Project, VoiceParams
from engine.sched.request import LineRequest, Origin
from engine.sched.scheduler import Scheduler
from engine.session.base import LineRecord
from engine.session.sound_desk import SoundDesk
from engine.synth import shaping
from engine.synth.errors import TextError, VoiceError
from engine.synth.pipeline import plan_line
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer


class LiveMix:
    def __init__(self, project: Callable[[], Project], rate: int, synth: ClipSynthesizer, scheduler: Scheduler,
                 sounds: SoundDesk, sink: OutputSink, block: int, *,
                 records: Callable[[], Mapping[str, LineRecord]], pending: Callable[[], PendingLines],
                 on_late: Callable[[str, int], None], on_wrap: Callable[[], None], on_end: Callable[[], None],
                 on_gain: Callable[[], None], take_alone: Callable[[str, np.ndarray], np.ndarray],
                 post: Callable[[Callable[[], None]], None], closed: Callable[[], bool],
                 report_error: Callable[[str], None], audio_error: str | None) -> None:
        """``records``: the line book's records (the loudness waits for every clip);
        ``pending``: the playback pass's lines without a clip (a new output takes them);
        ``on_late``, ``on_wrap``, ``on_end``: the playback pass's, called on the mixer thread;
        ``on_gain``: the playback pass lays the lines out again, levelled for a solved master gain;
        ``take_alone``: the playback pass's take of a line as the mix plays the line, alone;
        ``post``: onto the control thread; ``closed``: the session closed."""
        self._project, self.rate, self.synth, self.scheduler, self.sounds = project, rate, synth, scheduler, sounds
        self._records, self._pending, self._on_late, self._on_wrap = records, pending, on_late, on_wrap
        self._on_end = on_end
        self._end: int | None = None  # the programme's end (set_end), for a new output's player too
        self._on_gain, self._take_alone = on_gain, take_alone
        self._post, self._closed, self._report_error = post, closed, report_error
        self.audio_error = audio_error
        self.master_gain_db: float | None = None  # solved like export's once every clip exists
        # The master gain the dialogue leveller levels the live lines for (the solve's, as export's).
        self.staging_db: float | None = None
        self._loudness_signature: object = None
        self._loudness = ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-loudness")
        self._auditions: dict[str, LineRequest] = {}  # role -> its newest audition not played yet
        self._block = block
        self.mixer = self._new_mixer()
        sounds.renew_bus(self.mixer.max_block)
        self.programme = self._new_programme()
        self.player = self._make_player(sink)

    def close(self) -> None:
        self._loudness.shutdown(wait=True, cancel_futures=True)
        self.player.close()

    def _make_player(self, sink: OutputSink) -> LivePlayer:
        player = LivePlayer(self.programme, self.rate, sink, on_late=self._on_late, on_wrap=self._on_wrap,
                            block=self._block, on_end=self._on_end)
        player.set_end(self._end)
        return player

    def set_end(self, frame: int) -> None:
        """The programme's end (its last clip's end and tail): playing stops there."""
        self._end = frame
        self.player.set_end(frame)

    def _new_programme(self) -> Programme:
        """The export's chain over the live mixer, so what is heard is what is exported."""
        lanes = self.mixer.lanes
        bus = self.sounds.bus
        project = self._project()
        gain_db = self.master_gain_db if self.master_gain_db is not None else nominal_gain_db(project)
        programme = Programme(self.mixer, self.rate, [r.effect for r in project.cast] or ["none"] * lanes,
                              project.master_effect, gain_db=gain_db,
                              meters=LevelMeters(self.rate, lanes + (bus.lanes if bus is not None else 0)),
                              sounds=bus)
        return programme

    def set_output(self, name: str | None) -> None:
        snap = self.player.snapshot()
        sink, error = open_sink(self.rate, name)
        self.player.close()
        self.audio_error = error
        self.player = self._make_player(sink)
        self.player.set_pending(self._pending())
        if snap.loop is not None:
            self.player.set_loop((int(round(snap.loop[0] * self.rate)), int(round(snap.loop[1] * self.rate))))
        frame = int(round(snap.position_s * self.rate))
        if snap.playing:
            self.player.start()
            self.player.play(frame)
        else:
            self.player.seek(frame)

    def _new_mixer(self) -> BlockMixer:
        project = self._project()
        self.lane_of = {r.name: i for i, r in enumerate(project.cast)}
        return BlockMixer([], max(1, len(project.cast)), max_block=max(BLOCK, 8192))

    def reshape_lanes(self) -> None:
        """Roles or sound lanes were added, removed, renamed or reordered: one
        lane per role and per sound lane again."""
        self.mixer = self._new_mixer()
        self.sounds.renew_bus(self.mixer.max_block)
        self.programme = self._new_programme()
        self.player.source = self.programme

    def apply_lanes(self) -> None:
        project = self._project()
        audible = project.audible_roles()
        for role in project.cast:
            lane = self.lane_of.get(role.name)
            if lane is not None and lane < self.mixer.lanes:
                self.mixer.set_lane(lane, role.gain_db, role.pan, role.name in audible)
                if self.programme.lane_effects[lane] != role.effect:
                    self.programme.set_lane_effect(lane, role.effect)
        bus = self.sounds.bus
        if bus is not None:
            apply_sound_lanes(project, bus)
            # Here, not in the mixer thread's blocks: a rebuild after each arriving clip
            # takes milliseconds that a real-time block cannot spare.
            bus.sync(self.mixer)
        self._check_loudness()

    def master_changed(self) -> None:
        project = self._project()
        if self.programme.master_effect != project.master_effect:
            self.programme.set_master_effect(project.master_effect)
        self._check_loudness()

    def _check_loudness(self) -> None:
        """Once every line has a clip, solve the master gain as export does
        (in the background: it is a pass over the programme), so live playback
        is as loud as the exported mix. Until then a nominal gain is used."""
        records = self._records()
        if not records or any(r.clip is None for r in records.values()):
            return
        project = self._project()
        sound_set = self.sounds.sound_set
        signature = (tuple((lid, r.clip_key, id(r.clip)) for lid, r in records.items()),
                     tuple((r.name, r.gain_db, r.pan, r.mute, r.solo, r.effect) for r in project.cast),
                     project.master_effect, id(sound_set), tuple(project.sound_lanes),
                     tuple(project.sounds), tuple(line_stages(project).items()))
        if signature == self._loudness_signature:
            return
        self._loudness_signature = signature
        clips = {lid: r.clip for lid, r in records.items() if r.clip is not None}
        keys = {lid: r.clip_key for lid, r in records.items() if r.recording is None and r.clip_key}
        # The export's memo of solved gains (beside the clip cache): a project exported before opens
        # without a pass over its programme, and an export after listening finds the gain solved here.
        memo = GainMemo(self.synth.cache.directory)
        future = self._loudness.submit(solve_live_gain, project, clips, self.rate, self._closed,
                                       sounds=sound_set, memo=memo, keys=keys, store=self.synth.cache.disk)

        def solved(f: Future[SolvedGain]) -> None:
            self._post(lambda: self._gain_solved(signature, f))

        future.add_done_callback(solved)

    def _gain_solved(self, signature: object, future: Future[SolvedGain]) -> None:
        if future.cancelled() or future.exception() is not None or signature != self._loudness_signature:
            return
        solved = future.result()
        self.master_gain_db, self.staging_db = solved.gain_db, solved.staging_db
        self.programme.set_master_gain(self.master_gain_db)
        self._on_gain()  # the lines levelled for the gain the solve levelled them for

    def audition(self, role_name: str, text: str, voice: VoiceParams | None = None) -> None:
        project = self._project()
        try:
            role = project.role(role_name)
            plan = self.synth.plan(text, voice or role.voice, project.lexicon_for(role_name))
        except (KeyError, TextError, VoiceError) as exc:
            self._report_error(str(exc))
            return
        self._audition_plan(plan, role_name, role.priority)

    def audition_take(self, line_id: str, seed: int) -> None:
        """One take of a line, made at audition priority if it is not cached, then heard as
        playback plays the line (levelled, staged, through its lane and the master), so two
        takes compared are heard as the programme would play each."""
        project = self._project()
        try:
            line = project.line(line_id)
            plan = plan_line(self.synth, project, line, seed)
            weight = project.role(line.role).priority
        except (KeyError, TextError, VoiceError) as exc:
            self._report_error(str(exc))
            return
        self._audition_plan(plan, line.role, weight, (line_id, seed))

    def _audition_plan(self, plan: ClipPlan, role_name: str, weight: float,
                       take: tuple[str, int] | None = None) -> None:
        request = LineRequest(plan=plan, role=role_name, origin=Origin.AUDITION, weight=weight)
        # The newest audition of a role supersedes the one before (a producer moving a blend's
        # weights asks again and again; a Kokoro line takes seconds): an older one not started
        # yet is cancelled, and one already being made is not played when it arrives.
        previous = self._auditions.get(role_name)
        if previous is not None and previous.key != request.key:
            self.scheduler.cancel(lambda r: r is previous)
        self._auditions[role_name] = request
        future = self.scheduler.submit(request, timeout=0.0)
        future.add_done_callback(lambda f: self._post(lambda: self._play_audition(role_name, f, request, take)))

    def _play_audition(self, role_name: str, future: Future[np.ndarray], request: LineRequest,
                       take: tuple[str, int] | None) -> None:
        if self._auditions.get(role_name) is not request:
            return  # a newer audition of this role was asked for meanwhile
        del self._auditions[role_name]
        if future.cancelled() or future.exception() is not None:
            return
        ceiling = 10 ** (LIMITER_CEILING_DB / 20)
        self.player.start()
        if take is None:  # words typed for a role: its voice, at the master gain
            self.player.audition(future.result(), 10 ** (self.programme.gain_db / 20), ceiling)
            return
        try:
            heard = self._take_alone(take[0], future.result())
        except KeyError as exc:  # the line or its role went meanwhile
            self._report_error(f"take {take[1]} of line {take[0]}: {exc}")
            return
        self.player.audition(heard, 1.0, ceiling, tag=take)

    def play_recording(self, audio: np.ndarray, rate: int) -> None:
        """A recording levelled like a clip, at the project rate, heard like an audition."""
        clip = shaping.level_loudness(np.asarray(audio, dtype=np.float32), rate)
        clip = np.ascontiguousarray(shaping.resample(clip, rate, self.rate), dtype=np.float32)
        self.player.start()
        self.player.audition(clip, 10 ** (self.programme.gain_db / 20), 10 ** (LIMITER_CEILING_DB / 20))
