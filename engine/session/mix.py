"""The live mix: lanes, effects, output and loudness matching.

The export's programme over the live mixer (what is heard is what is
exported), one lane per role, the output device, auditions, and the master
gain solved as export solves it once every line has a clip (on the
"radioplay-loudness" thread).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import Future

import numpy as np

from engine.audio.effects import LIMITER_CEILING_DB
from engine.audio.leveller import DEFAULT_LIVE_GAIN_DB, expected_gain_db
from engine.audio.live import BLOCK, LivePlayer
from engine.audio.meters import LevelMeters
from engine.audio.mixer import BlockMixer
from engine.audio.programme import Programme
from engine.audio.sinks import OutputSink, open_sink
from engine.export.memo import GainMemo, SolvedGain, programme_key
from engine.export.mixplan import programme_for
from engine.export.render import RESTAGE_DB, RESTAGE_LEAD, RESTAGES, RenderOptions
from engine.export.sounds import SoundSet, apply_sound_lanes
from engine.project.model import Project, VoiceParams
from engine.sched.request import LineRequest, Origin
from engine.session.base import SessionCore
from engine.synth import shaping
from engine.synth.errors import TextError, VoiceError
from engine.synth.pipeline import Cancelled, plan_line
from engine.synth.synthesizer import ClipPlan


class LiveMix(SessionCore):
    def _make_player(self, sink: OutputSink) -> LivePlayer:
        return LivePlayer(self.programme, self.rate, sink, on_late=self._on_late, on_wrap=self._on_wrap,
                          block=self._block)

    def _new_programme(self) -> Programme:
        """The export's chain over the live mixer, so what is heard is what is exported."""
        lanes = self.mixer.lanes
        bus = self.sound_bus
        programme = Programme(self.mixer, self.rate, [r.effect for r in self.project.cast] or ["none"] * lanes,
                              self.project.master_effect, gain_db=self.master_gain_db or DEFAULT_LIVE_GAIN_DB,
                              meters=LevelMeters(self.rate, lanes + (bus.lanes if bus is not None else 0)),
                              sounds=bus)
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

    def _new_mixer(self) -> BlockMixer:
        self._lane_of = {r.name: i for i, r in enumerate(self.project.cast)}
        return BlockMixer([], max(1, len(self.project.cast)), max_block=max(BLOCK, 8192))

    def _reshape_lanes(self) -> None:
        """Roles or sound lanes were added, removed, renamed or reordered: one
        lane per role and per sound lane again."""
        self.mixer = self._new_mixer()
        self.sound_bus = self._new_sound_bus()
        self.programme = self._new_programme()
        self.player.source = self.programme

    def _apply_lanes(self) -> None:
        audible = self.project.audible_roles()
        for role in self.project.cast:
            lane = self._lane_of.get(role.name)
            if lane is not None and lane < self.mixer.lanes:
                self.mixer.set_lane(lane, role.gain_db, role.pan, role.name in audible)
                if self.programme.lane_effects[lane] != role.effect:
                    self.programme.set_lane_effect(lane, role.effect)
        if self.sound_bus is not None:
            apply_sound_lanes(self.project, self.sound_bus)
            # Here, not in the mixer thread's blocks: a rebuild after each arriving clip
            # takes milliseconds that a real-time block cannot spare.
            self.sound_bus.sync(self.mixer)
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
                     self.project.master_effect, id(self.sound_set), tuple(self.project.sound_lanes),
                     tuple(self.project.sounds))
        if signature == self._loudness_signature:
            return
        self._loudness_signature = signature
        clips = {lid: r.clip for lid, r in self._lines.items() if r.clip is not None}
        keys = {lid: r.clip_key for lid, r in self._lines.items() if r.recording is None and r.clip_key}
        project = self.project
        # The export's memo of solved gains (beside the clip cache): a project exported before opens
        # without a pass over its programme, and an export after listening finds the gain solved here.
        memo = GainMemo(self.synth.cache.directory)
        future = self._loudness.submit(solve_live_gain, project, clips, self.rate, lambda: self._closed,
                                       sounds=self.sound_set, memo=memo, keys=keys)

        def solved(f: Future[float]) -> None:
            self._post(lambda: self._gain_solved(signature, f))

        future.add_done_callback(solved)

    def _gain_solved(self, signature: object, future: Future[float]) -> None:
        if future.cancelled() or future.exception() is not None or signature != self._loudness_signature:
            return
        self.master_gain_db = future.result()
        self.programme.set_master_gain(self.master_gain_db)
        self._relayout()  # the lines levelled for this gain

    def _audition(self, role_name: str, text: str, voice: VoiceParams | None = None) -> None:
        try:
            role = self.project.role(role_name)
            plan = self.synth.plan(text, voice or role.voice, self.project.lexicon_for(role_name))
        except (KeyError, TextError, VoiceError) as exc:
            self.last_error = str(exc)
            return
        self._audition_plan(plan, role_name, role.priority)

    def _audition_take(self, line_id: str, seed: int) -> None:
        """One take of a line, made at audition priority if it is not cached, then heard."""
        try:
            line = self.project.line(line_id)
            plan = plan_line(self.synth, self.project, line, seed)
            weight = self.project.role(line.role).priority
        except (KeyError, TextError, VoiceError) as exc:
            self.last_error = str(exc)
            return
        self._audition_plan(plan, line.role, weight)

    def _audition_plan(self, plan: ClipPlan, role_name: str, weight: float) -> None:
        request = LineRequest(plan=plan, role=role_name, origin=Origin.AUDITION, weight=weight)
        # The newest audition of a role supersedes the one before (a producer moving a blend's
        # weights asks again and again; a Kokoro line takes seconds): an older one not started
        # yet is cancelled, and one already being made is not played when it arrives.
        previous = self._auditions.get(role_name)
        if previous is not None and previous.key != request.key:
            self.scheduler.cancel(lambda r: r is previous)
        self._auditions[role_name] = request
        future = self.scheduler.submit(request, timeout=0.0)
        future.add_done_callback(lambda f: self._post(lambda: self._play_audition(role_name, f, request)))

    def _play_audition(self, role_name: str, future: Future[np.ndarray], request: LineRequest) -> None:
        if self._auditions.get(role_name) is not request:
            return  # a newer audition of this role was asked for meanwhile
        del self._auditions[role_name]
        if future.cancelled() or future.exception() is not None:
            return
        gain = 10 ** (self.programme.gain_db / 20)
        self.player.start()
        self.player.audition(future.result(), gain, 10 ** (LIMITER_CEILING_DB / 20))

    def _play_recording(self, audio: np.ndarray, rate: int) -> None:
        """A recording levelled like a clip, at the project rate, heard like an audition."""
        clip = shaping.level_loudness(np.asarray(audio, dtype=np.float32), rate)
        clip = np.ascontiguousarray(shaping.resample(clip, rate, self.rate), dtype=np.float32)
        self.player.start()
        self.player.audition(clip, 10 ** (self.programme.gain_db / 20), 10 ** (LIMITER_CEILING_DB / 20))


def solve_live_gain(project: Project, clips: dict[str, np.ndarray], rate: int,
                    cancelled: Callable[[], bool] = lambda: False,
                    target_lufs: float = RenderOptions().target_lufs, sounds: SoundSet | None = None,
                    memo: GainMemo | None = None, keys: dict[str, str] | None = None) -> float:
    """The master gain export would choose for these clips (same programme,
    analysis and limiter simulation), on a private mixer. Raises Cancelled
    between blocks once ``cancelled()`` says so (the session is closing).
    With ``memo`` (and ``keys``, each synthesized line's clip key) a gain the
    export remembered for the same programme is used instead of a pass over
    it, and a gain solved here is remembered for the export."""
    programme, placements, total = programme_for(project, clips, sounds=sounds)
    key = None
    if memo is not None:
        identities = dict(keys or {})
        for lid, clip in clips.items():  # recorded takes: the export's identity of the take's audio
            identities.setdefault(lid, "take:" + hashlib.sha256(clip.tobytes()).hexdigest()[:32])
        key = programme_key(project, placements, identities, programme.lane_effects, programme.master_effect,
                            total, target_lufs, LIMITER_CEILING_DB, sounds)
        solved = memo.load(key)
        if solved is not None:
            return solved.gain_db

    def check() -> None:
        if cancelled():
            raise Cancelled("the session closed")

    # As the render does (engine/export/render.py): the lines levelled again
    # while the measured gain is above the one they were levelled for.
    staging = expected_gain_db(project, target_lufs)
    for _ in range(1 + RESTAGES):
        programme, placements, total = programme_for(project, clips, sounds=sounds, staging_db=staging)
        analysis = programme.analyse(total, check=check)
        gain_db, predicted = analysis.solve_gain(target_lufs, LIMITER_CEILING_DB)
        if gain_db <= staging + RESTAGE_DB:
            break
        staging = gain_db + (gain_db - staging) * RESTAGE_LEAD
    if memo is not None and key is not None:
        memo.save(key, SolvedGain(analysis.loudness(), gain_db, predicted, staging))
    return gain_db
