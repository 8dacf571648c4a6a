"""The .radioplay file: round trip, atomic saves, located error messages."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import fsutil
from engine.project import fileformat
from engine.project.defaults import DEFAULT_COLOUR, ROLE_COLOURS
from engine.project.fileformat import (
    FORMAT_VERSION,
    ProjectFileError,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from engine.project.model import Line, Project, Role, Scene, Timing, VoiceParams
from engine.project.presets import DEFAULT_MASTER_EFFECT, LANE_EFFECTS, MASTER_EFFECTS
from tests.support.paths import SAMPLES

SAMPLES = SAMPLES


# --------------------------------------------------------------------------- fixtures


def full_project() -> Project:
    """A project where every field differs from its default."""
    return Project(
        title="Les Misérables — “Act 1” 🎭",
        sample_rate=44_100,
        cast=[
            Role(name="ANNA", colour="#1a2B3c",
                 voice=VoiceParams(voice="en_GB-alba-medium", backend="piper", speaker=3,
                                   speed=1.25, variation=0.4, pitch=-2.5),
                 gain_db=-3.5, pan=-0.75, mute=True, solo=False, priority=2.5, effect="telephone"),
            Role(name="MR. BOB", colour="#ABCDEF",
                 voice=VoiceParams(voice="/voices/custom.onnx", backend="other", speaker="p225",
                                   speed=0.5, variation=0.0, pitch=12.0),
                 gain_db=6.0, pan=1.0, mute=False, solo=True, priority=0.5, effect="distance"),
            # speaker 0 and a numeric-looking name: falsy / ambiguous values must survive
            Role(name="CAROL", colour="#000000",
                 voice=VoiceParams(speaker=0, speed=4.0, variation=2.0, pitch=-12.0),
                 gain_db=-60.0, pan=0.0, priority=100.0),
            Role(name="DAN", voice=VoiceParams(speaker="7")),
        ],
        scenes=[
            Scene(id="S1", heading="INT. STUDIO - NIGHT", notes=["Rain on the window.", "CUT TO:"]),
            Scene(id="S2", heading="", notes=[]),
        ],
        lines=[
            Line(id="L0001", role="ANNA", text="Hello — is anyone there?", scene="S1",
                 note="whispering", pause_before=1.5),
            Line(id="L0002", role="MR. BOB", text="Yes.", scene="S1", overlap=0.25),
            Line(id="L0003", role="CAROL", text="Me too.", scene="S1", with_previous=True),
            Line(id="L0004", role="DAN", text="Pinned.", scene="S2", start=12.75),
            Line(id="L0005", role="ANNA", text="At zero.", scene=None, start=0.0),
            Line(id="Lcafe1234ab", role="ANNA", text="", scene="S2"),
        ],
        lexicon={"Llanfair": "hlan-vire", "Penrose": "[[pɛnɹoʊz]]"},
        timing=Timing(line_gap=0.2, scene_gap=3.0),
        master_effect=next(name for name in MASTER_EFFECTS if name != DEFAULT_MASTER_EFFECT),
    )


def base_doc() -> dict[str, Any]:
    """A small valid document the error cases mutate."""
    return {
        "format_version": 1,
        "title": "T",
        "cast": [
            {"name": "ANNA", "colour": "#112233", "voice": {"speed": 1.0, "speaker": None}},
            {"name": "BOB"},
        ],
        "scenes": [{"id": "S1", "heading": "h", "notes": ["n"]}, {"id": "S2"}],
        "lines": [
            {"id": "L1", "role": "ANNA", "text": "Hi", "scene": "S1"},
            {"id": "L2", "role": "BOB", "text": "Yo", "scene": "S2"},
        ],
        "lexicon": {"Llanfair": "hlan-vire"},
    }


def write_doc(tmp_path: Path, doc: Any, name: str = "play.radioplay") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def dir_entries(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


# --------------------------------------------------------------------------- round trip


def test_full_round_trip_is_equal(tmp_path: Path) -> None:
    project = full_project()
    path = tmp_path / "full.radioplay"
    save_project(project, path)
    loaded = load_project(path)
    assert loaded == project
    # the types survive too (dataclass == would accept 1 == 1.0 and "7" != 7 only by luck)
    assert loaded.cast[0].voice.speaker == 3 and type(loaded.cast[0].voice.speaker) is int
    assert loaded.cast[1].voice.speaker == "p225"
    assert loaded.cast[2].voice.speaker == 0 and type(loaded.cast[2].voice.speaker) is int
    assert loaded.cast[3].voice.speaker == "7" and type(loaded.cast[3].voice.speaker) is str
    assert loaded.lines[4].start == 0.0  # falsy, but pinned: must not become None
    assert loaded.lines[3].start == 12.75
    assert loaded.lines[2].with_previous is True
    assert loaded.lines[0].note == "whispering"
    assert loaded.scenes[0].notes == ["Rain on the window.", "CUT TO:"]


def test_round_trip_via_dict_is_equal() -> None:
    project = full_project()
    assert project_from_dict(project_to_dict(project)) == project
    # and through JSON text as well
    assert project_from_dict(json.loads(json.dumps(project_to_dict(project)))) == project


def test_saving_twice_gives_identical_bytes(tmp_path: Path) -> None:
    a, b = tmp_path / "a.radioplay", tmp_path / "b.radioplay"
    save_project(full_project(), a)
    save_project(load_project(a), b)
    assert a.read_bytes() == b.read_bytes()


def test_default_project_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "empty.radioplay"
    save_project(Project(), path)
    assert load_project(path) == Project()


def test_minimal_document_gets_defaults() -> None:
    project = project_from_dict({"format_version": 1})
    assert project == Project()
    project = project_from_dict({"format_version": 1, "cast": [{"name": "A"}],
                                 "lines": [{"id": "x", "role": "A", "text": "hi"}]})
    assert project.cast[0].voice == VoiceParams()
    assert project.lines[0] == Line(id="x", role="A", text="hi")


def test_a_role_left_bare_in_a_file_is_the_models_default_role() -> None:
    """One table of defaults (engine/project/defaults.py): a role with only a name loads as
    Role(name) would make it, colour included (the file format once filled in grey)."""
    project = project_from_dict({"format_version": 1, "cast": [{"name": "A"}]})
    assert project.cast[0] == Role(name="A")
    assert project.cast[0].colour == DEFAULT_COLOUR == ROLE_COLOURS[0]


def test_files_without_effects_load_with_the_defaults() -> None:
    """Files saved before effects existed: every lane dry, the default master."""
    project = project_from_dict(base_doc())
    assert [role.effect for role in project.cast] == ["none", "none"]
    assert project.master_effect == DEFAULT_MASTER_EFFECT


@pytest.mark.parametrize("name", list(LANE_EFFECTS))
def test_every_lane_effect_round_trips(name: str) -> None:
    doc = base_doc()
    doc["cast"][1]["effect"] = name
    assert project_from_dict(doc).cast[1].effect == name
    assert project_to_dict(project_from_dict(doc))["cast"][1]["effect"] == name


@pytest.mark.parametrize("name", list(MASTER_EFFECTS))
def test_every_master_effect_round_trips(name: str) -> None:
    doc = base_doc()
    doc["master_effect"] = name
    assert project_to_dict(project_from_dict(doc))["master_effect"] == name


def test_sample_project_round_trips(tmp_path: Path) -> None:
    project = load_project(SAMPLES / "the-last-broadcast.radioplay")
    out = tmp_path / "copy.radioplay"
    save_project(project, out)
    assert load_project(out) == project


# --------------------------------------------------------------------------- saved file


def test_saved_file_is_json_with_format_version(tmp_path: Path) -> None:
    path = tmp_path / "p.radioplay"
    save_project(full_project(), path)
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["format_version"] == 3 == FORMAT_VERSION
    assert isinstance(data["format_version"], int)
    assert data["title"] == "Les Misérables — “Act 1” 🎭"
    assert "Misérables" in text  # written as UTF-8, not \u escapes
    assert text.endswith("\n")


def test_save_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "p.radioplay"
    save_project(full_project(), path)
    assert dir_entries(tmp_path) == ["p.radioplay"]


def test_save_creates_missing_folders(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "p.radioplay"
    save_project(full_project(), path)
    assert load_project(path) == full_project()
    assert dir_entries(path.parent) == ["p.radioplay"]


def test_save_over_existing_file_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "p.radioplay"
    save_project(full_project(), path)
    smaller = Project(title="Second")
    save_project(smaller, path)
    assert load_project(path) == smaller
    assert json.loads(path.read_text(encoding="utf-8"))["title"] == "Second"
    assert dir_entries(tmp_path) == ["p.radioplay"]


def test_failed_serialization_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.radioplay"
    save_project(full_project(), path)
    before = path.read_bytes()

    def boom(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("serializer exploded")

    monkeypatch.setattr(fileformat.json, "dumps", boom)
    with pytest.raises(RuntimeError, match="serializer exploded"):
        save_project(Project(title="new"), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert dir_entries(tmp_path) == ["p.radioplay"]


def test_failed_write_midway_keeps_old_file(tmp_path: Path) -> None:
    """Encoding fails while writing the temporary file (a lone surrogate)."""
    path = tmp_path / "p.radioplay"
    save_project(full_project(), path)
    before = path.read_bytes()
    bad = full_project()
    bad.lines[-1].text = "broken \ud800 text"
    with pytest.raises(UnicodeEncodeError):
        save_project(bad, path)
    assert path.read_bytes() == before
    assert dir_entries(tmp_path) == ["p.radioplay"]


def test_failed_rename_keeps_old_file_and_removes_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary file is complete but the final rename fails (e.g. disk error)."""
    path = tmp_path / "p.radioplay"
    save_project(full_project(), path)
    before = path.read_bytes()

    def no_replace(src: Any, dst: Any) -> None:
        raise OSError(5, "I/O error")

    monkeypatch.setattr(fsutil.os, "replace", no_replace)
    with pytest.raises(OSError, match="I/O error"):
        save_project(Project(title="new"), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert dir_entries(tmp_path) == ["p.radioplay"]


def test_failed_first_save_leaves_nothing(tmp_path: Path) -> None:
    bad = Project(title="\udcff")
    with pytest.raises(UnicodeEncodeError):
        save_project(bad, tmp_path / "new.radioplay")
    assert dir_entries(tmp_path) == []


def test_save_keeps_permissions_of_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "p.radioplay"
    path.write_text("{}", encoding="utf-8")
    os.chmod(path, 0o644)
    save_project(Project(), path)
    assert os.stat(path).st_mode & 0o777 == 0o644


# --------------------------------------------------------------------------- error messages


def _set(doc: dict[str, Any], keys: tuple[Any, ...], value: Any) -> None:
    target: Any = doc
    for k in keys[:-1]:
        target = target[k]
    target[keys[-1]] = value


def _del(doc: dict[str, Any], keys: tuple[Any, ...]) -> None:
    target: Any = doc
    for k in keys[:-1]:
        target = target[k]
    del target[keys[-1]]


_MISSING = object()

# (id, keys to change, new value or _MISSING to delete, JSON path, problem regex)
ERROR_CASES: list[tuple[str, tuple[Any, ...], Any, str, str]] = [
    ("unknown-role", ("lines", 1, "role"), "HERO", "lines[1].role", re.escape("unknown role 'HERO'")),
    ("speed-range", ("cast", 0, "voice", "speed"), 9, "cast[0].voice.speed",
     re.escape("9 is out of range [0.25, 4]")),
    ("speed-low", ("cast", 0, "voice", "speed"), 0.1, "cast[0].voice.speed",
     re.escape("0.1 is out of range [0.25, 4]")),
    ("pitch-range", ("cast", 1, "voice"), {"pitch": 13}, "cast[1].voice.pitch",
     re.escape("13 is out of range [-12, 12]")),
    ("variation-range", ("cast", 1, "voice"), {"variation": -0.5}, "cast[1].voice.variation",
     re.escape("-0.5 is out of range [0, 2]")),
    ("missing-text", ("lines", 0, "text"), _MISSING, "lines[0].text", "is missing"),
    ("missing-line-id", ("lines", 1, "id"), _MISSING, "lines[1].id", "is missing"),
    ("missing-role-name", ("cast", 1, "name"), _MISSING, "cast[1].name", "is missing"),
    ("empty-role-name", ("cast", 1, "name"), "   ", "cast[1].name", "must not be empty"),
    ("duplicate-role", ("cast", 1, "name"), "ANNA", "cast[1].name", re.escape("duplicate role 'ANNA'")),
    ("duplicate-line", ("lines", 1, "id"), "L1", "lines[1].id", re.escape("duplicate line id 'L1'")),
    ("duplicate-scene", ("scenes", 1, "id"), "S1", "scenes[1].id", re.escape("duplicate scene id 'S1'")),
    ("unknown-scene", ("lines", 1, "scene"), "S9", "lines[1].scene", re.escape("unknown scene 'S9'")),
    ("bad-colour-name", ("cast", 0, "colour"), "red", "cast[0].colour",
     re.escape("expected #rrggbb, got 'red'")),
    ("bad-colour-short", ("cast", 0, "colour"), "#fff", "cast[0].colour", re.escape("expected #rrggbb")),
    ("bad-colour-hex", ("cast", 0, "colour"), "#12345g", "cast[0].colour", re.escape("expected #rrggbb")),
    ("newer-version", ("format_version",), 4, "format_version",
     r"file is version 4.*reads up to 3.*update Radioplay"),
    ("version-missing", ("format_version",), _MISSING, "format_version", "is missing or not an integer"),
    ("version-string", ("format_version",), "1", "format_version", "is missing or not an integer"),
    ("version-float", ("format_version",), 1.0, "format_version", "is missing or not an integer"),
    ("version-bool", ("format_version",), True, "format_version", "is missing or not an integer"),
    ("version-zero", ("format_version",), 0, "format_version", "unknown version 0"),
    ("lexicon-empty", ("lexicon", "X"), "", "lexicon.X", re.escape("expected a non-empty respelling or [[phonemes]]")),
    ("lexicon-blank", ("lexicon", "Penrose"), "  ", "lexicon.Penrose", "expected a non-empty respelling"),
    ("lexicon-number", ("lexicon", "X"), 5, "lexicon.X", re.escape("expected a non-empty respelling or [[phonemes]]")),
    ("lexicon-list", ("lexicon",), ["a"], "lexicon", "expected an object, got a list"),
    ("bool-as-number-pause", ("lines", 0, "pause_before"), True, "lines[0].pause_before",
     "expected a number, got a boolean"),
    ("bool-as-number-pitch", ("cast", 0, "voice", "pitch"), False, "cast[0].voice.pitch",
     "expected a number, got a boolean"),
    ("bool-as-number-rate", ("sample_rate",), True, "sample_rate", "expected a number, got a boolean"),
    ("string-as-number", ("timing",), {"line_gap": "0.3"}, "timing.line_gap",
     "expected a number, got a string"),
    ("null-as-number", ("cast", 0, "gain_db"), None, "cast[0].gain_db", "expected a number, got null"),
    ("scene-gap-range", ("timing",), {"scene_gap": -1}, "timing.scene_gap",
     re.escape("-1 is out of range [0, 60]")),
    ("negative-start", ("lines", 0, "start"), -1, "lines[0].start", re.escape("-1 is out of range [0, 86400]")),
    # Issue 20: a start of 1e308 or 1e12 rendered forever; refused before any work.
    ("huge-start", ("lines", 0, "start"), 1e308, "lines[0].start", re.escape("1e+308 is out of range [0, 86400]")),
    ("start-past-a-day", ("lines", 1, "start"), 1e12, "lines[1].start",
     re.escape("1000000000000.0 is out of range [0, 86400]")),
    ("start-hours-past-the-play", ("lines", 1, "start"), 16000, "lines[1].start",
     re.escape("16000 s leaves 4:26:") + ".*" + re.escape("of silence after the lines before it")),
    ("pause-range", ("lines", 0, "pause_before"), 601, "lines[0].pause_before",
     re.escape("601 is out of range [0, 600]")),
    # Issue 20 item 14: an empty key respelled the gap between every two words.
    ("lexicon-empty-key", ("lexicon", ""), "um", "lexicon.''", "an entry needs a word to respell, not an empty key"),
    ("lexicon-blank-key", ("lexicon", "  "), "um", "lexicon.'  '", "an entry needs a word to respell"),
    ("lone-surrogate-title", ("title",), "Mis\ud800", "title", "has an invalid character .a lone surrogate. at position 3"),
    ("overlap-range", ("lines", 0, "overlap"), 61, "lines[0].overlap", re.escape("61 is out of range [0, 60]")),
    ("pan-range", ("cast", 1, "pan"), 1.5, "cast[1].pan", re.escape("1.5 is out of range [-1, 1]")),
    ("rate-range", ("sample_rate",), 1000, "sample_rate", re.escape("1000 is out of range [8000, 192000]")),
    ("number-as-bool", ("cast", 0, "mute"), 1, "cast[0].mute", "expected true or false, got 1"),
    ("string-as-bool", ("lines", 1, "with_previous"), "yes", "lines[1].with_previous",
     "expected true or false, got a string"),
    ("speaker-float", ("cast", 0, "voice", "speaker"), 1.5, "cast[0].voice.speaker",
     "expected a speaker id or name, got 1.5"),
    ("speaker-bool", ("cast", 0, "voice", "speaker"), True, "cast[0].voice.speaker",
     "expected a speaker id or name, got a boolean"),
    ("speaker-list", ("cast", 0, "voice", "speaker"), [1], "cast[0].voice.speaker",
     "expected a speaker id or name, got a list"),
    ("empty-voice", ("cast", 0, "voice", "voice"), "", "cast[0].voice.voice", "must not be empty"),
    ("voice-not-object", ("cast", 0, "voice"), "joe", "cast[0].voice", "expected an object, got a string"),
    ("cast-not-list", ("cast",), {}, "cast", "expected a list, got an object"),
    ("line-not-object", ("lines", 0), "ANNA: hi", "lines[0]", "expected an object, got a string"),
    ("scene-note-number", ("scenes", 0, "notes", 0), 3, "scenes[0].notes[0]", "expected a string, got 3"),
    ("scene-notes-string", ("scenes", 0, "notes"), "n", "scenes[0].notes", "expected a list, got a string"),
    ("title-number", ("title",), 5, "title", "expected a string, got 5"),
    ("text-null", ("lines", 1, "text"), None, "lines[1].text", "expected a string, got null"),
    ("role-number", ("lines", 1, "role"), 7, "lines[1].role", "expected a string, got 7"),
    ("timing-list", ("timing",), [], "timing", "expected an object, got a list"),
    ("unknown-effect", ("cast", 1, "effect"), "echo", "cast[1].effect",
     re.escape(f"unknown effect 'echo' (choose {', '.join(LANE_EFFECTS)})")),
    ("master-preset-as-lane-effect", ("cast", 0, "effect"), "broadcast", "cast[0].effect",
     re.escape("unknown effect 'broadcast' (choose none, telephone, ")),
    ("effect-number", ("cast", 0, "effect"), 3, "cast[0].effect", "expected a string, got 3"),
    ("effect-null", ("cast", 0, "effect"), None, "cast[0].effect", "expected a string, got null"),
    ("unknown-master-effect", ("master_effect",), "loud", "master_effect",
     re.escape(f"unknown master effect 'loud' (choose {', '.join(MASTER_EFFECTS)})")),
    ("master-effect-case", ("master_effect",), "Clean", "master_effect",
     re.escape("unknown master effect 'Clean' (choose clean, broadcast)")),
    ("master-effect-list", ("master_effect",), ["clean"], "master_effect", "expected a string, got a list"),
]


@pytest.mark.parametrize(("keys", "value", "json_path", "problem"),
                         [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_error_names_file_and_json_path(tmp_path: Path, keys: tuple[Any, ...], value: Any,
                                        json_path: str, problem: str) -> None:
    doc = base_doc()
    if value is _MISSING:
        _del(doc, keys)
    else:
        _set(doc, keys, copy.deepcopy(value))
    path = write_doc(tmp_path, doc)
    with pytest.raises(ProjectFileError, match="^" + re.escape(f"{path}: {json_path}: ") + problem) as info:
        load_project(path)
    assert info.value.path == json_path
    assert info.value.file == str(path)
    assert re.search(problem, info.value.problem)


def test_base_document_is_valid(tmp_path: Path) -> None:
    project = load_project(write_doc(tmp_path, base_doc()))
    assert project.role_names() == ["ANNA", "BOB"]
    assert [line.id for line in project.lines] == ["L1", "L2"]


def test_project_from_dict_names_the_given_file() -> None:
    doc = base_doc()
    doc["lines"][1]["role"] = "HERO"
    with pytest.raises(ProjectFileError) as info:
        project_from_dict(doc, "somewhere/play.radioplay")
    assert str(info.value) == "somewhere/play.radioplay: lines[1].role: unknown role 'HERO'"
    assert info.value.path == "lines[1].role"


@pytest.mark.parametrize(("text", "line", "column"), [
    ('{"format_version": 1,\n  "title": "x",\n  oops\n}', 3, 3),
    ("", 1, 1),
    ('{"format_version": 1,}', 1, 22),
    ("\n\n\n   [1, 2", 4, 9),
])
def test_not_json_names_line_and_column(tmp_path: Path, text: str, line: int, column: int) -> None:
    path = tmp_path / "broken.radioplay"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProjectFileError,
                       match="^" + re.escape(f"{path}: not valid JSON (line {line}, column {column}: ")) as info:
        load_project(path)
    assert info.value.path == ""
    assert info.value.file == str(path)


def test_file_not_found(tmp_path: Path) -> None:
    path = tmp_path / "nope.radioplay"
    with pytest.raises(ProjectFileError, match="^" + re.escape(f"{path}: file not found") + "$") as info:
        load_project(path)
    assert info.value.path == ""
    assert info.value.file == str(path)


def test_not_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.radioplay"
    path.write_bytes(b'{"format_version": 1, "title": "Mis\xe9rables"}')
    with pytest.raises(ProjectFileError, match="^" + re.escape(f"{path}: cannot read")) as info:
        load_project(path)
    assert info.value.path == ""


def test_folder_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(ProjectFileError, match="cannot read") as info:
        load_project(tmp_path)
    assert info.value.file == str(tmp_path)


@pytest.mark.parametrize("root", [[], [1, 2], "project", 3, None, True])
def test_non_object_root(tmp_path: Path, root: Any) -> None:
    path = write_doc(tmp_path, root)
    with pytest.raises(ProjectFileError, match="^" + re.escape(f"{path}: expected an object, got ")) as info:
        load_project(path)
    assert info.value.path == ""


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_number_is_rejected(tmp_path: Path, literal: str) -> None:
    # Python's json accepts these extensions; the loader must not let them into timing.
    path = tmp_path / "nan.radioplay"
    path.write_text('{"format_version": 1, "timing": {"line_gap": ' + literal + "}}", encoding="utf-8")
    with pytest.raises(ProjectFileError, match=re.escape(f"{path}: timing.line_gap: expected a number")) as info:
        load_project(path)
    assert info.value.path == "timing.line_gap"


def test_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        project_from_dict([])


@pytest.mark.parametrize("case", ["unknown-role", "newer-version", "not-json", "root-list", "lexicon-empty"])
def test_loading_malformed_file_does_not_touch_it(tmp_path: Path, case: str) -> None:
    path = tmp_path / "bad.radioplay"
    if case == "not-json":
        path.write_text("{ this is not json", encoding="utf-8")
    elif case == "root-list":
        write_doc(tmp_path, [base_doc()], path.name)
    else:
        doc = base_doc()
        if case == "unknown-role":
            doc["lines"][0]["role"] = "HERO"
        elif case == "newer-version":
            doc["format_version"] = 99
        else:
            doc["lexicon"]["X"] = ""
        write_doc(tmp_path, doc, path.name)
    # an old, exact mtime makes any rewrite visible even on coarse-clock filesystems
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before_bytes, before_stat = path.read_bytes(), os.stat(path)
    with pytest.raises(ProjectFileError):
        load_project(path)
    after = os.stat(path)
    assert path.read_bytes() == before_bytes
    assert after.st_mtime_ns == before_stat.st_mtime_ns
    assert after.st_size == before_stat.st_size
    assert dir_entries(tmp_path) == ["bad.radioplay"]


# --------------------------------------------------------------------------- known gaps


def test_huge_integer_is_a_project_file_error() -> None:
    with pytest.raises(ProjectFileError) as info:
        project_from_dict({"format_version": 1, "timing": {"line_gap": 10 ** 400}})
    assert info.value.path == "timing.line_gap"


def test_unhashable_scene_is_a_project_file_error() -> None:
    doc = base_doc()
    doc["lines"][0]["scene"] = ["S1"]
    with pytest.raises(ProjectFileError) as info:
        project_from_dict(doc)
    assert info.value.path == "lines[0].scene"


def test_fractional_sample_rate_is_rejected() -> None:
    with pytest.raises(ProjectFileError) as info:
        project_from_dict({"format_version": 1, "sample_rate": 44100.5})
    assert info.value.path == "sample_rate"


# --------------------------------------------------------------------------- property tests

# Integers within 64 bits: what any JSON writer other than Python's produces.
_SCALARS = (st.none() | st.booleans() | st.integers(min_value=-2 ** 63, max_value=2 ** 63)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8)
            | st.sampled_from(["ANNA", "BOB", "S1", "L1", "#112233", "piper", ""]))
JSON = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["format_version", "name", "id", "role", "text", "scene", "voice",
                                       "speed", "cast", "lines", "scenes", "notes", "x"]) | st.text(max_size=5),
                      children, max_size=5),
    max_leaves=20,
)
_TOP_KEYS = ["title", "sample_rate", "timing", "cast", "scenes", "lines", "lexicon", "master_effect"]


def _project_or_error(data: Any) -> None:
    try:
        result = project_from_dict(data, "fuzz.radioplay")
    except ProjectFileError as exc:
        assert exc.file == "fuzz.radioplay"
        assert str(exc).startswith("fuzz.radioplay: ")
    else:
        assert isinstance(result, Project)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON)
def test_any_json_is_project_or_error(data: Any) -> None:
    _project_or_error(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.fixed_dictionaries({"format_version": st.just(1)},
                             optional={k: JSON for k in _TOP_KEYS}))
def test_any_json_under_known_keys_is_project_or_error(data: Any) -> None:
    _project_or_error(data)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


_BASE_PATHS = _paths(base_doc())
_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(keys=("lines", 0, "scene"), value=[], delete=False)
@example(keys=("cast", 0, "voice", "speed"), value=10 ** 400, delete=False)
@given(keys=st.sampled_from(_BASE_PATHS), value=_ANY_JSON, delete=st.booleans())
def test_any_change_to_a_valid_document_is_project_or_error(keys: tuple[Any, ...], value: Any,
                                                             delete: bool) -> None:
    """Mutate one place of a valid document: deep fields get fuzzed too."""
    doc = base_doc()
    if delete:
        _del(doc, keys)
    else:
        _set(doc, keys, value)
    _project_or_error(doc)
