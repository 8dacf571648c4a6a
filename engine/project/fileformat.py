"""The ``.radioplay`` file: JSON with a ``format_version``, validated on load.

Loading never touches the file on disk; every problem is reported with the
file, the JSON path and what is wrong (``lines[12].role: unknown role
'HERO'``), because a producer has to be able to find and fix it by hand.
Saving goes through :mod:`engine.fsutil`, so it is atomic.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.fsutil import atomic_write_text, read_regular_bytes
from engine.jsontext import first_long_number, first_too_deep, line_column
from engine.project.bounds import project_overstep
from engine.project.characterformat import character_from_dict, character_to_dict
from engine.project.defaults import (
    DEFAULT_BACKEND,
    DEFAULT_BEAT,
    DEFAULT_COLOUR,
    DEFAULT_GAIN_DB,
    DEFAULT_LINE_GAP,
    DEFAULT_LONG_PAUSE,
    DEFAULT_PAN,
    DEFAULT_PAUSE,
    DEFAULT_PITCH,
    DEFAULT_PRIORITY,
    DEFAULT_SAMPLE_RATE,
    DEFAULT_SCENE_GAP,
    DEFAULT_SPEED,
    DEFAULT_TITLE,
    DEFAULT_VARIATION,
    DEFAULT_VOICE,
    DIRECTION_PAUSE_RANGE,
    GAIN_DB_RANGE,
    GAP_RANGE,
    MAX_LINE_CHARS,
    OVERLAP_RANGE,
    PAN_RANGE,
    PAUSE_RANGE,
    PRIORITY_RANGE,
    SAMPLE_RATE_RANGE,
    VOICE_RANGES,
    too_long,
)
from engine.project.designformat import design_from_dict
from engine.project.engines import engine_named
from engine.project.fileerrors import finite, join_path, kind_of
from engine.project.lexicon_io import lexicon_from_dict
from engine.project.model import Character, Line, Project, Role, Scene, Timing, VoiceParams
from engine.project.presets import DEFAULT_LANE_EFFECT, DEFAULT_MASTER_EFFECT, LANE_EFFECTS, MASTER_EFFECTS
from engine.project.readtakeformat import read_takes_from_dict, read_takes_to_dict
from engine.project.revisionformat import revisions_from_dict, revisions_to_dict
from engine.project.soundformat import sounds_from_dict, sounds_to_dict, suggestions_from_dict
from engine.project.stagingformat import (
    line_staging_from_dict,
    line_staging_to_dict,
    scene_staging_from_dict,
    scene_staging_to_dict,
)
from engine.project.takes import takes_from_dict, takes_to_dict
from engine.project.timeline import MAX_PAUSE_S, MAX_START_S, impossible_start
from engine.terminal_text import echo

# 2: sound lanes and clips (engine/project/soundformat.py); 3: script revisions
# (engine/project/revisionformat.py). Files of earlier versions load unchanged.
FORMAT_VERSION = 3
EXTENSION = ".radioplay"
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
# How much of a JSON path and of a problem an error shows (both may quote the file).
PATH_CHARS, PROBLEM_CHARS = 200, 400
# No project needs more than a few levels; deeper JSON is reported at the
# first bracket past this depth (json itself would raise RecursionError).
_MAX_DEPTH = 100


class ProjectFileError(ValueError):
    """A project file is unreadable, malformed or from a newer Radioplay."""

    def __init__(self, file: str | Path, path: str, problem: str) -> None:
        # Parts of the message quote the file (keys, values): escaped and capped, one line.
        where = f"{echo(path, PATH_CHARS)}: " if path else ""
        super().__init__(f"{echo(file)}: {where}{echo(problem, PROBLEM_CHARS)}")
        self.file = str(file)
        self.path = path
        self.problem = problem


class _Reader:
    """Typed access to a JSON tree that raises with the JSON path on error."""

    def __init__(self, file: str | Path) -> None:
        self.file = file

    def fail(self, path: str, problem: str) -> ProjectFileError:
        return ProjectFileError(self.file, path, problem)

    def obj(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {kind_of(value)}")
        return value

    def items(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {kind_of(value)}")
        return value

    def text(self, d: dict[str, Any], key: str, path: str, default: Any = ..., *, empty: bool = True) -> str:
        value = self._get(d, key, path, default)
        if not isinstance(value, str):
            raise self.fail(join_path(path, key), f"expected a string, got {kind_of(value)}")
        self.encodable(value, join_path(path, key))
        if not empty and not value.strip():
            raise self.fail(join_path(path, key), "must not be empty")
        return value

    def encodable(self, value: str, path: str) -> None:
        """A lone UTF-16 surrogate (``"\\ud800"``) loads from JSON but could never be saved."""
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise self.fail(path, f"has an invalid character (a lone surrogate) at position {exc.start}") from None

    def num(
        self, d: dict[str, Any], key: str, path: str, default: Any = ...,
        *, lo: float = -math.inf, hi: float = math.inf, optional: bool = False,
    ) -> Any:
        value = self._get(d, key, path, default)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not finite(value):
            raise self.fail(join_path(path, key), f"expected a number, got {kind_of(value)}")
        if not lo <= value <= hi:
            raise self.fail(join_path(path, key), f"{value} is out of range [{lo:g}, {hi:g}]")
        return value

    def choice(self, d: dict[str, Any], key: str, path: str, default: str, allowed: dict[str, str],
               what: str) -> str:
        value = self.text(d, key, path, default)
        if value not in allowed:
            raise self.fail(join_path(path, key), f"unknown {what} {value!r} (choose {', '.join(allowed)})")
        return value

    def flag(self, d: dict[str, Any], key: str, path: str, default: Any = ...) -> bool:
        value = self._get(d, key, path, default)
        if not isinstance(value, bool):
            raise self.fail(join_path(path, key), f"expected true or false, got {kind_of(value)}")
        return value

    def _get(self, d: dict[str, Any], key: str, path: str, default: Any) -> Any:
        if key in d:
            return d[key]
        if default is ...:
            raise self.fail(join_path(path, key), "is missing")
        return default





def _timing_to_dict(timing: Timing) -> dict[str, float]:
    """The direction pauses only where a producer changed them: files stay as they were."""
    out = {"line_gap": timing.line_gap, "scene_gap": timing.scene_gap}
    for key, default in (("beat", DEFAULT_BEAT), ("pause", DEFAULT_PAUSE), ("long_pause", DEFAULT_LONG_PAUSE)):
        if getattr(timing, key) != default:
            out[key] = getattr(timing, key)
    return out


def project_to_dict(project: Project, folder: Path | None = None) -> dict[str, Any]:
    """``folder``: where the file goes (recorded takes and sound files inside it
    are stored relative to it)."""
    return {
        "format_version": FORMAT_VERSION,
        "title": project.title,
        "sample_rate": project.sample_rate,
        "timing": _timing_to_dict(project.timing),
        "master_effect": project.master_effect,
        "cast": [_role_to_dict(r) for r in project.cast],
        "scenes": [{"id": s.id, "heading": s.heading, "notes": list(s.notes), **scene_staging_to_dict(s)}
                   for s in project.scenes],
        "lines": [_line_to_dict(line, folder) for line in project.lines],
        "lexicon": dict(project.lexicon),
        **sounds_to_dict(project, folder),
        **revisions_to_dict(project, folder, _line_to_dict),
    }


def voice_to_dict(v: VoiceParams) -> dict[str, Any]:
    d: dict[str, Any] = {"backend": v.backend, "voice": v.voice, "speaker": v.speaker,
                         "speed": v.speed, "variation": v.variation, "pitch": v.pitch}
    if not v.design.is_neutral:  # only then: a file without designs reads and writes as before
        d["design"] = v.design.to_dict()
    return d



def _role_to_dict(r: Role) -> dict[str, Any]:
    d: dict[str, Any] = {"name": r.name, "colour": r.colour, "voice": voice_to_dict(r.voice),
                         "gain_db": r.gain_db, "pan": r.pan, "mute": r.mute, "solo": r.solo,
                         "priority": r.priority, "effect": r.effect}
    if r.lexicon:  # only then: a file without role entries reads as before
        d["lexicon"] = dict(r.lexicon)
    if r.character != Character():  # likewise: a role nobody inferred reads as before
        d["character"] = character_to_dict(r.character)
    return d


def _line_to_dict(line: Line, folder: Path | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"id": line.id, "role": line.role, "scene": line.scene, "text": line.text}
    if line.note:
        d["note"] = line.note
    if line.pause_before:
        d["pause_before"] = line.pause_before
    if line.start is not None:
        d["start"] = line.start
    if line.overlap:
        d["overlap"] = line.overlap
    if line.with_previous:
        d["with_previous"] = True
    d.update(takes_to_dict(line, voice_to_dict))
    if line.recording is not None:
        d["recording"] = _relative(line.recording, folder)
    d.update(read_takes_to_dict(line.read_takes, lambda read: _relative(read, folder)))
    d.update(line_staging_to_dict(line))
    return d


def _relative(path: str, folder: Path | None) -> str:
    """A recorded take's path as stored: relative to the project's folder (so the
    folder can move) where that can be said, with '/' on every system."""
    if folder is None or not os.path.isabs(path):
        return Path(path).as_posix()
    try:
        return Path(os.path.relpath(path, folder)).as_posix()
    except ValueError:  # another drive (Windows)
        return Path(path).as_posix()


def voice_from_dict(r: _Reader, d: Any, path: str, role_name: str = "") -> VoiceParams:
    d = r.obj(d, path)
    role = f"role {role_name!r}: " if role_name else ""
    speaker = d.get("speaker")
    if speaker is not None and (isinstance(speaker, bool) or not isinstance(speaker, (int, str))):
        raise r.fail(join_path(path, "speaker"), f"expected a speaker id or name, got {kind_of(speaker)}")
    backend = r.text(d, "backend", path, DEFAULT_BACKEND, empty=False)
    voice = r.text(d, "voice", path, DEFAULT_VOICE, empty=False)
    # What the engine's voices may be (a Kokoro style or blend, no speaker): fails here, not at play.
    problem = engine_named(backend).check(voice, speaker)
    if problem is not None:
        field, message = problem
        raise r.fail(join_path(path, field), f"{role}{message}")
    return VoiceParams(
        backend=backend,
        voice=voice,
        speaker=speaker,
        speed=r.num(d, "speed", path, DEFAULT_SPEED, lo=VOICE_RANGES["speed"][0], hi=VOICE_RANGES["speed"][1]),
        variation=r.num(d, "variation", path, DEFAULT_VARIATION, lo=VOICE_RANGES["variation"][0],
                        hi=VOICE_RANGES["variation"][1]),
        pitch=r.num(d, "pitch", path, DEFAULT_PITCH, lo=VOICE_RANGES["pitch"][0], hi=VOICE_RANGES["pitch"][1]),
        design=design_from_dict(r, d.get("design"), join_path(path, "design"), role),
    )


def project_from_dict(data: Any, file: str | Path = "<memory>") -> Project:
    r = _Reader(file)
    folder = Path(file).absolute().parent if file != "<memory>" else None
    root = r.obj(data, "")
    version = root.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise r.fail("format_version", "is missing or not an integer")
    if version > FORMAT_VERSION:
        raise r.fail("format_version", f"file is version {version}, this Radioplay reads up to "
                     f"{FORMAT_VERSION}; update Radioplay to open it")
    if version < 1:
        raise r.fail("format_version", f"unknown version {version}")

    timing_d = r.obj(root.get("timing", {}), "timing")
    timing = Timing(line_gap=r.num(timing_d, "line_gap", "timing", DEFAULT_LINE_GAP, lo=GAP_RANGE[0], hi=GAP_RANGE[1]),
                    scene_gap=r.num(timing_d, "scene_gap", "timing", DEFAULT_SCENE_GAP, lo=GAP_RANGE[0],
                                    hi=GAP_RANGE[1]),
                    **{key: r.num(timing_d, key, "timing", default, lo=DIRECTION_PAUSE_RANGE[0],
                                  hi=DIRECTION_PAUSE_RANGE[1])
                       for key, default in (("beat", DEFAULT_BEAT), ("pause", DEFAULT_PAUSE),
                                            ("long_pause", DEFAULT_LONG_PAUSE))})

    cast: list[Role] = []
    role_names: set[str] = set()  # sets, not scans: 10,000 roles or scenes were quadratic
    for i, rd in enumerate(r.items(root.get("cast", []), "cast")):
        path = f"cast[{i}]"
        rd = r.obj(rd, path)
        name = r.text(rd, "name", path, empty=False)
        if name in role_names:
            raise r.fail(join_path(path, "name"), f"duplicate role {name!r}")
        role_names.add(name)
        colour = r.text(rd, "colour", path, DEFAULT_COLOUR)
        if not _COLOUR.match(colour):
            raise r.fail(join_path(path, "colour"), f"expected #rrggbb, got {colour!r}")
        cast.append(Role(
            name=name, colour=colour, voice=voice_from_dict(r, rd.get("voice", {}), join_path(path, "voice"), name),
            gain_db=r.num(rd, "gain_db", path, DEFAULT_GAIN_DB, lo=GAIN_DB_RANGE[0], hi=GAIN_DB_RANGE[1]),
            pan=r.num(rd, "pan", path, DEFAULT_PAN, lo=PAN_RANGE[0], hi=PAN_RANGE[1]),
            mute=r.flag(rd, "mute", path, False), solo=r.flag(rd, "solo", path, False),
            priority=r.num(rd, "priority", path, DEFAULT_PRIORITY, lo=PRIORITY_RANGE[0], hi=PRIORITY_RANGE[1]),
            effect=r.choice(rd, "effect", path, DEFAULT_LANE_EFFECT, LANE_EFFECTS, "effect"),
            lexicon=lexicon_from_dict(r, rd.get("lexicon", {}), join_path(path, "lexicon")),
            character=character_from_dict(r, rd.get("character", {}), join_path(path, "character")),
        ))

    scenes: list[Scene] = []
    scene_ids: set[str] = set()
    for i, sd in enumerate(r.items(root.get("scenes", []), "scenes")):
        path = f"scenes[{i}]"
        sd = r.obj(sd, path)
        sid = r.text(sd, "id", path, empty=False)
        if sid in scene_ids:
            raise r.fail(join_path(path, "id"), f"duplicate scene id {sid!r}")
        scene_ids.add(sid)
        notes = r.items(sd.get("notes", []), join_path(path, "notes"))
        for j, note in enumerate(notes):
            if not isinstance(note, str):
                raise r.fail(f"{path}.notes[{j}]", f"expected a string, got {kind_of(note)}")
            r.encodable(note, f"{path}.notes[{j}]")
        scenes.append(Scene(id=sid, heading=r.text(sd, "heading", path, ""), notes=list(notes),
                            **scene_staging_from_dict(r, sd, path)))

    lines: list[Line] = []
    seen_ids: set[str] = set()
    for i, ld in enumerate(r.items(root.get("lines", []), "lines")):
        path = f"lines[{i}]"
        line = line_from_dict(r, ld, path, folder)
        if line.id in seen_ids:
            raise r.fail(join_path(path, "id"), f"duplicate line id {line.id!r}")
        seen_ids.add(line.id)
        if line.role not in role_names:
            raise r.fail(join_path(path, "role"), f"unknown role {line.role!r}")
        if line.scene is not None and line.scene not in scene_ids:
            raise r.fail(join_path(path, "scene"), f"unknown scene {line.scene!r}")
        lines.append(line)

    lexicon = lexicon_from_dict(r, root.get("lexicon", {}), "lexicon")

    sound_lanes, sounds = sounds_from_dict(r, root, seen_ids)
    sample_rate = r.num(root, "sample_rate", "", DEFAULT_SAMPLE_RATE, lo=SAMPLE_RATE_RANGE[0], hi=SAMPLE_RATE_RANGE[1])
    if not isinstance(sample_rate, int):
        raise r.fail("sample_rate", f"expected a whole number of Hz, got {sample_rate}")
    project = Project(
        title=r.text(root, "title", "", DEFAULT_TITLE),
        sample_rate=sample_rate,
        cast=cast, scenes=scenes, lines=lines, lexicon=lexicon, timing=timing,
        master_effect=r.choice(root, "master_effect", "", DEFAULT_MASTER_EFFECT, MASTER_EFFECTS, "master effect"),
        sound_lanes=sound_lanes, sounds=sounds,
        sound_suggestions=suggestions_from_dict(r, root, seen_ids, scene_ids, {clip.id for clip in sounds}),
        revisions=revisions_from_dict(r, root, folder, line_from_dict),
    )
    # Refused here, before any work: a start hours past the rest of the play
    # would otherwise render hours of silence before failing on disk space.
    if (problem := impossible_start(project)) is not None:
        index, message = problem
        raise r.fail(f"lines[{index}].start", message)
    # And a line whose directions ask for hours of silence or thousands of phrases.
    if (overstep := project_overstep(project)) is not None:
        index, what = overstep
        raise r.fail(join_path(f"lines[{index}]", what.field),
                     f"line {project.lines[index].id!r}: {what}")
    return project


def line_from_dict(r: _Reader, ld: Any, path: str, folder: Path | None) -> Line:
    """One line's own fields (its role and scene are checked against the project by the caller:
    a line in a revision's history may name a scene of an earlier draft)."""
    ld = r.obj(ld, path)
    lid = r.text(ld, "id", path, empty=False)
    role = r.text(ld, "role", path)
    scene = ld.get("scene")
    if scene is not None and not isinstance(scene, str):
        raise r.fail(join_path(path, "scene"), f"expected a scene id, got {kind_of(scene)}")
    text = r.text(ld, "text", path)
    if (long := too_long(text, MAX_LINE_CHARS)) is not None:
        raise r.fail(join_path(path, "text"), f"line {lid!r} is {long} (split it into several lines)")
    takes = takes_from_dict(r, ld, path, voice_from_dict)
    return Line(
        id=lid, role=role, scene=scene, text=text,
        note=r.text(ld, "note", path, ""),
        pause_before=r.num(ld, "pause_before", path, 0.0, lo=PAUSE_RANGE[0], hi=MAX_PAUSE_S),
        start=r.num(ld, "start", path, None, lo=0, hi=MAX_START_S, optional=True),
        overlap=r.num(ld, "overlap", path, 0.0, lo=OVERLAP_RANGE[0], hi=OVERLAP_RANGE[1]),
        with_previous=r.flag(ld, "with_previous", path, False),
        **takes,
        recording=_recording(r, ld, path, folder),
        read_takes=read_takes_from_dict(r, ld, path, lambda read: _resolved(read, folder),
                                        tuple(dict.fromkeys((*takes["takes"], takes["take"])))),
        **line_staging_from_dict(r, ld, path),
    )


def _recording(r: _Reader, d: dict[str, Any], path: str, folder: Path | None) -> str | None:
    """A recorded take's file, absolute where the project's folder is known."""
    value = d.get("recording")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise r.fail(join_path(path, "recording"), f"expected the path of a WAV file, got {kind_of(value)}")
    return _resolved(value, folder)


def _resolved(value: str, folder: Path | None) -> str:
    """A file the project names (a recorded take, a read), absolute where its folder is known."""
    return str(folder / value) if folder is not None and not os.path.isabs(value) else value


def load_project(path: str | Path) -> Project:
    path = Path(path)
    try:
        text = read_regular_bytes(path).decode("utf-8")
    except FileNotFoundError:
        raise ProjectFileError(path, "", "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProjectFileError(path, "", f"cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProjectFileError(path, "", f"not valid JSON (line {exc.lineno}, column {exc.colno}: "
                               f"{exc.msg})") from None
    except RecursionError:
        line, column = line_column(text, first_too_deep(text, _MAX_DEPTH))
        raise ProjectFileError(path, "", f"not a project: nested more than {_MAX_DEPTH} levels deep "
                               f"(line {line}, column {column})") from None
    except ValueError:  # an integer of thousands of digits (Python's conversion limit)
        line, column = line_column(text, first_long_number(text))
        raise ProjectFileError(path, "", f"not a project: a number with thousands of digits "
                               f"(line {line}, column {column})") from None
    return project_from_dict(data, path)


def save_project(project: Project, path: str | Path, guard: Callable[[], None] | None = None) -> None:
    """Write atomically (temporary file, fsync, rename); ``guard`` runs just before the
    rename (engine/output_paths.py's check that the name may still be replaced)."""
    path = Path(path)
    text = json.dumps(project_to_dict(project, path.absolute().parent), indent=2, ensure_ascii=False) + "\n"
    atomic_write_text(path, text, guard)
