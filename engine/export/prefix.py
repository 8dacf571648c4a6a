"""The analysis pass of a cold render, run while the lines are still voiced.

The master gain needs one pass over the whole programme through the lane
effects and the compressor (engine/audio/programme.py, ``analyse``); it
used to follow the synthesis, a second of the cold render's tail for the
sample. But a line's place on the timeline depends only on the lines
before it, and lines come back from the scheduler in about timeline order
(engine/export/lines.py gives them timeline deadlines), so as soon as the
first k lines of the script have clips, the programme up to where line k+1
starts is settled: this module analyses that prefix on the caller's thread
while the scheduler's threads voice the rest (on the development machine
the synthesis leaves part of a core idle).

After the synthesis, :meth:`PrefixAnalysis.finish` checks what the prefix
assumed against the final layout (every line and sound placement that
reaches into the analysed frames, and the sound lanes' ducking curves
there); if all of it holds it carries on from where it stopped with the
final clips, in the same programme (the effects keep their state), which
gives the same blocks, and so the same numbers, as one pass from the start.
If anything differs (a sound cue that moved, a clip evicted meanwhile), it
returns None and the render makes the whole pass as before.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from concurrent.futures import Future

import numpy as np

from engine.audio.normalize import ProgrammeAnalysis
from engine.audio.programme import Programme
from engine.audio.staging import Stager
from engine.export.pages import PassedClips
from engine.mixdown.mixplan import build_mixer, build_programme, placed_clips
from engine.mixdown.sound_placement import SoundSet, place_sounds
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement, layout_all
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

_EVERY_S = 0.5
_MARGIN_S = 1.0  # kept back from the settled edge beyond the ducking's look-ahead and attack


class PrefixAnalysis:
    """Fed through engine/export/lines.py's ``Voiced`` protocol; one render."""

    def __init__(self, project: Project, synth: ClipSynthesizer, block: int,
                 sounds: Future[tuple[SoundSet, list[str]]], check: Callable[[], None]) -> None:
        self.project, self.synth, self.block = project, synth, block
        self._sounds, self._check = sounds, check
        self.rate = project.sample_rate
        # Recorded takes are loaded, not voiced: such a project takes the whole pass.
        self._off = any(line.recording is not None for line in project.lines)
        # Each staged line is staged once, as it joins the prefix (kept in the clip cache's
        # folder); the render mixes with this stager too, so it stages nothing again.
        self.stager = Stager(store=synth.cache.disk)
        self._plans: dict[str, ClipPlan] = {}
        self._pending: set[str] = set()
        self._next = 0  # the first line of the script not yet in the prefix
        self._clips: dict[str, np.ndarray] = {}
        self._pins: list[str] = []
        self._released: set[str] = set()
        self._placed: list[Placement] = []
        self._sound_placed: list[SoundPlacement] = []
        self.programme: Programme | None = None
        self.analysis: ProgrammeAnalysis | None = None
        self.frames = 0  # analysed: [0, frames)
        self._advanced = -math.inf

    # --- engine/export/lines.py's Voiced ---------------------------------------------------

    def begin(self, plans: dict[str, ClipPlan], pending: set[str]) -> None:
        self._plans, self._pending = plans, set(pending)

    def voiced(self, key: str) -> None:
        self._pending.discard(key)
        now = time.monotonic()
        # At most twice a second (each advance lays the whole script out again), and after the last line.
        if not self._off and (now - self._advanced >= _EVERY_S or not self._pending):
            self._advanced = now
            self._advance()

    # --- the prefix ------------------------------------------------------------------------

    def _advance(self) -> None:
        if not self._sounds.done():
            return  # sound cues move lines: wait for the sound files' lengths
        if self._sounds.exception() is not None:
            self._off = True
            return
        sounds = self._sounds.result()[0]
        lines = self.project.lines
        grown = False
        disk = self.synth.cache.disk
        while self._next < len(lines) and (key := self._plans[lines[self._next].id].key) not in self._pending:
            # Mapped from the cache's file when there is one: no pin holds the
            # arena, and the pages go once the pass is past the clip.
            clip = disk.load(key) if disk is not None else None
            if clip is None:
                clip, pinned = self.synth.cache.acquire(key, pin=True, promote=False)
                if clip is None:  # evicted meanwhile: the render voices it again and takes the whole pass
                    self._off = True
                    return
                if pinned:
                    self._pins.append(key)
            line_id = lines[self._next].id
            self._clips[line_id] = clip
            self._next += 1
            grown = True
        if grown:
            self._analyse_to(self._settled(sounds), sounds)

    def _settled(self, sounds: SoundSet) -> int:
        """The frame up to which the programme cannot change any more (block-aligned):
        where the first line not voiced yet starts. A staged line's room tail rings on
        past its end into the next seconds, but it is part of that line's own staged
        clip, already in the prefix's mixer; a line still to come adds nothing before
        its start."""
        rate = self.rate
        durations = {lid: clip.shape[0] / rate for lid, clip in self._clips.items()}
        placed, sound_placed = layout_all(self.project, durations, sounds.durations(rate))
        later = placed[self._next:]
        edge = min((p.start for p in later), default=math.inf)  # explicit starts may lie anywhere
        if self.project.sounds:
            # A cue's sound can end at a later cue: the sounds that move when the
            # lines still to come are longer are not settled.
            longer = {p.line_id: 2 * (p.end - p.start) + 1.0 for p in later}
            _, moved = layout_all(self.project, durations | longer, sounds.durations(rate))
            edge = min([edge] + [a.start for a, b in zip(sound_placed, moved, strict=False) if a != b])
            if len(moved) != len(sound_placed):
                edge = 0.0
            lanes = self.project.sound_lanes
            edge -= max((lane.ducking.lookahead_s + lane.ducking.attack_s for lane in lanes), default=0.0)
            edge -= _MARGIN_S
        if not math.isfinite(edge):  # every line voiced: the rest follows in finish()
            edge = max((p.end for p in placed), default=0.0) - _MARGIN_S
        self._placed = placed[:self._next]
        self._sound_placed = sound_placed
        return max(0, int(edge * rate)) // self.block * self.block

    def _analyse_to(self, frame: int, sounds: SoundSet) -> None:
        if frame <= self.frames:
            return
        if self.programme is None:
            mixer = build_mixer(self.project, self._clips, self._placed, self.block, self.stager, self._keys())
            self.programme = build_programme(self.project, mixer, sounds, self._sound_placed)
            self.analysis = ProgrammeAnalysis(self.rate)
            if self.programme.dry:  # a dry programme is analysed from its clips, without a pass
                self._off = True
                return
        else:  # the same programme (its effects carry their state), with the longer prefix
            self.programme.mixer.set_clips(placed_clips(self.project, self._clips, self._placed, self.stager,
                                                        self._keys()))
            if self.programme.sounds is not None:
                self.programme.sounds.set_sounds(place_sounds(self.project, sounds, self._sound_placed))
        assert self.analysis is not None
        # One advance can cover most of the programme (a line voiced late holds
        # the prefix back until it comes): hand the pages back as the pass goes,
        # not at its end (measured: 700 MB of an hour's clips mapped in at once).
        passing = PassedClips((clip.end, clip.audio) for clip in self.programme.mixer.clips
                              if clip.end > self.frames)  # a staged line's clip (its tail too) or the dry one
        for t in range(self.frames, frame, self.block):
            self._check()
            passing.release_before(t)
            self.analysis.feed(self.programme.mix(t, self.block)[0])
        passing.release_before(frame)
        self.frames = frame
        self._let_go(frame)

    def _keys(self) -> dict[str, str]:
        """The prefix's clips' content keys (no recordings here: those take the whole pass)."""
        return {lid: self._plans[lid].key for lid in self._clips}

    def _ends(self) -> dict[str, int]:
        return {p.line_id: int(round(p.start * self.rate)) + self._clips[p.line_id].shape[0] for p in self._placed}

    def _let_go(self, frame: int) -> None:
        """Hand back the pages of the prefix's mapped clips that end before ``frame``
        (the clips stay: the ducking key reads the whole dialogue again when it grows)."""
        ends = self._ends()
        gone = [lid for lid, end in ends.items() if end <= frame and lid not in self._released]
        PassedClips((ends[lid], self._clips[lid]) for lid in gone).release_before(frame)
        self._released.update(gone)

    # --- after the synthesis ---------------------------------------------------------------

    def finish(self, programme: Programme, placements: list[Placement], sound_placements: list[SoundPlacement],
               total: int, step: Callable[[], None]) -> ProgrammeAnalysis | None:
        """The whole programme's analysis, carried on from the prefix with the
        final ``programme``'s clips; None when the prefix does not hold (then
        the caller analyses from the start). ``step`` runs before each block."""
        mine, analysis = self.programme, self.analysis
        if self._off or mine is None or analysis is None or self.frames == 0 or self.frames > total:
            return None
        rate, frames = self.rate, self.frames
        reach = [p for p in placements if int(round(p.start * rate)) < frames]
        if sorted(reach, key=lambda p: p.line_id) != sorted((p for p in self._placed
                                                            if int(round(p.start * rate)) < frames),
                                                           key=lambda p: p.line_id):
            return None
        if [s for s in sound_placements if s.start * rate < frames] != \
                [s for s in self._sound_placed if s.start * rate < frames]:
            return None
        bus = mine.sounds
        before = [bus.duck_gains(k).copy() for k in range(bus.lanes)] if bus is not None else []
        mine.mixer.set_clips(programme.mixer.clips)
        if bus is not None and programme.sounds is not None:
            bus.set_sounds(programme.sounds.sounds)
            bus.sync(mine.mixer)
            hops = frames // max(1, int(round(rate * 0.01))) + 2  # the reader interpolates to the next hop
            for k, old in enumerate(before):
                new = bus.duck_gains(k)
                if (old.size or new.size) and not np.array_equal(old[:hops], new[:hops]):
                    return None
        for _ in range(0, frames, self.block):
            step()  # progress: the analysed blocks count as done
        for t in range(frames, total, self.block):
            step()
            analysis.feed(mine.mix(t, min(self.block, total - t))[0])
        return analysis

    def close(self) -> None:
        for key in self._pins:
            self.synth.cache.unpin(key)
        self._pins.clear()
        self._clips.clear()
