"""The playback pass: what the playhead needs, and what it keeps fixed.

Lays the timeline out for the mixer, keeps the prefetch window ahead of the
playhead, pre-renders the rest, and handles play, pause, stop, seek, loop
wraps and late lines. A pass (reset on play, seek and loop wrap) keeps what
it has passed, so nothing already heard moves.

The programme ends where its last line or sound clip ends, plus the tail (the
export's length, ``programme_frames``): playing stops there by itself, with the
playhead at the end, as a DAW stops at the end of its project; Play from there
starts again from the top. A loop plays on past it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from engine.audio.leveller import LineEnvelope
from engine.audio.live import PendingLines
from engine.audio.mixer import PlacedClip
from engine.audio.staging import Stager
from engine.mixdown.dialogue import DialogueChain
from engine.mixdown.live_gain import nominal_gain_db
from engine.mixdown.mixplan import programme_frames
from engine.mixdown.overlaps import OverlapWalls
from engine.mixdown.take_alone import take_alone
from engine.project.model import Project
from engine.project.timeline import Placement, layout_all
from engine.sched.cost import live_margin
from engine.sched.request import Deadline, Origin
from engine.sched.scheduler import Scheduler
from engine.session.base import PassState
from engine.session.lines import LineBook
from engine.session.mix import LiveMix
from engine.session.sound_desk import SoundDesk
from engine.session.views import ClipView
from engine.synth.cache import ClipCache
from engine.synth.live_parts import LivePart

# A line starting within this of the mixer keeps the take it has for the pass (a cached clip
# replacing a live take would change what is heard, or move what follows).
HELD_AHEAD_S = 0.5
# How long one relayout may spend staging lines (rooms, perspectives) before it leaves
# the rest to the next: a Stop or Play queued behind it waits no longer than this.
STAGING_SLICE_S = 0.15


class PlaybackPass:
    """The timeline as the mixer plays it, and the pass the playhead is on."""

    def __init__(self, project: Callable[[], Project], rate: int, book: LineBook, mix: LiveMix, sounds: SoundDesk,
                 scheduler: Scheduler, cache: ClipCache, *, prerender: bool, prerender_on_open: bool,
                 lookahead_s: float, post: Callable[[Callable[[], None]], None],
                 report_error: Callable[[str], None]) -> None:
        self._project, self.rate, self.book, self.mix, self.sounds = project, rate, book, mix, sounds
        self.scheduler, self._cache = scheduler, cache
        self.prerender, self.lookahead_s = prerender, lookahead_s
        self._post, self._report_error = post, report_error
        self.pass_state = PassState()
        self.placements: list[Placement] = []
        self._placement_of: dict[str, Placement] = {}
        # The dialogue leveller's curve of each placed clip, by (clip id, level offset), with the clip
        # (engine/mixdown/dialogue.py DialogueChain.offset_db).
        self._envelopes: dict[tuple[int, float, float], tuple[np.ndarray, LineEnvelope]] = {}
        self.clip_views: list[ClipView] = []
        self._requested_until = -1.0  # timeline seconds the prefetch window has covered
        # Pre-render fills idle time from the moment the project opens (the
        # studio shows lines becoming ready); without prerender_on_open it
        # waits for the first play (a cold-start measurement wants idle workers).
        self._prerendering = prerender and prerender_on_open
        self._play_origin = 0.0  # where the last play() started (stop returns here)
        self.late_log: list[tuple[str, float]] = []  # (line id, timeline seconds where it was reached)
        self.end_frame = 0  # the programme's end with its tail, as laid out now (the transport's length)
        self._trims: dict[str, float] = {}  # each staged role's trim in the mix as placed now
        self.pending = PendingLines.empty()
        # Rooms are made off the control thread (engine/audio/staging.py); a line heard before
        # its room is ready is staged again (a relayout, on the control thread) when it is.
        # Staged lines are kept in the clip cache's folder under their clip's key, as the
        # export keeps them: a project exported or heard before stages nothing on opening.
        self.stager = Stager(room_ready=self.request_relayout, store=cache.disk)
        self._walls = OverlapWalls()  # the overlaps' walls, made again only where their clips change
        self._relayout_lock = threading.Lock()
        self._relayout_posted = False

    def request_relayout(self) -> None:
        """Lay the timeline out again on the control thread, from any thread: asks made
        before it runs make one relayout (rooms made in the background answer together,
        and a Stop queued behind a relayout per ask waited seconds on the sample)."""
        with self._relayout_lock:
            if self._relayout_posted:
                return
            self._relayout_posted = True
        self._post(self._posted_relayout)

    def _posted_relayout(self) -> None:
        with self._relayout_lock:
            self._relayout_posted = False
        self.relayout()

    @property
    def prerendering(self) -> bool:
        return self._prerendering

    def hold(self, line_id: str, clip: np.ndarray, clip_key: str | None) -> None:
        """Finish the line being heard with its old take this pass; its pin goes with the pass."""
        self.pass_state.held[line_id] = clip
        if clip_key is not None:
            self.pass_state.held_keys.append(clip_key)

    def arrived(self, line_id: str, wait_s: float = 0.0) -> None:
        """A clip (or the first part of its live take) arrived for a line the playhead
        reached without one: a late line starts where the mixer is (``wait_s`` later: a
        live take's margin, ``part_arrived``), or (past its span) is heard on the next
        pass. A live take the playhead overtook goes on where the mixer is."""
        player = self.mix.player
        snap = player.snapshot()
        # One block past where the mixer is, so no block already mixed (while this ran)
        # holds the first frames.
        now_s = snap.mixed_s + player.block / self.rate
        heard = self.pass_state.late_parts.pop(line_id, None)
        if heard is not None:
            self.pass_state.pinned[line_id] = now_s - heard  # what was heard stays behind the mixer
            return
        if line_id not in self.pass_state.waiting:
            return
        self.pass_state.waiting.discard(line_id)
        placement = self.placement(line_id)
        if snap.playing and placement is not None and snap.mixed_s < placement.end:
            self.pass_state.pinned[line_id] = now_s + wait_s
        elif placement is not None:
            self.pass_state.frozen[line_id] = placement.duration  # heard on the next pass

    def part_arrived(self, line_id: str, part: LivePart) -> None:
        """A part of a line's live take: a line the listener waits for starts once the
        rest will be voiced before the playhead reaches it (the cost model's margin:
        engine/sched/cost.py ``live_margin``); a take the playhead overtook goes on."""
        record = self.book.records.get(line_id)
        wait = 0.0
        if record is not None and record.plan is not None and line_id in self.pass_state.waiting:
            rate = self.scheduler.cost.seconds_per_audio_second(record.plan.voice.backend, wide=True)
            wait = live_margin(part.seconds, part.remaining_s, rate)
        self.arrived(line_id, wait)

    def started(self, line_id: str) -> bool:
        """The playhead of this pass is at or past the line's start (or about to be):
        a take that changes now would change what is heard, or move what follows it."""
        placement = self.placement(line_id)
        snap = self.mix.player.snapshot()
        return placement is not None and snap.playing and placement.start < snap.mixed_s + HELD_AHEAD_S

    def request_window(self, position_s: float) -> None:
        """Prefetch the lines in [position, position + look-ahead)."""
        end = position_s + self.lookahead_s
        if end <= self._requested_until:
            return
        for placement in self.placements:
            if placement.end <= position_s or placement.start >= end:
                continue
            if placement.start < self._requested_until:
                continue
            record = self.book.records.get(placement.line_id)
            if record is not None and record.clip is None and placement.line_id not in self.pass_state.frozen:
                self.book.request(placement.line_id, record, Origin.PLAYBACK,
                              Deadline.on_timeline(placement.start))
        self._requested_until = end

    def prerender_rest(self, position_s: float) -> None:
        if not self.prerender:
            return
        for placement in self.placements:
            record = self.book.records.get(placement.line_id)
            if record is None or record.clip is not None:
                continue
            # Behind the playhead: no deadline (a timeline deadline in the past would be most urgent).
            deadline = (Deadline.on_timeline(placement.start) if placement.start >= position_s
                        else Deadline.none())
            self.book.request(placement.line_id, record, Origin.PRERENDER, deadline)

    def placement(self, line_id: str) -> Placement | None:
        return self._placement_of.get(line_id)

    def under_playhead(self, line_id: str, position_s: float) -> bool:
        placement = self.placement(line_id)
        return placement is not None and placement.start <= position_s < placement.end

    def relayout(self) -> None:
        durations: dict[str, float] = {}
        clips: dict[str, np.ndarray] = {}
        growing: list[str] = []  # live takes still voiced: laid out at their predicted length
        for line_id, record in self.book.records.items():
            clip = self.pass_state.held.get(line_id, record.clip)
            if clip is not None and line_id not in self.pass_state.frozen:
                durations[line_id] = clip.shape[0] / self.rate
                clips[line_id] = clip
                if record.growing and clip is record.clip:
                    durations[line_id] = max(durations[line_id], record.expected_s)
                    growing.append(line_id)
        durations.update(self.pass_state.frozen)
        project = self._project()
        self.placements, sounds = layout_all(project, durations, self.sounds.sound_set.durations(self.rate),
                                              self.pass_state.pinned)
        self.sounds.place(sounds)
        self._placement_of = {p.line_id: p for p in self.placements}
        placed: list[PlacedClip] = []
        pending: list[tuple[int, str]] = []
        # The export's dialogue chain (engine/mixdown/dialogue.py): levelled for the gain the live
        # master's solve levelled for, then staged, here on the control thread, once per clip,
        # staging and curve.
        staging = self.mix.staging_db if self.mix.staging_db is not None else nominal_gain_db(project)
        chain = DialogueChain(project, staging, self.stager, clip_keys=self._clip_keys(clips), walls=self._walls)
        envelopes: dict[tuple[int, float, float], tuple[np.ndarray, LineEnvelope]] = {}
        lines: list[tuple[int, int, str, str, np.ndarray, LineEnvelope | None]] = []
        voiceable = {line_id for line_id, record in self.book.records.items() if record.voiceable}
        for p in self.placements:
            lane = self.mix.lane_of.get(p.role)
            if lane is None:
                continue
            start = int(round(p.start * self.rate))
            clip = clips.get(p.line_id)
            if clip is not None:
                key = (id(clip), chain.offset_db(p.line_id, p.role), chain.trim_db(p.role))
                known = self._envelopes.get(key)
                envelope = (known[1] if known is not None and known[0] is clip
                            else chain.envelope(p.line_id, p.role, clip))
                envelopes[key] = (clip, envelope)
                lines.append((lane, start, p.line_id, p.role, clip, envelope))
            elif (p.line_id not in self.pass_state.frozen and p.line_id not in self.pass_state.waiting
                  and p.line_id in voiceable):
                pending.append((start, p.line_id))  # late if the playhead gets there first
        for line_id in growing:  # late once the playhead overtakes what is ready
            placement = self._placement_of.get(line_id)
            if placement is not None and line_id not in self.pass_state.late_parts:
                pending.append((int(round(placement.start * self.rate)) + clips[line_id].shape[0], line_id))
        pending.sort()
        # Staged nearest the playhead first, for a slice of the control thread at a time: the
        # rest are pending (the mixer treats them as lines not voiced yet) and the next
        # relayout, after whatever the producer asked meanwhile, stages more.
        here = int(round(self.mix.player.snapshot().mixed_s * self.rate))
        lines.sort(key=lambda line: abs(line[1] - here))
        placed += chain.place(lines, until=time.monotonic() + STAGING_SLICE_S)
        self._trims = dict(chain.trims)
        if chain.deferred:
            starts = {line[2]: line[1] for line in lines}
            pending = sorted([*pending, *((starts[line_id], line_id) for line_id in chain.deferred)])
            self.request_relayout()
        self._envelopes = envelopes  # only the clips placed now (a new take's old clip goes)
        self.stager.forget_except(set(clips))
        self.mix.mixer.set_clips(placed)
        self.pending = PendingLines([s for s, _ in pending], [i for _, i in pending])
        self.mix.player.set_pending(self.pending)
        records = self.book.records
        self.clip_views = [ClipView(p.line_id, p.role, p.start, p.end, records[p.line_id].clip is None
                                    or records[p.line_id].growing if p.line_id in records else True)
                           for p in self.placements]
        if self.mix.player.snapshot().playing:
            for p in self.placements:
                asked = records.get(p.line_id)
                if asked is not None and asked.request is not None:
                    self.book.move(p.line_id, asked, p.start)
        self.mix.apply_lanes()  # the lane effects' tails are the programme's
        end = max(max((p.end for p in self.placements), default=0.0), max((v.end for v in self.sounds.views),
                                                                            default=0.0))
        self.end_frame = programme_frames(int(round(end * self.rate)), self.mix.programme)
        self.mix.set_end(self.end_frame)
        self.book.publish_status()

    def take_alone(self, line_id: str, clip: np.ndarray) -> np.ndarray:
        """A take of a line as this mix plays the line, alone (engine/mixdown/take_alone.py):
        levelled for the gain playback levels for, staged, trimmed as its role's lines are
        now, through its lane and the master at the gain playback plays at. A room not made
        yet is made in the background and the take heard without it meanwhile, as playback
        does (its own stager: the playback's keeps the chosen take's staging)."""
        project = self._project()
        staging = self.mix.staging_db if self.mix.staging_db is not None else nominal_gain_db(project)
        stager = Stager(self.stager.responses, room_ready=lambda: None)
        return take_alone(project, line_id, clip, staging_db=staging, gain_db=self.mix.programme.gain_db,
                          stager=stager, trims=self._trims)

    def _clip_keys(self, clips: dict[str, np.ndarray]) -> dict[str, str]:
        """The content keys of the synthesized clips placed now (a recorded take, or a
        line's old take held for this pass, has none here: staged in memory only)."""
        records = self.book.records
        return {line_id: record.clip_key for line_id, clip in clips.items()
                if (record := records.get(line_id)) is not None and record.clip is clip
                and record.clip_key and record.recording is None}

    def _new_pass(self, position_s: float) -> None:
        """Classify lines at a new start position: passed, under the playhead, ahead."""
        self.reset_pass()
        self.relayout()
        for p in self.placements:
            record = self.book.records.get(p.line_id)
            if record is None or record.clip is not None:
                continue
            if p.end <= position_s:
                self.pass_state.frozen[p.line_id] = p.duration
            elif p.start < position_s:
                self.pass_state.waiting.add(p.line_id)  # starts from its beginning once ready
        self.relayout()
        self._requested_until = -1.0
        with self.scheduler.one_change():  # no worker starts on the move before the played lines are asked
            self.scheduler.set_playhead(position_s, playing=True)
            self.request_window(position_s)
            self.prerender_rest(position_s)

    def play(self, from_s: float | None, until_s: float | None = None) -> None:
        self._prerendering = self.prerender
        snap = self.mix.player.snapshot()
        position = snap.position_s if from_s is None else max(0.0, from_s)
        if from_s is None and snap.loop is None and int(round(position * self.rate)) >= self.end_frame > 0:
            position = 0.0  # at the end (playing stopped there): Play plays it again from the top
        self._play_origin = position
        self._new_pass(position)
        self.mix.player.start()
        until = None if until_s is None else max(int(round(position * self.rate)) + 1, int(round(until_s * self.rate)))
        self.mix.player.play(int(round(position * self.rate)), until)

    def play_lines(self, first: str, last: str) -> None:
        start = self.placement(first)
        if start is None:
            self._report_error(f"line {first} is not on the timeline")
            return
        self._prerendering = self.prerender
        self._play_origin = start.start
        self._new_pass(start.start)
        begin, end = self.placement(first), self.placement(last)
        assert begin is not None and end is not None
        self.mix.player.start()
        frame = int(round(begin.start * self.rate))
        self.mix.player.play(frame, max(frame + 1, int(round(end.end * self.rate))), at_once=True)

    def prefetch(self, line_ids: list[str]) -> None:
        """Most urgent of all: playback origin, wall deadlines now, in order."""
        now = time.monotonic()
        for i, line_id in enumerate(line_ids):
            record = self.book.records.get(line_id)
            if record is not None:
                self.book.request(line_id, record, Origin.PLAYBACK, Deadline.at(now + i * 1e-3))

    def pause(self) -> None:
        position = self.mix.player.snapshot().position_s  # near enough for the scheduler
        self.mix.player.pause()  # the mixer stops where the listener is when it takes the command
        self.scheduler.set_playhead(position, playing=False, cancel_behind=False)
        self._end_pass()

    def stop(self) -> None:
        self.mix.player.pause()
        self.mix.player.seek(int(round(self._play_origin * self.rate)))
        self.scheduler.set_playhead(self._play_origin, playing=False, cancel_behind=False)
        self._end_pass()

    def _end_pass(self) -> None:
        """Out of playback the timeline shows the layout export will use:
        no late-line pins, no lengths frozen for the pass."""
        self.reset_pass()
        self.relayout()

    def reset_pass(self) -> None:
        for key in self.pass_state.held_keys:
            self._cache.unpin(key)
        self.pass_state = PassState()

    def seek(self, position_s: float) -> None:
        position_s = max(0.0, position_s)
        playing = self.mix.player.snapshot().playing
        if playing:
            self._new_pass(position_s)
        self.mix.player.seek(int(round(position_s * self.rate)))
        if not playing:
            self.scheduler.set_playhead(position_s, playing=False, cancel_behind=False)

    def set_loop(self, region: tuple[float, float] | None) -> None:
        frames = None if region is None else (int(round(region[0] * self.rate)), int(round(region[1] * self.rate)))
        self.mix.player.set_loop(frames)

    def on_wrap(self) -> None:  # mixer thread: hand over to the control thread
        self._post(self._wrapped)

    def on_end(self) -> None:  # mixer thread: playing stopped at the programme's end
        self._post(self._ended)

    def _ended(self) -> None:
        snap = self.mix.player.snapshot()
        if snap.playing:
            return  # played again meanwhile: that pass goes on
        self.scheduler.set_playhead(snap.position_s, playing=False, cancel_behind=False)
        self._end_pass()

    def _wrapped(self) -> None:
        loop = self.mix.player.snapshot().loop
        if loop is not None:
            self._new_pass(loop[0])

    def on_late(self, line_id: str, start_frame: int) -> None:  # mixer thread
        self._post(lambda: self._late(line_id))

    def _late(self, line_id: str) -> None:
        record = self.book.records.get(line_id)
        if record is not None and record.growing and record.clip is not None:
            # The playhead overtook what its live take had ready: a late line too; the rest
            # goes on where the playhead is when it comes (arrived).
            placement = self.placement(line_id)
            self.late_log.append((line_id, placement.start if placement is not None else -1.0))
            self.pass_state.late_parts[line_id] = record.clip.shape[0] / self.rate
            self.relayout()
            return
        if record is None or record.clip is not None or not record.voiceable:
            return  # voiced meanwhile, or failed meanwhile: silent, not late
        placement = self.placement(line_id)
        self.late_log.append((line_id, placement.start if placement is not None else -1.0))
        self.pass_state.waiting.add(line_id)
        self.relayout()  # no longer pending for the mixer
        # Most urgent now: its timeline deadline is in the past.
        self.book.request(line_id, record, Origin.PLAYBACK, Deadline.on_timeline(self.mix.player.snapshot().mixed_s))
