"""The dialogue chain: what happens to a line between its clip and its lane,
in a re-recording engineer's order, for export and live playback alike.

1. the clip (voice design and direction are in it, levelled to CLIP_LUFS by
   the synthesis);
2. the dialogue leveller (engine/audio/leveller.py): a look-ahead curve that
   brings the line's peaks under the stems' ceiling at the level it reaches
   its stem, for the master gain the mix is levelled for (``staging_db``);
3. staging (engine/audio/staging.py): perspective, position and the scene's
   room, stereo, on the levelled line; a role whose staged lines pass the
   stems' ceiling has them all trimmed by one gain (``staged_trim``: its median
   line to the ceiling), its lines still over it walled after their room, and
   where roles overlap past it, one wall for all of them
   (engine/mixdown/overlaps.py).

Then the lane (fader, pan for an unstaged line, lane effect) makes the role's
stem, the buses (DME) and the master chain with its limiter follow
(engine/audio/programme.py). Levelling before the room keeps the room's
tail as the levelled voice excites it (the leveller never pumps a
reverberation), and keeps the hand-off's dry line files the lines the
rooms were fed.

A delivered file levelled on its own (ACX levels each chapter's RMS) reaches its
listener louder than the master gain by its own gain: ``scene_db`` names, per scene,
how much louder its lines are delivered, and the leveller levels them for that, so the
delivery's limiter has as little to do as the master's (engine/export/chapter_levels.py).

An unstaged line's curve is applied by the mixer as it mixes the clip
(allocation-free, the clip stays mapped from the cache); a staged line is
staged once from the levelled clip (the stager remembers it by clip,
staging and curve), so the mixer plays it as any clip.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial

import numpy as np

from engine.audio.leveller import DIALOGUE, STAGED_WALL, LineEnvelope, lane_offset_db, line_envelope
from engine.audio.mixer import PlacedClip
from engine.audio.staging import Stager, direct_db, line_stages
from engine.mixdown.overlaps import OverlapWalls
from engine.project.deliveries import delivery
from engine.project.direction import Phrase, parse_line
from engine.project.model import Line, Project

# How much a staged line's wall (after its room: the leveller's curve as a brick wall on
# its loudest syllables) may take off its peaks: the role's trim takes the rest, one gain
# for all its staged lines, so their perspectives keep their offsets to within this.
STAGED_WALL_DB = 6.0


def intended_db(line: Line, project: Project) -> float:
    """How much louder than its clip's level the line's loudest phrase was directed to be
    (a shout's +8 dB, an emphasis's +2; 0 for a plain or quieter line): the synthesis
    levels a directed line as one line and adds each phrase's offset on top
    (engine/synth/performance.py ``apply_gains``), so the leveller takes it off again
    to see the line at its neutral level."""
    directed = parse_line(line.text, line.note, project.timing)
    if directed.is_plain:
        return 0.0
    return max([0.0] + [_offset_db(phrase) for phrase in directed.phrases if phrase.words])


def _offset_db(phrase: Phrase) -> float:
    """A phrase's directed level over its line's, less what a ``levelled`` delivery adds (a
    voice raised over a storm is levelled as the role's plain lines are)."""
    kept = tuple(d for d in phrase.deliveries if not delivery(d.name).levelled)
    return replace(phrase, deliveries=kept).performance().design.gain


class DialogueChain:
    """The leveller and staging of a project's lines for a master gain of
    ``staging_db`` (the gain the leveller levels for)."""

    def __init__(self, project: Project, staging_db: float, stager: Stager | None = None,
                 clip_keys: Mapping[str, str] | None = None, walls: OverlapWalls | None = None,
                 scene_db: Mapping[str, float] | None = None) -> None:
        """``clip_keys``: the dry clips' content keys, under which a stager with a store
        keeps the staged lines (engine/audio/staging.py ``staged_key``). ``walls``: the
        overlaps' walls made before (live playback keeps one across its relayouts).
        ``scene_db``: how much louder than ``staging_db`` each scene's lines are delivered
        (a chapter levelled on its own; none: every line at ``staging_db``)."""
        self.walls = walls or OverlapWalls()
        self.rate = project.sample_rate
        self._keys = clip_keys or {}
        self.staging_db = staging_db
        self.stager = stager or Stager()
        self.stages = line_stages(project)
        self._role = {line.id: line.role for line in project.lines}
        # An unstaged line reaches its stem at its fader and pan (the louder channel); a staged
        # one at its fader and its staging's direct sound (the staging pans it).
        self._unstaged_db = {r.name: lane_offset_db(r.gain_db, r.pan) for r in project.cast}
        self._fader_db = {r.name: r.gain_db for r in project.cast}
        self._lane_settings = {r.name: (r.gain_db, r.pan) for r in project.cast}
        self._audible = project.audible_roles()
        # The leveller sees each line at its neutral level; a role's lines are then trimmed
        # together by its loudest intended offset, so a shout keeps its offset over the
        # role's plain lines and still peaks under the stems' ceiling (one gain per role,
        # as a re-recording engineer pulls a lane down, never the shout line by line). A
        # shout the staging puts far off (O.S.: 6 m and round a corner, 24 dB down) peaks
        # under the ceiling by the distance: it needs no trim, so it is a loud voice heard
        # from over there, louder than the role's plain line from there, rather than
        # pulling the whole role down by its offset (which left it as loud as the plain line).
        self._intended = {line.id: intended_db(line, project) for line in project.lines}
        scenes = scene_db or {}
        self._extra = {line.id: scenes.get(line.scene or "", 0.0) for line in project.lines} if scenes else {}
        self.deferred: list[str] = []  # the lines the last place() left for later (its ``until``)
        self.trims: dict[str, float] = {}  # each role's staged trim in the last place()
        self._trim_db = {r.name: 0.0 for r in project.cast}
        for line in project.lines:
            if line.role in self._trim_db:
                under = max(0.0, -direct_db(self.stages[line.id])) if line.id in self.stages else 0.0
                self._trim_db[line.role] = max(self._trim_db[line.role], self._intended[line.id] - under)

    def offset_db(self, line_id: str, role: str) -> float:
        """How much louder than its clip the line's peaks reach its stem after the master
        gain, before any staging: the leveller levels the dry dialogue, so a staged line's
        perspective (an off-stage line's -6 dB, a close one's +3) survives it; what the
        staging then takes past the stems' ceiling is the stager's trim. A directed line
        is detected without its direction's level offset (``intended_db``): the curve is
        the neutral line's, the offset stays on top."""
        return (self._unstaged_db[role] + self.staging_db + self._extra.get(line_id, 0.0)
                - self._intended.get(line_id, 0.0))

    def trim_db(self, role: str) -> float:
        """The role's trim (dB, >= 0 down): its loudest intended offset, so that offset,
        kept by the leveller, still peaks under the stems' ceiling."""
        return self._trim_db.get(role, 0.0)

    def envelope(self, line_id: str, role: str, clip: np.ndarray) -> LineEnvelope:
        """The line's curve: the leveller's, for its neutral level, times its role's trim."""
        curve = line_envelope(clip, self.rate, self.offset_db(line_id, role))
        trim = self.trim_db(role)
        if trim <= 0.0:
            return curve
        return LineEnvelope(curve.gains * np.float32(10 ** (-trim / 20)), curve.cell)

    def placed(self, lane: int, start: int, line_id: str, role: str, clip: np.ndarray,
               envelope: LineEnvelope | None = None) -> PlacedClip:
        """One line on its lane as the mixer plays it (``envelope``: its curve, when the
        caller has it already), its role's staging trim from this line alone."""
        return self.place([(lane, start, line_id, role, clip, envelope)])[0]

    def place(self, lines: Sequence[tuple[int, int, str, str, np.ndarray, LineEnvelope | None]],
              until: float | None = None, trims: Mapping[str, float] | None = None) -> list[PlacedClip]:
        """The lines (lane, start frame, line id, role, clip, its curve or None) on their
        lanes as the mixer plays them. A role whose staged lines pass the stems' ceiling
        (a close position, a room's field) has all its staged lines trimmed by one gain
        (``staged_trim``): a perspective's level (an off-stage line 6 dB and more under the
        close ones) is an intended offset, kept between the lines of a role, never undone
        line by line. What still passes the ceiling, a role's loudest lines in their room,
        is taken off by the staged wall (the leveller's curve as a brick wall on the staged
        line, after its room: at most STAGED_WALL_DB, on their loudest syllables).

        ``until`` (a time.monotonic() deadline; live playback): lines are staged until then
        and a line whose staging is not made yet is left out after it, named in
        ``deferred``: the caller, which must answer Stop and Play meanwhile, places them
        at a later call (staging the sample's 48 lines takes seconds).

        ``trims``: the roles' staged trims to use instead of those of ``lines`` (a take
        heard alone gets its role's trim in the whole mix: engine/mixdown/take_alone.py)."""
        made: list[tuple[int, int, str, str, np.ndarray, LineEnvelope | None, bool]] = []
        peaks: dict[str, list[float]] = {}
        self.deferred = []
        for lane, start, line_id, role, clip, envelope in lines:
            envelope = envelope if envelope is not None else self.envelope(line_id, role, clip)
            stage = self.stages.get(line_id)
            if stage is None:
                made.append((lane, start, line_id, role, clip, envelope, False))
                continue
            key = self._keys.get(line_id, "")
            if until is not None and time.monotonic() >= until:
                known = self.stager.staged(line_id, clip, stage, self.rate, key, envelope=envelope)
                if known is None:
                    self.deferred.append(line_id)
                    continue
                staged = known
            else:
                staged = self.stager.clip(line_id, clip, stage, self.rate, key, envelope=envelope)
            # Each line against its own ceiling (its scene's delivery gain), as the role's share.
            peaks.setdefault(role, []).append(self.stager.peak(line_id, staged) * self._extra_gain(line_id))
            made.append((lane, start, line_id, role, staged, None, True))
        found = {role: self.staged_trim(role, role_peaks) for role, role_peaks in peaks.items()}
        self.trims = found if trims is None else {**found, **trims}
        placed = []
        for lane, start, line_id, role, audio, envelope, is_staged in made:
            trim = self.trims.get(role, 1.0) if is_staged else 1.0
            # (a line the trim takes exactly to the ceiling needs no wall: not for a rounding)
            ceiling = self.ceiling(role) / self._extra_gain(line_id)
            if is_staged and self.stager.peak(line_id, audio) * trim > ceiling * (1 + 1e-6):
                level_db = DIALOGUE.ceiling_db + 20 * math.log10(trim / ceiling)
                envelope = self.stager.wall(line_id, audio, level_db,
                                            partial(line_envelope, audio, self.rate, level_db, STAGED_WALL))
            placed.append(PlacedClip(lane, start, audio, envelope, trim))
        extra = [self._extra.get(line_id, 0.0) for _, _, line_id, _, _, _, _ in made]
        return self.walls.wall(placed, self._lanes(lines), self.rate, self.staging_db, extra)

    def _extra_gain(self, line_id: str) -> float:
        """How much louder (a factor) than the master gain the line's scene is delivered."""
        extra = self._extra.get(line_id, 0.0)
        return float(10 ** (extra / 20)) if extra else 1.0

    def _lanes(self, lines: Sequence[tuple[int, int, str, str, np.ndarray, LineEnvelope | None]]
               ) -> dict[int, tuple[float, float]]:
        """Each audible lane of ``lines``: its role's (fader dB, pan)."""
        return {lane: self._lane_settings[role] for lane, _, _, role, _, _ in lines if role in self._audible}

    def staged_trim(self, role: str, peaks: Sequence[float]) -> float:
        """The gain on all of ``role``'s staged lines (``peaks``: each one's loudest
        sample): what takes its median line to the stems' ceiling, or more where its
        loudest line would need more than STAGED_WALL_DB of the staged wall; the wall
        takes the rest off the lines over the ceiling. A gain for the loudest line alone
        pulls every line down by what one close line in a reverberant room needs (5 dB
        over the role's median line on the sample), which the master gain cannot bring
        back under the ceiling: the mix then met its target only by the master limiter,
        and levelling for a higher gain only squashed the lines (issue 29)."""
        audible = sorted(peak for peak in peaks if peak > 0.0)
        if not audible:
            return 1.0
        ceiling = self.ceiling(role)
        median_db = 20 * math.log10(audible[(len(audible) - 1) // 2] / ceiling)
        loudest_db = 20 * math.log10(audible[-1] / ceiling)
        return float(10 ** (-max(0.0, median_db, loudest_db - STAGED_WALL_DB) / 20))

    def ceiling(self, role: str) -> float:
        """The largest sample a staged line of ``role`` may have: the stems' ceiling,
        before its fader and the master gain."""
        return float(10 ** ((DIALOGUE.ceiling_db - self._fader_db[role] - self.staging_db) / 20))

    def levelled(self, line_id: str, clip: np.ndarray) -> np.ndarray:
        """The line levelled and not staged: what its room is fed (the DAW hand-off's
        line file; a staged line's trim is the staging's, in its role's stem)."""
        role = self._role.get(line_id)
        if role is None or role not in self._fader_db:
            return clip
        return self.envelope(line_id, role, clip).apply(clip)


class LevelledLines(Mapping[str, np.ndarray]):
    """Each line's clip levelled as the mix levels it (before its staging),
    made when asked for, one at a time: the DAW hand-off's line files, which
    then peak under full scale as the stems do."""

    def __init__(self, project: Project, clips: Mapping[str, np.ndarray], staging_db: float,
                 scene_db: Mapping[str, float] | None = None) -> None:
        self._clips = clips
        self._chain = DialogueChain(project, staging_db, scene_db=scene_db)

    def __getitem__(self, line_id: str) -> np.ndarray:
        return self._chain.levelled(line_id, self._clips[line_id])

    def __iter__(self) -> Iterator[str]:
        return iter(self._clips)

    def __len__(self) -> int:
        return len(self._clips)
