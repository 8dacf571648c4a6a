"""The line book: the control thread's record of every line.

Applying a project snapshot (what changed since the last one), planning
lines, asking the scheduler for clips and taking them as they arrive or
from the cache, and the line states the studio shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol

import numpy as np

from engine.audio.live import LivePlayer
from engine.project.model import Line, Project, Role
from engine.project.takes import read_take_of
from engine.project.timeline import Placement
from engine.sched.request import Deadline, LineRequest, Origin, QueueFull
from engine.sched.scheduler import Scheduler
from engine.session.base import LineRecord
from engine.session.views import LineState, LineStatus
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.errors import TextError, VoiceError, VoiceNotInstalled
from engine.synth.live_parts import LivePart
from engine.synth.pipeline import plan_line
from engine.synth.recording import RecordingError, load_recording
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

TYPING_QUIET_S = 0.35  # a line being typed is re-planned once it has been quiet this long
DEADLINE_MOVE_S = 0.5  # a playback request asks again once its line's start moved this much


def _sound(line: Line) -> tuple[object, ...]:
    """The line's fields that change its clip (the role's voice aside; the Delivery note is performed;
    a read behind the chosen take)."""
    return line.text, line.role, line.take, line.locked, line.note, read_take_of(line)


class PassView(Protocol):
    """What the line book needs of the playback pass (engine/session/playback.py)."""

    @property
    def prerendering(self) -> bool: ...

    def placement(self, line_id: str) -> Placement | None: ...

    def under_playhead(self, line_id: str, position_s: float) -> bool: ...

    def hold(self, line_id: str, clip: np.ndarray, clip_key: str | None) -> None: ...

    def arrived(self, line_id: str) -> None: ...

    def part_arrived(self, line_id: str, part: LivePart) -> None: ...

    def started(self, line_id: str) -> bool: ...

    def relayout(self) -> None: ...


class LineBook:
    """Every line's record: its plan, its clip (pinned in the cache), its request."""

    playback: PassView  # set by the Session once the playback pass exists (it reads this book too)

    def __init__(self, project: Callable[[], Project], rate: int, synth: ClipSynthesizer, scheduler: Scheduler,
                 player: Callable[[], LivePlayer], post: Callable[[Callable[[], None]], None],
                 report_error: Callable[[str], None]) -> None:
        """``player``: the live mix's (a new output replaces it); ``post``: onto the
        control thread; ``report_error``: the Session's last error."""
        self._project, self.rate, self.synth, self.scheduler = project, rate, synth, scheduler
        self._player, self._post, self._report_error = player, post, report_error
        self.records: dict[str, LineRecord] = {}
        self.status: dict[str, LineStatus] = {}
        self._quiet: dict[str, float] = {}  # line id -> when typing in it has been quiet long enough

    def recast(self, old: Project, new: Project) -> set[str]:
        """The roles whose lines must be planned again (gone, another voice or
        lexicon); a changed priority reaches the scheduler at once."""
        old_roles = {r.name: r for r in old.cast}
        recast: set[str] = set(old_roles) - {r.name for r in new.cast}  # gone: their lines fail
        for role in new.cast:
            before: Role | None = old_roles.get(role.name)
            if before is role:
                continue
            # A changed role lexicon re-plans the role's lines; only those whose key changed are voiced again.
            if before is None or before.voice != role.voice or before.lexicon != role.lexicon:
                recast.add(role.name)
            if before is None or before.priority != role.priority:
                self.scheduler.set_role_weight(role.name, role.priority)
        return recast

    def apply(self, old: Project, new: Project, recast: set[str], typing: bool) -> None:
        """Move the records from ``old`` to ``new`` (the applied snapshot now):
        drop the lines gone, re-plan those whose sound changed. Unchanged
        objects are shared between snapshots, so most of this is identity checks."""
        ids = {line.id for line in new.lines}
        for gone in set(self.records) - ids:
            record = self.records.pop(gone)
            self._drop_request(record)
            self.release(record)
            self._quiet.pop(gone, None)
        # The lexicon and the lengths of "(beat)" and "(pause)" are every line's.
        lexicon = new.lexicon != old.lexicon or (new.timing.beat, new.timing.pause, new.timing.long_pause) != (
            old.timing.beat, old.timing.pause, old.timing.long_pause)
        old_lines = {line.id: line for line in old.lines}
        added: list[str] = []
        edited: list[str] = []
        now = time.monotonic()
        for line in new.lines:
            before_line = old_lines.get(line.id)
            if line.id not in self.records:
                added.append(line.id)
            elif line.role in recast or lexicon:
                edited.append(line.id)
            elif before_line is not line and before_line is not None and before_line.recording != line.recording:
                edited.append(line.id)
            elif before_line is not line and (before_line is None or _sound(before_line) != _sound(line)):
                if typing and (before_line is None or _sound(before_line)[:2] != _sound(line)[:2]):
                    self._quiet[line.id] = now + TYPING_QUIET_S
                else:
                    edited.append(line.id)
        for line_id in edited:
            self._quiet.pop(line_id, None)
        self.replan(added)
        self.replan(edited, edited=True)

    def quiet_lines(self) -> list[str]:
        """The lines typing has left alone long enough, taken off the list."""
        now = time.monotonic()
        due = [line_id for line_id, at in self._quiet.items() if at <= now]
        for line_id in due:
            del self._quiet[line_id]
        return due

    def replan_all(self) -> None:
        self.replan([line.id for line in self._project().lines])
        self.playback.relayout()

    def replan(self, line_ids: list[str], edited: bool = False) -> None:
        """Plan lines again after a change; a line whose sound changed loses its
        clip. Edited lines are synthesized at once (the producer wants to hear
        them); others wait for playback, pre-render or export."""
        project = self._project()
        roles = {r.name: r for r in project.cast}
        known = {line.id: line for line in project.lines}
        snap = self._player().snapshot()
        for line_id in line_ids:
            line = known.get(line_id)
            if line is None:
                continue
            record = self.records.setdefault(line_id, LineRecord())
            if line.recording is not None or record.recording is not None:
                if self._use_recording(record, line.recording):
                    continue
            role = roles.get(line.role)
            plan: ClipPlan | None = None
            error: str | None = None
            no_voice = False
            if role is None:
                error = f"unknown role {line.role!r} (not in the cast)"
            elif not line.text.strip():
                pass  # nothing typed yet: no plan and no error is what _publish_status calls EMPTY
            else:
                try:
                    plan = plan_line(self.synth, project, line)
                except (TextError, VoiceError) as exc:
                    error, no_voice = str(exc), isinstance(exc, VoiceNotInstalled)
            if plan is not None and record.plan is not None and plan.key == record.plan.key and record.error is None:
                continue  # nothing that changes the sound changed
            self._drop_request(record)
            old_clip = record.clip
            if old_clip is not None and snap.playing and self.playback.under_playhead(line_id, snap.mixed_s):
                # Finish the line being heard with its old take; its pin goes with the pass.
                self.playback.hold(line_id, old_clip, record.clip_key)
                record.clip, record.clip_key = None, None
            self.release(record)
            record.plan, record.error, record.no_voice, record.failed = plan, error, no_voice, None
            if plan is not None:
                self._take_cached(line_id, record)
                if record.clip is None and (edited or self.playback.prerendering):
                    self.request(line_id, record, Origin.AUDITION if edited else Origin.PRERENDER)

    def _use_recording(self, record: LineRecord, recording: str | None) -> bool:
        """Hear the line from its recorded take (True), or go back to synthesis
        when the take was removed (False: plan it as any line)."""
        if recording is not None and recording == record.recording and record.clip is not None:
            return True
        self._drop_request(record)
        self.release(record)
        record.plan, record.failed, record.error, record.recording = None, None, None, recording
        record.no_voice = False
        if recording is None:
            return False
        try:
            record.clip = load_recording(recording, self.rate)
        except RecordingError as exc:
            record.error = str(exc)
        return True

    def load_voices(self) -> None:
        """Make ready the inference of the voices that have lines still to voice, so the
        first play does not wait for it. A voice whose every line is cached is never
        loaded for inference: a table read of a voiced production starts at once, where
        loading the cast's voices held this (the control) thread for seconds a voice."""
        voices: dict[str, VoiceInfo] = {}
        engines: dict[str, ClipPlan] = {}  # one line of each engine still to voice
        for record in self.records.values():
            if record.plan is not None and record.clip is None:
                voices.setdefault(str(record.plan.voice.model_path), record.plan.voice)
                engines.setdefault(record.plan.voice.backend, record.plan)
        for info in voices.values():
            try:
                self.synth.warm(info)
            except VoiceError as exc:
                self._report_error(str(exc))
        # What each engine costs here, measured before the first play: the play outlook
        # and a live take's margin plan with it (engine/sched/streaming.py).
        for plan in engines.values():
            try:
                self.scheduler.calibrate(plan)
            except (TextError, VoiceError) as exc:
                self._report_error(str(exc))

    def refresh_from_cache(self) -> None:
        changed = False
        for line_id, record in self.records.items():
            if record.clip is None and record.plan is not None:
                self._take_cached(line_id, record)
                changed = changed or record.clip is not None
        if changed:
            self.playback.relayout()

    def _take_cached(self, line_id: str, record: LineRecord) -> None:
        assert record.plan is not None
        clip, pinned = self.synth.cache.acquire(record.plan.key)
        if clip is not None:
            record.clip, record.clip_key = clip, record.plan.key if pinned else None

    def request(self, line_id: str, record: LineRecord, origin: Origin, deadline: Deadline | None = None) -> None:
        if record.plan is None or record.clip is not None:
            return
        if record.request is not None and not record.request.future.done():
            if origin >= record.request.origin:
                return  # already asked at least this urgently
        project = self._project()
        placement = self.playback.placement(line_id)
        role = placement.role if placement is not None else project.line(line_id).role
        weight = project.role(role).priority
        if deadline is None:
            deadline = Deadline.on_timeline(placement.start) if placement is not None else Deadline.none()
        request = LineRequest(plan=record.plan, role=role, origin=origin, deadline=deadline, weight=weight,
                              line_id=line_id)
        key = record.plan.key

        def part(p: LivePart) -> None:  # on the post stage's thread: hand over
            self._post(lambda: self._part_arrived(line_id, key, request, p))

        request.on_part = part
        try:
            future = self.scheduler.submit(request, timeout=0.0)
        except QueueFull as exc:  # 8192 lines pending: the next play, seek or edit asks again
            self._report_error(str(exc))
            return
        record.request = request

        def done(f: Future[np.ndarray]) -> None:  # on a scheduler thread: hand over
            self._post(lambda: self._arrived(line_id, key, f))

        future.add_done_callback(done)

    def move(self, line_id: str, record: LineRecord, start_s: float) -> None:
        """The line's request for playback asks again with its start as laid out now, when it
        moved (a line the listener waits for was placed later, a live take's predicted length
        changed what follows it): the scheduler counts a listener waiting once the playhead
        reaches the deadline, and the stale one made lines ahead look reached."""
        old = record.request
        if (old is None or old.future.done() or old.origin != Origin.PLAYBACK or old.deadline.kind != "timeline"
                or abs(old.deadline.value - start_s) < DEADLINE_MOVE_S):
            return
        record.request = None
        self.request(line_id, record, old.origin, Deadline.on_timeline(start_s))
        if record.request is None:  # not asked again (the queue was full): keep the old one
            record.request = old
        else:
            old.future.cancel()

    def _part_arrived(self, line_id: str, key: str, request: LineRequest, part: LivePart) -> None:
        """A part of the line's live take (a listener waits for the line: engine/sched/streaming.py):
        heard from now on as far as it goes, laid out at its predicted whole length."""
        record = self.records.get(line_id)
        if record is None or record.plan is None or record.plan.key != key or record.request is not request:
            return  # re-planned meanwhile, or a request asked again (its own parts come)
        if record.clip is not None and not record.live:
            return  # the cached clip is here already
        record.clip, record.clip_key = part.audio, None
        record.live, record.growing, record.expected_s = True, not part.final, part.expected_s
        self.playback.part_arrived(line_id, part)
        self.playback.relayout()

    def _drop_request(self, record: LineRecord) -> None:
        if record.request is not None:
            record.request.future.cancel()
            record.request = None

    def release(self, record: LineRecord) -> None:
        if record.clip_key is not None:
            self.synth.cache.unpin(record.clip_key)
        record.clip, record.clip_key = None, None
        record.live, record.growing = False, False

    def _arrived(self, line_id: str, key: str, future: Future[np.ndarray]) -> None:
        record = self.records.get(line_id)
        if record is None or record.plan is None or record.plan.key != key or future.cancelled():
            return
        if record.request is not None and record.request.future is future:
            record.request = None
        exc = future.exception()
        if exc is not None:
            self.release(record)  # a live take's parts too
            record.failed = str(exc)
            self.playback.relayout()  # no longer pending for the mixer: silent where it is, never late
            return
        record.failed = None  # a retry (the next play asks again) that worked
        if record.live:
            # The cached clip replaces the live take, which finishes the pass it is heard in.
            taken = record.clip
            self.release(record)
            if taken is not None and self.playback.started(line_id):
                self.playback.hold(line_id, taken, None)
        if record.clip is None:
            self._take_cached(line_id, record)
            if record.clip is None:  # not kept in memory or on disk: use the result itself
                record.clip, record.clip_key = future.result(), None
        self.playback.arrived(line_id)
        self.playback.relayout()

    def publish_status(self) -> None:
        states = self.scheduler.job_states()
        status: dict[str, LineStatus] = {}
        for line_id, record in self.records.items():
            if record.error is not None:
                status[line_id] = LineStatus(LineState.NO_VOICE if record.no_voice else LineState.FAILED, record.error)
            elif record.failed is not None:
                status[line_id] = LineStatus(LineState.FAILED, record.failed)
            elif record.growing:  # its live take is heard while the rest is voiced
                status[line_id] = LineStatus(LineState.SYNTHESIZING)
            elif record.clip is not None:  # voiced, or a recorded take (which has no plan)
                status[line_id] = LineStatus(LineState.READY)
            elif record.plan is None:  # planned lines have a plan or an error: this one is blank
                status[line_id] = LineStatus(LineState.EMPTY)
            elif record.plan is not None and record.plan.key in states:
                running = states[record.plan.key]
                status[line_id] = LineStatus(LineState.SYNTHESIZING if running else LineState.QUEUED)
            elif record.request is not None and not record.request.future.cancelled():
                # Made, on its way here: the scheduler lets go of a job before its clip's
                # hand-over reaches this thread (_arrived). Shown as missing in between, a
                # line flickered missing in the script, and a read in that gap (a tick
                # published it) said a line the playhead asked for was never asked.
                status[line_id] = LineStatus(LineState.SYNTHESIZING)
            else:
                status[line_id] = LineStatus(LineState.MISSING)
        self.status = status
