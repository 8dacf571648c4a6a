"""The line book: the control thread's record of every line.

Applying a project snapshot (what changed since the last one), planning
lines, asking the scheduler for clips and taking them as they arrive or
from the cache, and the line states the studio shows.
"""

from __future__ import annotations

import time
from concurrent.futures import Future

import numpy as np

from engine.project.model import Line, Project
from engine.sched.request import Deadline, LineRequest, Origin, QueueFull
from engine.session.base import LineRecord, SessionCore
from engine.session.views import LineState, LineStatus
from engine.synth.errors import TextError, VoiceError
from engine.synth.pipeline import plan_line
from engine.synth.recording import RecordingError, load_recording
from engine.synth.synthesizer import ClipPlan

TYPING_QUIET_S = 0.35  # a line being typed is re-planned once it has been quiet this long


def _sound(line: Line) -> tuple[object, ...]:
    """The line's fields that change its clip (the role's voice aside; the Delivery note is performed)."""
    return line.text, line.role, line.take, line.locked, line.note


class LineBook(SessionCore):
    def _apply(self, new: Project, typing: bool) -> None:
        """Move from the applied snapshot to ``new``: re-plan the lines whose
        sound changed, rebuild the lanes if the cast changed shape, and lay
        the timeline out again. Unchanged objects are shared between
        snapshots, so most of this is identity checks."""
        old, self.project = self.project, new
        if new is old:
            return
        old_roles = {r.name: r for r in old.cast}
        recast: set[str] = set(old_roles) - {r.name for r in new.cast}  # gone: their lines fail
        for role in new.cast:
            before = old_roles.get(role.name)
            if before is role:
                continue
            # A changed role lexicon re-plans the role's lines; only those whose key changed are voiced again.
            if before is None or before.voice != role.voice or before.lexicon != role.lexicon:
                recast.add(role.name)
            if before is None or before.priority != role.priority:
                self.scheduler.set_role_weight(role.name, role.priority)
        if [r.name for r in old.cast] != [r.name for r in new.cast]:
            self._reshape_lanes()
        ids = {line.id for line in new.lines}
        for gone in set(self._lines) - ids:
            record = self._lines.pop(gone)
            self._drop_request(record)
            self._release(record)
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
            if line.id not in self._lines:
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
        self._replan(added)
        self._replan(edited, edited=True)
        if new.master_effect != old.master_effect:
            self._master_changed()
        if new.sounds is not old.sounds or new.sound_lanes is not old.sound_lanes:
            self._sounds_changed(old)
        self._relayout()

    def _replan_all(self) -> None:
        self._replan([line.id for line in self.project.lines])
        self._relayout()

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
            record = self._lines.setdefault(line_id, LineRecord())
            if line.recording is not None or record.recording is not None:
                if self._use_recording(record, line.recording):
                    continue
            role = roles.get(line.role)
            plan: ClipPlan | None = None
            error: str | None = None
            if role is None:
                error = f"unknown role {line.role!r} (not in the cast)"
            elif not line.text.strip():
                pass  # nothing typed yet: no plan and no error is what _publish_status calls EMPTY
            else:
                try:
                    plan = plan_line(self.synth, self.project, line)
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

    def _use_recording(self, record: LineRecord, recording: str | None) -> bool:
        """Hear the line from its recorded take (True), or go back to synthesis
        when the take was removed (False: plan it as any line)."""
        if recording is not None and recording == record.recording and record.clip is not None:
            return True
        self._drop_request(record)
        self._release(record)
        record.plan, record.failed, record.error, record.recording = None, None, None, recording
        if recording is None:
            return False
        try:
            record.clip = load_recording(recording, self.rate)
        except RecordingError as exc:
            record.error = str(exc)
        return True

    def _load_voices(self) -> None:
        """Load the cast's voices now, so the first play does not wait for it."""
        seen: set[str] = set()
        for record in self._lines.values():
            if record.plan is not None and str(record.plan.voice.model_path) not in seen:
                seen.add(str(record.plan.voice.model_path))
                try:
                    self.synth.warm(record.plan.voice)
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

    def _take_cached(self, line_id: str, record: LineRecord) -> None:
        assert record.plan is not None
        clip, pinned = self.synth.cache.acquire(record.plan.key)
        if clip is not None:
            record.clip, record.clip_key = clip, record.plan.key if pinned else None

    def _request(self, line_id: str, record: LineRecord, origin: Origin, deadline: Deadline | None = None) -> None:
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

    def _drop_request(self, record: LineRecord) -> None:
        if record.request is not None:
            record.request.future.cancel()
            record.request = None

    def _release(self, record: LineRecord) -> None:
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

    def _publish_status(self) -> None:
        states = self.scheduler.job_states()
        status: dict[str, LineStatus] = {}
        for line_id, record in self._lines.items():
            if record.error is not None:
                status[line_id] = LineStatus(LineState.FAILED, record.error)
            elif record.failed is not None:
                status[line_id] = LineStatus(LineState.FAILED, record.failed)
            elif record.clip is not None:  # voiced, or a recorded take (which has no plan)
                status[line_id] = LineStatus(LineState.READY)
            elif record.plan is None:  # planned lines have a plan or an error: this one is blank
                status[line_id] = LineStatus(LineState.EMPTY)
            elif record.plan is not None and record.plan.key in states:
                running = states[record.plan.key]
                status[line_id] = LineStatus(LineState.SYNTHESIZING if running else LineState.QUEUED)
            else:
                status[line_id] = LineStatus(LineState.MISSING)
        self._status = status
