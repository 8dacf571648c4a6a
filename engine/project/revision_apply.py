"""Bring a revised draft into a production, keeping all the work done on its lines.

``draft`` is the new script as the importer made it (engine/synth/production_import.py,
the same parse as ``radioplay import``). The lines are matched by
:func:`engine.project.revision_align.align`; then, in the draft's order:

- a line whose words did not change (in place or moved) is the production's line as it
  was: its id, takes, chosen take, lock, recording, placement and delivery note; only
  its scene follows the draft;
- a line whose words changed, or whose draft gives it a direction (its delivery note: a
  leading ``(whispering)``) other than the production's, keeps its id, role and
  placement and is voiced again with the draft's words and direction: a changed
  direction is a changed line. Its old version (words, note, takes, lock, recording)
  goes to the revision's history, and a recording a person made of it is flagged
  there, never reused. A draft line without a direction says nothing about delivery:
  the production's note (a producer's, set in the studio) stays;
- a split line's first part keeps the id (changed), the rest are new; a merged line
  keeps the first id and the other old line is removed into the history;
- a new line gets a fresh id; a removed line is kept whole in the revision's history.

Roles keep their settings; a role new in the draft comes with the voice the import
chose; a role without lines stays in the cast. Scenes follow the draft. Sound clips the
production has are kept (a cue still in the draft moves with it, keeping the producer's
file, levels and fades); a new cue comes in as the import matched it.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass, replace

from engine.project.model import Line, Project, Revision, next_colour
from engine.project.revision_align import Alignment, Kind, align
from engine.project.revision_report import Change, RevisionReport
from engine.project.sound import SoundClip
from engine.project.timeline import estimate_duration


@dataclass
class RevisedProduction:
    project: Project  # the production revised (a new object; the original is untouched)
    report: RevisionReport
    alignment: Alignment


def revise(production: Project, draft: Project, *, name: str, date: str, colour: str,
           script: str = "") -> RevisedProduction:
    """The production with ``draft``'s lines (see the module docstring); ``production`` is not changed."""
    revised = _copy(production)
    old, new = revised.lines, draft.lines
    alignment = align([(x.role, x.text) for x in old], [(x.role, x.text) for x in new])
    report = RevisionReport(name=name, date=date, colour=colour, script=script)
    revision = Revision(name=name, date=date, colour=colour, script=script)
    fresh = _FreshIds(production)
    by_new = alignment.by_new()
    lines: list[Line] = []
    draft_to_revised: dict[str, str] = {}
    changed: list[str] = []
    added: list[str] = []
    flagged: list[str] = []

    def voiced_anew(before: Line, after: Line) -> Line:
        """``before`` with ``after``'s words: history keeps the old version; the lock, any
        recording of the old words (flagged) and any take directed by a read of them go with it."""
        revision.earlier.append(replace(before))
        if before.recording is not None:
            flagged.append(before.id)
            report.flagged.append((before.id, before.recording))
        changed.append(before.id)
        return replace(before, text=after.text, scene=after.scene, note=after.note or before.note,
                       takes=(), locked=None, recording=None, read_takes=())

    for j, line in enumerate(new):
        match = by_new.get(j)
        if match is None:
            made = replace(line, id=fresh.next())
            added.append(made.id)
            report.changes.append(Change("added", line.role, None, made.id, new_text=written(line)))
        elif match.kind in (Kind.UNCHANGED, Kind.MOVED) and _redirected(old[match.old[0]], line):
            before = old[match.old[0]]
            made = voiced_anew(before, line)
            report.changes.append(Change("changed", line.role, before.id, made.id, written(before), written(made)))
        elif match.kind in (Kind.UNCHANGED, Kind.MOVED):
            made = replace(old[match.old[0]], scene=line.scene)
            report.takes_kept += 1
            report.locks_kept += made.locked is not None
            report.recordings_kept += made.recording is not None
            if match.kind is Kind.MOVED:
                report.changes.append(Change("moved", line.role, made.id, made.id, made.text, made.text))
            else:
                report.unchanged += 1
        elif match.kind is Kind.SPLIT and j != match.new[0]:
            first = draft_to_revised[new[match.new[0]].id]
            made = replace(line, id=fresh.next())
            changed.append(made.id)
            report.changes.append(Change("split", line.role, None, made.id, new_text=written(line), partner=first))
        else:
            before = old[match.old[0]]
            made = voiced_anew(before, line)
            kind = {Kind.SPLIT: "split", Kind.MERGED: "merged"}.get(match.kind, "changed")
            old_text = " / ".join(written(old[i]) for i in match.old)
            report.changes.append(Change(kind, line.role, before.id, made.id, old_text, written(made)))
            for i in match.old[1:]:  # the other lines of a merge leave the script
                revision.removed.append(replace(old[i]))
                report.changes.append(Change("merged", old[i].role, old[i].id, None, old[i].text,
                                             partner=before.id))
        draft_to_revised[line.id] = made.id
        lines.append(made)

    for i in alignment.removed:
        revision.removed.append(replace(old[i]))
        report.changes.append(Change("removed", old[i].role, old[i].id, None, old[i].text))

    revised.lines = lines
    _bring_in_roles(revised, draft, report)
    report.scenes = _scene_changes(production, draft)
    revised.scenes = [replace(scene, notes=list(scene.notes)) for scene in draft.scenes]
    report.cues = _bring_in_sounds(revised, production, draft, draft_to_revised)
    revision.changed, revision.added, revision.flagged = tuple(changed), tuple(added), tuple(flagged)
    revised.revisions.append(revision)
    to_voice = set(changed) | set(added)
    voices = {role.name: role.voice for role in revised.cast}
    revoiced = [x for x in lines if x.id in to_voice and x.recording is None]
    report.revoice = [x.id for x in revoiced]
    for x in revoiced:
        voice = x.locked or voices[x.role]
        seconds = estimate_duration(x.text, voice.speed)
        report.revoice_seconds += seconds
        report.revoice_by_backend[voice.backend] = report.revoice_by_backend.get(voice.backend, 0.0) + seconds
    return RevisedProduction(revised, report, alignment)


def written(line: Line) -> str:
    """A line as the draft writes it: its direction (delivery note) leading its words."""
    return f"({line.note}) {line.text}" if line.note.strip() else line.text


def _redirected(before: Line, after: Line) -> bool:
    """The draft gives the line a direction the production's line does not have."""
    return bool(after.note.strip()) and " ".join(after.note.split()) != " ".join(before.note.split())


def _copy(production: Project) -> Project:
    """A copy whose lists and records may be changed without touching ``production`` (every
    field inside a line, role, lane or clip is immutable or replaced whole, never edited)."""
    return replace(production, cast=[replace(r, lexicon=dict(r.lexicon)) for r in production.cast],
                   lines=list(production.lines), timing=replace(production.timing),
                   scenes=[replace(s, notes=list(s.notes)) for s in production.scenes],
                   lexicon=dict(production.lexicon), sound_lanes=[replace(x) for x in production.sound_lanes],
                   sounds=[replace(c) for c in production.sounds], revisions=list(production.revisions))


class _FreshIds:
    """Line ids no line of the production, or of its history, ever had: L0001 on."""

    def __init__(self, production: Project) -> None:
        self.used = {x.id for x in production.lines}
        for revision in production.revisions:
            self.used |= {x.id for x in (*revision.earlier, *revision.removed)}
        self.n = len(self.used)

    def next(self) -> str:
        while True:
            self.n += 1
            candidate = f"L{self.n:04d}"
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate


def _bring_in_roles(revised: Project, draft: Project, report: RevisionReport) -> None:
    have = set(revised.role_names())
    for role in draft.cast:
        if role.name not in have:
            revised.cast.append(replace(copy.deepcopy(role), colour=next_colour(len(revised.cast))))
            report.new_roles.append(role.name)
    speaking = {x.role for x in revised.lines}
    report.roles_without_lines = [r.name for r in revised.cast if r.name not in speaking]


def _scene_changes(production: Project, draft: Project) -> list[str]:
    before = [s.heading or s.id for s in production.scenes]
    after = [s.heading or s.id for s in draft.scenes]
    out: list[str] = []
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            out += [f"removed {h!r}" for h in before[a0:a1]]
        if op in ("insert", "replace"):
            out += [f"added {h!r} (scene {b + 1})" for b, h in zip(range(b0, b1), after[b0:b1], strict=True)]
    return out


def _cue_key(clip: SoundClip, kinds: dict[str, str]) -> tuple[str, str]:
    return kinds.get(clip.lane, ""), " ".join(clip.cue.lower().split())


def _bring_in_sounds(revised: Project, production: Project, draft: Project, draft_to_revised: dict[str, str]
                     ) -> list[str]:
    """Cues of the draft onto the production's clips (matched by lane kind and cue words, in
    order); returns one sentence per cue that came, went or moved."""
    notes: list[str] = []
    old_kinds = {lane.name: lane.kind for lane in production.sound_lanes}
    new_kinds = {lane.name: lane.kind for lane in draft.sound_lanes}
    lane_of_kind: dict[str, str] = {}
    for lane in revised.sound_lanes:
        lane_of_kind.setdefault(lane.kind, lane.name)
    for lane in draft.sound_lanes:
        if lane.kind not in lane_of_kind:
            revised.sound_lanes.append(copy.deepcopy(lane))
            lane_of_kind[lane.kind] = lane.name
    waiting: dict[tuple[str, str], list[SoundClip]] = {}
    for clip in revised.sounds:
        waiting.setdefault(_cue_key(clip, old_kinds), []).append(clip)
    present = {x.id for x in revised.lines}
    survivor = _next_surviving(production, present)
    used_ids = {c.id for c in revised.sounds}
    kept: set[str] = set()
    sounds: list[SoundClip] = []
    for clip in draft.sounds:
        line = draft_to_revised.get(clip.line) if clip.line else None
        out_line = draft_to_revised.get(clip.out_line) if clip.out_line else None
        candidates = waiting.get(_cue_key(clip, new_kinds))
        if candidates:
            mine = candidates.pop(0)
            kept.add(mine.id)
            if mine.anchor == "cue":
                mine.line = line
                if mine.end == "out":
                    mine.out_line = out_line
            sounds.append(mine)
            continue
        made = copy.deepcopy(clip)
        made.lane = lane_of_kind[new_kinds[clip.lane]]
        made.line, made.out_line = line, out_line
        n = len(used_ids)
        while made.id in used_ids:
            n += 1
            made.id = f"X{n:04d}"
        used_ids.add(made.id)
        sounds.append(made)
        notes.append(f"added {clip.cue!r} on {made.lane}" + ("" if made.file else " (a placeholder: no sound yet)"))
    for clip in revised.sounds:
        if clip.id in kept:
            continue
        if clip.cue:
            notes.append(f"{clip.cue!r} on {clip.lane} is no longer in the draft; kept where it was "
                         "(delete it if it should go)")
        sounds.append(clip)
    for clip in sounds:  # a clip anchored to a line that left the script moves to the next one left
        if clip.line is not None and clip.line not in present:
            clip.line = survivor.get(clip.line)
            if clip.line is None and clip.anchor in ("line_start", "line_end"):
                clip.anchor, clip.offset = "cue", 0.0
        if clip.out_line is not None and clip.out_line not in present:
            clip.out_line = survivor.get(clip.out_line)
            if clip.out_line is None and clip.end == "out":
                clip.end = "scene"
    revised.sounds = sounds
    return notes


def _next_surviving(production: Project, present: set[str]) -> dict[str, str | None]:
    """For each production line that left the script, the next of its lines that stayed (None: none)."""
    out: dict[str, str | None] = {}
    following: str | None = None
    for line in reversed(production.lines):
        if line.id in present:
            following = line.id
        else:
            out[line.id] = following
    return out
