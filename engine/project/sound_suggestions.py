"""Answering the suggested sound cues (engine/project/sound.py ``SoundSuggestion``).

Accepting a suggestion makes what a written ``SFX:`` or ``AMBIENCE:`` cue makes: a clip
on the project's lane of its kind (made on the first), standing where the suggestion
stands (before its line), with the library sound it matched or as a placeholder that
says what to find; dismissing one keeps it, dismissed, so a producer is not asked again.
Pure functions of a project that return the new lists (``sound_lanes``, ``sounds``,
``sound_suggestions``): the studio makes one undo step of them (app/sound/suggestions.py),
``radioplay sounds`` writes them (engine/cli_sounds.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from engine.project.model import Project
from engine.project.sound import SoundClip, SoundLane, SoundSuggestion, bed_defaults


@dataclass(frozen=True)
class Answered:
    """A project's sound design after some suggestions were answered."""

    sound_lanes: list[SoundLane]
    sounds: list[SoundClip]
    sound_suggestions: list[SoundSuggestion]
    made: list[SoundClip]  # the clips accepted suggestions made

    def apply(self, project: Project) -> None:
        project.sound_lanes, project.sounds = self.sound_lanes, self.sounds
        project.sound_suggestions = self.sound_suggestions


def lane_of_kind(lanes: list[SoundLane], kind: str, busy: Iterable[str] = ()) -> SoundLane:
    """The lane sounds of ``kind`` go on: the first of that kind not named in ``busy``, else
    a new one appended to ``lanes`` (named as a kind's lane is: FX, AMBIENCE, MUSIC; then
    AMBIENCE 2...)."""
    taken = set(busy)
    for lane in lanes:
        if lane.kind == kind and lane.name not in taken:
            return lane
    names = {lane.name for lane in lanes}
    lane = SoundLane.of_kind(kind)
    number = 1
    while lane.name in names:
        number += 1
        lane = SoundLane.of_kind(kind, f"{SoundLane.of_kind(kind).name} {number}")
    lanes.append(lane)
    return lane


def next_clip_id(clips: Iterable[SoundClip]) -> str:
    """The next free clip id of the importer's kind (X0001, X0002...)."""
    taken = {clip.id for clip in clips}
    number = len(taken) + 1
    while f"X{number:04d}" in taken:
        number += 1
    return f"X{number:04d}"


def answer(project: Project, accept: Iterable[str] = (), dismiss: Iterable[str] = ()) -> Answered:
    """The project's lanes, clips and suggestions with the suggestions ``accept`` names
    accepted and those ``dismiss`` names dismissed (ids). Raises KeyError naming an id the
    project has no suggestion of, ValueError for one already answered."""
    by_id = {s.id: s for s in project.sound_suggestions}
    accepting, dismissing = list(dict.fromkeys(accept)), list(dict.fromkeys(dismiss))
    for sid in [*accepting, *dismissing]:
        if sid not in by_id:
            raise KeyError(f"no suggested sound {sid!r} in this project")
        if not by_id[sid].open:
            raise ValueError(f"suggested sound {sid} ({by_id[sid].text!r}) is {by_id[sid].state} already")
    if both := set(accepting) & set(dismissing):
        raise ValueError(f"suggested sound {sorted(both)[0]} cannot be both accepted and dismissed")
    lanes, clips = list(project.sound_lanes), list(project.sounds)
    changed: dict[str, SoundSuggestion] = {}
    made = []
    for sid in accepting:
        suggestion = by_id[sid]
        # Two beds cued at one place play together, each on a lane of its own: on one lane
        # the first would end where the second starts.
        busy = [c.lane for c in clips if c.anchor == "cue" and c.line == suggestion.line]
        lane = lane_of_kind(lanes, suggestion.lane_kind, busy)
        clip = SoundClip(id=next_clip_id(clips), lane=lane.name, cue=suggestion.text, file=suggestion.file,
                         anchor="cue", line=suggestion.line, **bed_defaults(lane.kind))
        clips.append(clip)
        made.append(clip)
        changed[sid] = replace(suggestion, state="accepted", clip=clip.id)
    for sid in dismissing:
        changed[sid] = replace(by_id[sid], state="dismissed")
    return Answered(lanes, clips, [changed.get(s.id, s) for s in project.sound_suggestions], made)


def open_suggestions(project: Project) -> list[SoundSuggestion]:
    return [s for s in project.sound_suggestions if s.open]


def describe(suggestion: SoundSuggestion) -> str:
    """One line for the terminal and the studio: id, text, lane, match, evidence."""
    match = f"-> {suggestion.file.rsplit('/', 1)[-1]}" if suggestion.file else "-> no sound in the library"
    where = f", before {suggestion.line}" if suggestion.line else ", after the last line"
    state = "" if suggestion.open else f" [{suggestion.state}]"
    kind = " bed" if suggestion.kind == "bed" else ""
    return (f"{suggestion.id} {suggestion.text!r} ({suggestion.lane_kind}{kind}{where}) {match}{state}  "
            f"from line {suggestion.source_line}: \u201c{suggestion.evidence}\u201d")
