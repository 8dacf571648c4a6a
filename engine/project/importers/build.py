"""Turn a parsed script (any format) into a Project with a cast.

One set of casting rules for every importer:
- roles in order of first appearance, each given a distinct starting voice
  (pitch, speed, pan spread) so a fresh import is already listenable with
  the single bundled voice;
- possible aliases (``MR. WORTHING`` / ``WORTHING``) are reported, never
  merged silently: only the producer knows whether they are one person;
- parentheticals become delivery notes; action and transitions become scene
  notes (action is voiced by a NARRATOR role with ``narrate_action``);
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

from engine.project.defaults import DEFAULT_TITLE
from engine.project.importers.parsed import (
    Action,
    Dialogue,
    ParsedScript,
    Pause,
    SceneHeading,
    SoundCue,
    Transition,
)
from engine.project.model import Line, Project, Role, Scene, VoiceParams, next_colour
from engine.project.sound import LANE_KINDS, SoundClip, SoundLane, bed_defaults

NARRATOR = "NARRATOR"
INTERRUPTION_OVERLAP_S = 0.25
# Starting voices for imported roles: distinct enough to tell apart with one
# voice model, mild enough to stay natural. Producers recast from here.
_STARTING_VOICES = (
    (0.0, 1.00, 0.0), (-3.0, 0.96, -0.3), (3.0, 1.04, 0.3), (-5.0, 0.92, -0.15),
    (2.0, 1.08, 0.15), (-1.5, 1.0, -0.45), (4.5, 0.98, 0.45), (-7.0, 0.9, 0.0),
)
# Chooses the voices once the cast is known: (roles, lines per role) -> voice by role
# name. The importer knows no installed voices (engine.synth sits above it), so its
# callers pass engine.synth.casting.suggest_cast bound to their voice library.
CastSuggester = Callable[[list[Role], dict[str, int]], dict[str, VoiceParams]]
_TITLES = {"MR", "MRS", "MS", "MISS", "DR", "SIR", "LADY", "LORD", "PROF", "PROFESSOR",
           "CAPT", "CAPTAIN", "REV", "FATHER", "SISTER", "AUNT", "UNCLE", "OLD", "YOUNG"}


@dataclass
class ImportReport:
    """What the producer should know about an import."""

    lines_per_role: dict[str, int] = field(default_factory=dict)
    cues: int = 0  # sound cues (placeholders until a sound is matched or dropped on them)
    aliases: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[\s.]+", name.upper()) if w]


def find_aliases(names: list[str]) -> list[tuple[str, str]]:
    """Pairs that may be the same person: one name is the other plus titles or
    extra name words (``MR. WORTHING``/``WORTHING``, ``JOHN``/``JOHN SMITH``),
    or the same words spelled differently (``MR. HOLLIS``/``MR HOLLIS``)."""
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            wa, wb = _words(a), _words(b)
            core_a = [w for w in wa if w not in _TITLES]
            core_b = [w for w in wb if w not in _TITLES]
            if not core_a or not core_b:
                continue
            titles_a = {w for w in wa if w in _TITLES}
            titles_b = {w for w in wb if w in _TITLES}
            if titles_a and titles_b and titles_a != titles_b:
                continue  # MR. SMITH and MRS. SMITH are two people
            short, long_ = sorted((core_a, core_b), key=len)
            if core_a == core_b or all(w in long_ for w in short):
                pairs.append((a, b))
    return pairs


def build_project(parsed: ParsedScript, narrate_action: bool = False, title: str | None = None,
                  suggest: CastSuggester | None = None) -> tuple[Project, ImportReport]:
    report = ImportReport(warnings=list(parsed.warnings))
    project = Project(title=title or parsed.title or Path(parsed.source).stem or DEFAULT_TITLE)
    scene: Scene | None = None
    pending_pause = 0.0
    previous: Line | None = None
    waiting: list[tuple[SoundClip, str]] = []  # cues (and OUTs) waiting for the line they stand before
    open_beds: dict[str, SoundClip] = {}  # lane -> the bed an OUT cue would end

    def current_scene() -> Scene:
        nonlocal scene
        if scene is None:
            scene = Scene(id=f"S{len(project.scenes) + 1}")
            project.scenes.append(scene)
        return scene

    def ensure_role(name: str) -> None:
        if name not in report.lines_per_role:
            index = len(project.cast)
            pitch, speed, pan = _STARTING_VOICES[index % len(_STARTING_VOICES)]
            project.cast.append(Role(name=name, colour=next_colour(index), pan=pan,
                                     voice=VoiceParams(pitch=pitch, speed=speed)))
            report.lines_per_role[name] = 0

    def add_line(role: str, text: str, note: str = "", with_previous: bool = False) -> None:
        nonlocal pending_pause, previous
        ensure_role(role)
        interrupted = previous is not None and previous.text.rstrip().endswith(("—", "--", "–"))
        line = Line(
            id=f"L{len(project.lines) + 1:04d}", role=role, text=text, scene=current_scene().id,
            note=note, pause_before=pending_pause, with_previous=with_previous and previous is not None,
            overlap=INTERRUPTION_OVERLAP_S if interrupted and not with_previous else 0.0,
        )
        project.lines.append(line)
        for clip, field_name in waiting:
            setattr(clip, field_name, line.id)
        waiting.clear()
        report.lines_per_role[role] += 1
        pending_pause = 0.0
        previous = line

    for element in parsed.elements:
        if isinstance(element, SceneHeading):
            scene = Scene(id=f"S{len(project.scenes) + 1}", heading=element.heading)
            project.scenes.append(scene)
        elif isinstance(element, Dialogue):
            if not element.text.strip():
                report.warnings.append(f"line {element.source_line}: {element.character} has no words; skipped")
                continue
            add_line(element.character, element.text, element.note, element.dual)
        elif isinstance(element, Action):
            if narrate_action:
                add_line(NARRATOR, element.text.replace("\n", " "))
            else:
                current_scene().notes.append(element.text)
        elif isinstance(element, Transition):
            current_scene().notes.append(element.text)
        elif isinstance(element, Pause):
            pending_pause += element.seconds
        elif isinstance(element, SoundCue):
            lane = _sound_lane(project, element.kind)
            if element.out:
                bed = open_beds.pop(lane.name, None)
                if bed is None:
                    report.warnings.append(f"line {element.source_line}: {lane.name} OUT with no {lane.kind} "
                                           "playing; ignored")
                else:
                    bed.end = "out"
                    waiting.append((bed, "out_line"))
                continue
            clip = SoundClip(id=f"X{len(project.sounds) + 1:04d}", lane=lane.name, cue=element.text or lane.kind,
                             **bed_defaults(element.kind))  # type: ignore[arg-type]
            project.sounds.append(clip)
            report.cues += 1
            waiting.append((clip, "line"))
            if element.kind != "effects":
                open_beds[lane.name] = clip

    project.sound_lanes.sort(key=lambda lane: LANE_KINDS.index(lane.kind))
    report.aliases = find_aliases(list(report.lines_per_role))
    if suggest is not None:
        chosen = suggest(project.cast, dict(report.lines_per_role))
        for role in project.cast:
            role.voice = chosen.get(role.name, role.voice)
    if not project.lines:
        report.warnings.append(f"{parsed.source}: no dialogue found")
    return project, report


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
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if path.suffix.lower() in (".fountain", ".spmd"):
        parsed = parse_fountain(text, str(path))
    else:
        parsed = parse_plaintext(text, str(path))
    return build_project(parsed, narrate_action, suggest=suggest)
