"""Turn a parsed script (any format) into a Project with a cast.

One set of casting rules for every importer:
- roles in order of first appearance, each given a distinct starting voice
  (engine.project.starting_voices: small pitch, speed and variation changes, pan
  spread) so a fresh import is already listenable with the single bundled
  voice;
- possible aliases (``MR. WORTHING`` / ``WORTHING``) are reported, never
  merged silently: only the producer knows whether they are one person;
- parentheticals become delivery notes; action, transitions and comments
  become scene notes (action is voiced by a NARRATOR role with
  ``narrate_action``); comments before the first scene go to that scene;
- pauses before a line add up to at most ``MAX_PAUSE_S``, the loader's bound,
  and the finished project is checked by the loader's own rules, so import
  never writes a project that will not open;
- a line that ends in a dash (interrupted) makes the next line overlap it;
  dual dialogue starts with the line it pairs with;
- sound cues become placeholder clips on one sound lane per kind (FX,
  AMBIENCE, MUSIC), standing before the next line; an OUT cue ends the
  lane's open bed there. Files are matched later, from the sound library.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.fsutil import read_regular_bytes
from engine.project.casting import infer_characters
from engine.project.defaults import DEFAULT_TITLE, MAX_LINE_CHARS, too_long
from engine.project.direction import parse_line
from engine.project.fileformat import ProjectFileError, project_from_dict, project_to_dict
from engine.project.importers.parsed import (
    Action,
    Dialogue,
    Note,
    ParsedScript,
    Pause,
    SceneHeading,
    ScriptSyntaxError,
    SoundCue,
    Transition,
)
from engine.project.model import Line, Project, Role, Scene, VoiceParams, next_colour
from engine.project.sound import LANE_KINDS, SoundClip, SoundLane, bed_defaults
from engine.project.staging_rules import infer_room, perspective_words
from engine.project.starting_voices import cast_summary, casting_summary, starting_voice
from engine.project.timeline import MAX_PAUSE_S

NARRATOR = "NARRATOR"
INTERRUPTION_OVERLAP_S = 0.25
# Chooses the voices once the cast is known: (roles, lines per role, each role's lines
# in script order) -> voice by role name. The importer knows no installed voices (engine.synth sits above it), so its
# callers pass engine.synth.casting.suggest_cast bound to their voice library;
# without one every role gets its own settings of one voice (starting_voice).
CastSuggester = Callable[[list[Role], dict[str, int], dict[str, list[str]]], dict[str, VoiceParams]]
_TITLES = {"MR", "MRS", "MS", "MISS", "DR", "SIR", "LADY", "LORD", "PROF", "PROFESSOR",
           "CAPT", "CAPTAIN", "REV", "FATHER", "SISTER", "AUNT", "UNCLE", "OLD", "YOUNG"}


@dataclass
class ImportReport:
    """What the producer should know about an import."""

    lines_per_role: dict[str, int] = field(default_factory=dict)
    cues: int = 0  # sound cues (placeholders until a sound is matched or dropped on them)
    aliases: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    casting: str = ""  # how the roles were told apart (casting.casting_summary)


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[\s.]+", name.upper()) if w]


def find_aliases(names: list[str]) -> list[tuple[str, str]]:
    """Pairs that may be the same person: one name is the other plus titles or
    extra name words (``MR. WORTHING``/``WORTHING``, ``JOHN``/``JOHN SMITH``),
    or the same words spelled differently (``MR. HOLLIS``/``MR HOLLIS``).

    Pairs come in script order. A name is only compared with the names that
    hold its rarest word (any name containing all its words holds that one),
    so 10,000 roles cost about 10,000 comparisons, not 50 million.
    """
    cores: list[frozenset[str]] = []
    titles: list[frozenset[str]] = []
    holders: dict[str, list[int]] = {}
    for index, name in enumerate(names):
        words = _words(name)
        core = frozenset(w for w in words if w not in _TITLES)
        cores.append(core)
        titles.append(frozenset(w for w in words if w in _TITLES))
        for word in core:
            holders.setdefault(word, []).append(index)
    pairs: set[tuple[int, int]] = set()
    for i, core in enumerate(cores):
        if not core:
            continue
        rarest = min(core, key=lambda w: len(holders[w]))
        for j in holders[rarest]:
            if j == i or not core <= cores[j]:
                continue
            if titles[i] and titles[j] and titles[i] != titles[j]:
                continue  # MR. SMITH and MRS. SMITH are two people
            pairs.add((min(i, j), max(i, j)))
    return [(names[i], names[j]) for i, j in sorted(pairs)]


def build_project(parsed: ParsedScript, narrate_action: bool = False, title: str | None = None,
                  suggest: CastSuggester | None = None) -> tuple[Project, ImportReport]:
    report = ImportReport(warnings=list(parsed.warnings))
    project = Project(title=title or parsed.title or Path(parsed.source).stem or DEFAULT_TITLE)
    scene: Scene | None = None
    pending_pause = 0.0
    previous: Line | None = None
    waiting: list[tuple[SoundClip, str]] = []  # cues (and OUTs) waiting for the line they stand before
    open_beds: dict[str, SoundClip] = {}  # lane -> the bed an OUT cue would end
    loose_notes: list[str] = []  # comments before any scene wait for the first one

    def new_scene(heading: str = "") -> Scene:
        nonlocal scene
        scene = Scene(id=f"S{len(project.scenes) + 1}", heading=heading, notes=loose_notes[:])
        choice = infer_room(heading)
        if choice is not None:
            scene.room, scene.room_evidence = choice.room, choice.evidence
        loose_notes.clear()
        project.scenes.append(scene)
        return scene

    def current_scene() -> Scene:
        return scene if scene is not None else new_scene()

    def ensure_role(name: str) -> None:
        if name not in report.lines_per_role:
            index = len(project.cast)
            voice, pan = starting_voice(index)
            project.cast.append(Role(name=name, colour=next_colour(index), pan=pan, voice=voice))
            report.lines_per_role[name] = 0

    def add_line(role: str, text: str, note: str = "", with_previous: bool = False,
                 extensions: tuple[str, ...] = ()) -> None:
        nonlocal pending_pause, previous
        ensure_role(role)
        interrupted = previous is not None and previous.text.rstrip().endswith(("—", "--", "–"))
        line = Line(
            id=f"L{len(project.lines) + 1:04d}", role=role, text=text, scene=current_scene().id,
            note=note, pause_before=pending_pause, with_previous=with_previous and previous is not None,
            overlap=INTERRUPTION_OVERLAP_S if interrupted and not with_previous else 0.0,
        )
        seen = perspective_words(*extensions, note)
        if seen is not None:
            line.perspective, line.perspective_evidence = seen.perspective, seen.evidence
        project.lines.append(line)
        for clip, field_name in waiting:
            setattr(clip, field_name, line.id)
        waiting.clear()
        report.lines_per_role[role] += 1
        pending_pause = 0.0
        previous = line

    for element in parsed.elements:
        if isinstance(element, SceneHeading):
            new_scene(element.heading)
        elif isinstance(element, Dialogue):
            if not element.text.strip():
                report.warnings.append(f"line {element.source_line}: {element.character} has no words; skipped")
                continue
            if (long := too_long(element.text, MAX_LINE_CHARS)) is not None:
                raise ScriptSyntaxError(parsed.source, element.source_line,
                                        f"{element.character}'s line is {long} (split it into several lines)")
            add_line(element.character, element.text, element.note, element.dual, element.extensions)
            report.warnings += [f"line {element.source_line} ({element.character}): {problem}"
                                for problem in parse_line(element.text).warnings]
        elif isinstance(element, Action):
            if narrate_action and (long := too_long(element.text, MAX_LINE_CHARS)) is not None:
                raise ScriptSyntaxError(parsed.source, element.source_line, f"the action is {long}")
            if narrate_action:
                add_line(NARRATOR, element.text.replace("\n", " "))
            else:
                current_scene().notes.append(element.text)
        elif isinstance(element, Transition):
            current_scene().notes.append(element.text)
        elif isinstance(element, Note):
            (scene.notes if scene is not None else loose_notes).append(element.text)
        elif isinstance(element, Pause):
            pending_pause += element.seconds
            if pending_pause > MAX_PAUSE_S:
                raise ScriptSyntaxError(parsed.source, element.source_line,
                                        f"pauses in a row add up to {pending_pause:g} s; at most "
                                        f"{MAX_PAUSE_S:g} s may come before a line")
        elif isinstance(element, SoundCue):
            _cue(project, report, element, waiting, open_beds)

    if loose_notes:
        current_scene().notes.extend(loose_notes)
    project.sound_lanes.sort(key=lambda lane: LANE_KINDS.index(lane.kind))
    report.aliases = find_aliases(list(report.lines_per_role))
    characters = infer_characters(project)  # before casting: the suggester matches voices to them
    for role in project.cast:
        role.character = characters[role.name]
    if suggest is not None:
        # The casting decides the voices from the model's own settings: the starting offsets
        # exist to tell roles of one voice apart, and the casting tells them apart itself.
        for role in project.cast:
            role.voice = VoiceParams()
        chosen = suggest(project.cast, dict(report.lines_per_role), project.spoken_by_role())
        for role in project.cast:
            role.voice = chosen.get(role.name, role.voice)
        report.casting = cast_summary(project.cast)
    else:
        report.casting = casting_summary(len(project.cast))
    if not project.lines:
        report.warnings.append(f"{parsed.source}: no dialogue found")
    return project, report


def _cue(project: Project, report: ImportReport, element: SoundCue, waiting: list[tuple[SoundClip, str]],
         open_beds: dict[str, SoundClip]) -> None:
    """A cue becomes a placeholder clip standing before the next line; an OUT
    cue ends its lane's open bed where it stands."""
    lane = _sound_lane(project, element.kind)
    if element.out:
        bed = open_beds.pop(lane.name, None)
        if bed is None:
            report.warnings.append(f"line {element.source_line}: {lane.name} OUT with no {lane.kind} playing; ignored")
        else:
            bed.end = "out"
            waiting.append((bed, "out_line"))
        return
    clip = SoundClip(id=f"X{len(project.sounds) + 1:04d}", lane=lane.name, cue=element.text or lane.kind,
                     **bed_defaults(element.kind))  # type: ignore[arg-type]
    project.sounds.append(clip)
    report.cues += 1
    waiting.append((clip, "line"))
    if element.kind != "effects":
        open_beds[lane.name] = clip


def _sound_lane(project: Project, kind: str) -> SoundLane:
    """The project's lane for cues of a kind (made on the first cue)."""
    for lane in project.sound_lanes:
        if lane.kind == kind:
            return lane
    lane = SoundLane.of_kind(kind)
    project.sound_lanes.append(lane)
    return lane


def import_script(path: Path, narrate_action: bool = False,
                  suggest: CastSuggester | None = None) -> tuple[Project, ImportReport]:
    """Import a ``.fountain`` / ``.spmd`` or a plain-text ``NAME: line`` script;
    ``suggest`` casts the roles from the installed voices."""
    from engine.project.importers.fountain import parse_fountain
    from engine.project.importers.plaintext import parse_plaintext

    path = Path(path)
    try:
        text = read_regular_bytes(path).decode("utf-8-sig")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such script file") from None
    except OSError as exc:  # a FIFO or device is refused before it can block or fill memory
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if path.suffix.lower() in (".fountain", ".spmd"):
        parsed = parse_fountain(text, str(path))
    else:
        parsed = parse_plaintext(text, str(path))
    project, report = build_project(parsed, narrate_action, suggest=suggest)
    try:  # the loader's own rules: import never writes what render would refuse
        project_from_dict(project_to_dict(project), path)
    except ProjectFileError as exc:
        raise ValueError(f"{path}: the imported project would not load ({exc.path}: {exc.problem})") from None
    return project, report
