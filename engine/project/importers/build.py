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
  lane's open bed there. Files are matched later, from the sound library;
- sounds an action line describes (``Gulls. A diesel engine idles.``:
  engine/project/sound_words.py) become suggested cues standing before the
  next line, with the sentence as evidence: offered, never spoken, and no
  clip until the producer accepts one (engine/project/sound_suggestions.py);
- each scene is staged from its heading and the action before its first
  line (engine/project/staging_rules.py: its room; engine/project/weather.py:
  its weather, with the words that said so), each line from its cue's
  extensions, its leading direction and its character's name (a perspective;
  RADIO is heard through a radio); outside in loud weather a line is raised
  over it (``over the storm`` joins its Delivery note).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.fsutil import read_regular_bytes
from engine.project.bounds import line_overstep
from engine.project.casting import infer_characters
from engine.project.defaults import DEFAULT_TITLE, MAX_LINE_CHARS, too_long
from engine.project.delivery import join_notes
from engine.project.direction import Direction, note_directions, parse_line
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
from engine.project.sound import LANE_KINDS, SoundClip, SoundLane, SoundSuggestion, bed_defaults
from engine.project.sound_suggestions import lane_of_kind
from engine.project.sound_words import SOUND_WORDS, find_sounds
from engine.project.staging_rules import infer_room, perspective_words
from engine.project.starting_voices import cast_summary, casting_summary, starting_voice
from engine.project.timeline import MAX_PAUSE_S
from engine.project.weather import SceneWeather, raised_over, scene_beds, scene_weather

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
    suggested: int = 0  # sounds described in action lines, offered as cues
    aliases: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    casting: str = ""  # how the roles were told apart (casting.casting_summary)
    # Directions no delivery, pause or perspective performs (kept, never spoken): each with
    # the number of lines that have it, in script order.
    unperformed: dict[str, int] = field(default_factory=dict)

    def unperformed_note(self, limit: int = 8) -> str:
        """``not performed (kept in the script, never spoken): (to Lucy) on 2 lines, (aside)``; "" when none."""
        if not self.unperformed:
            return ""
        items = [f"({text})" + (f" on {count} lines" if count > 1 else "")
                 for text, count in list(self.unperformed.items())[:limit]]
        more = len(self.unperformed) - limit
        return ("not performed (kept in the script, never spoken): " + ", ".join(items)
                + (f" and {more} more" if more > 0 else ""))


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
    # Cues (and OUTs) and suggested cues waiting for the line they stand before.
    waiting: list[tuple[SoundClip, str]] = []
    suggested: list[tuple[int, str]] = []  # (index in project.sound_suggestions, field)
    open_beds: dict[str, SoundClip] = {}  # lane -> the bed an OUT cue would end
    loose_notes: list[str] = []  # comments before any scene wait for the first one
    opening: list[str] = []  # the current scene's action before its first line
    voiced = False  # the current scene has a line (its opening is read)
    weather: SceneWeather | None = None  # the current scene's
    heading_line = 0  # the current scene heading's line in the script

    def new_scene(heading: str = "", source_line: int = 0) -> Scene:
        nonlocal scene, voiced, heading_line
        scene = Scene(id=f"S{len(project.scenes) + 1}", heading=heading, notes=loose_notes[:])
        opening.clear()
        voiced = False
        heading_line = source_line
        stage_scene(scene)
        loose_notes.clear()
        project.scenes.append(scene)
        return scene

    def stage_scene(staged: Scene) -> None:
        """The scene's room and weather from its heading and the action read so far."""
        nonlocal weather
        choice = infer_room(staged.heading, opening)
        weather = scene_weather(staged.heading, opening) if choice is not None else None
        if choice is not None:
            staged.room = choice.room
            staged.room_evidence = choice.evidence + (f"; {weather.evidence}" if weather is not None else "")

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
        nonlocal pending_pause, previous, voiced
        ensure_role(role)
        interrupted = previous is not None and previous.text.rstrip().endswith(("—", "--", "–"))
        line = Line(
            id=f"L{len(project.lines) + 1:04d}", role=role, text=text, scene=current_scene().id,
            note=note, pause_before=pending_pause, with_previous=with_previous and previous is not None,
            overlap=INTERRUPTION_OVERLAP_S if interrupted and not with_previous else 0.0,
        )
        seen = perspective_words(*extensions, note, speaker=role)
        if seen is not None:
            line.perspective, line.perspective_evidence = seen.perspective, seen.evidence
        # (the narrator is not out in the weather)
        raised = raised_over(weather, current_scene().room, line.perspective) if role != NARRATOR else ""
        if raised and not any(d.name == "raised" for d in note_directions(note)):
            line.note = join_notes(note, raised)
        if not voiced:
            _suggest_beds(project, report, current_scene(), weather, line.id, suggested, heading_line)
        voiced = True
        project.lines.append(line)
        for clip, field_name in waiting:
            setattr(clip, field_name, line.id)
        waiting.clear()
        for index, _ in suggested:
            project.sound_suggestions[index] = replace(project.sound_suggestions[index], line=line.id)
        suggested.clear()
        report.lines_per_role[role] += 1
        pending_pause = 0.0
        previous = line

    for element in parsed.elements:
        if isinstance(element, SceneHeading):
            new_scene(element.heading, element.source_line)
        elif isinstance(element, Dialogue):
            if not element.text.strip():
                report.warnings.append(f"line {element.source_line}: {element.character} has no words; skipped")
                continue
            if (long := too_long(element.text, MAX_LINE_CHARS)) is not None:
                raise ScriptSyntaxError(parsed.source, element.source_line,
                                        f"{element.character}'s line is {long} (split it into several lines)")
            if (overstep := line_overstep(element.text, element.note, project.timing)) is not None:
                raise ScriptSyntaxError(parsed.source, element.source_line, f"{element.character}'s line: {overstep}")
            add_line(element.character, element.text, element.note, element.dual, element.extensions)
            directed = parse_line(element.text, element.note, project.timing)
            report.warnings += [f"line {element.source_line} ({element.character}): {problem}"
                                for problem in directed.warnings]
            _note_unperformed(report, (*note_directions(element.note), *directed.directions))
        elif isinstance(element, Action):
            if not voiced:
                opening.append(element.text)
                stage_scene(current_scene())
            _suggest(project, report, element, current_scene().id, suggested)
            if narrate_action and (long := too_long(element.text, MAX_LINE_CHARS)) is not None:
                raise ScriptSyntaxError(parsed.source, element.source_line, f"the action is {long}")
            if narrate_action and (overstep := line_overstep(element.text, "", project.timing)) is not None:
                raise ScriptSyntaxError(parsed.source, element.source_line, f"the action: {overstep}")
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


def _note_unperformed(report: ImportReport, directions: tuple[Direction, ...]) -> None:
    """Count the line's directions that nothing performs: not a delivery or a pause, and no
    perspective staging places (``(on the radio)`` is staged, ``(to Lucy)`` is not)."""
    seen: set[str] = set()
    for direction in directions:
        text = direction.text.strip()
        if direction.performed or not text or text.lower() in seen or perspective_words(text) is not None:
            continue
        seen.add(text.lower())
        key = next((k for k in report.unperformed if k.lower() == text.lower()), text)
        report.unperformed[key] = report.unperformed.get(key, 0) + 1


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
                     **bed_defaults(element.kind))
    project.sounds.append(clip)
    report.cues += 1
    waiting.append((clip, "line"))
    if element.kind != "effects":
        open_beds[lane.name] = clip


def _suggest(project: Project, report: ImportReport, element: Action, scene: str,
             suggested: list[tuple[int, str]]) -> None:
    """The sounds an action paragraph describes, each a suggested cue standing before the next line."""
    for found in find_sounds(element.text):
        suggested.append((len(project.sound_suggestions), "line"))
        project.sound_suggestions.append(SoundSuggestion(
            id=f"Q{len(project.sound_suggestions) + 1:04d}", text=found.cue, sound=found.sound.name,
            lane_kind=found.sound.lane_kind,
            evidence=found.sentence, scene=scene, source_line=element.source_line))
        report.suggested += 1


def _suggest_beds(project: Project, report: ImportReport, scene: Scene, weather: SceneWeather | None,
                  line_id: str, suggested: list[tuple[int, str]], heading_line: int) -> None:
    """The scene's weather and exposure beds (engine/project/weather.py), suggested before its
    first line: a sound its opening action described is that suggestion, now of kind bed; one
    only its heading names, or its exposed place, is a new one."""
    beds = {bed.sound: bed for bed in scene_beds(weather, scene.room)}
    for index, _ in suggested:
        offered = project.sound_suggestions[index]
        if offered.sound in beds and offered.kind == "cue" and offered.scene == scene.id:
            project.sound_suggestions[index] = replace(offered, kind="bed")
            beds.pop(offered.sound)
    for bed in beds.values():
        sound = SOUND_WORDS[bed.sound]
        project.sound_suggestions.append(SoundSuggestion(
            id=f"Q{len(project.sound_suggestions) + 1:04d}", text=bed.sound.capitalize(), sound=bed.sound,
            lane_kind=sound.lane_kind, kind="bed", evidence=bed.evidence, scene=scene.id, line=line_id,
            source_line=heading_line))
        report.suggested += 1


def _sound_lane(project: Project, kind: str) -> SoundLane:
    """The project's lane for cues of a kind (made on the first cue)."""
    return lane_of_kind(project.sound_lanes, kind)


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
