"""A line's ``read_takes`` in the .radioplay file: written relative to the project, read
back equal, and every bad entry refused in one line naming its JSON path."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from engine.project.fileformat import ProjectFileError, load_project, save_project
from engine.project.model import Line, Project, Role, Scene
from engine.project.read_takes import ReadTake
from engine.project.takes import read_take_of, with_read_take

DIGEST = "ab" * 32


def _saved(tmp_path: Path) -> Path:
    line = Line("L1", "JUNE", "Needle's down.", "S1")
    take = ReadTake(7, str(tmp_path / "takes" / "L1.read-abababababab.wav"), DIGEST, line.text,
                    ((0.12, 0.48, 4), (0.5, 0.9, 4)), 100, 40)
    project = Project(title="Read", cast=[Role(name="JUNE")], scenes=[Scene("S1")],
                      lines=[with_read_take(line, take), Line("L2", "JUNE", "Owen?", "S1")])
    path = tmp_path / "read.radioplay"
    save_project(project, path)
    return path


def test_read_takes_round_trip_relative_to_the_project(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    raw = json.loads(path.read_text())
    entry = raw["lines"][0]["read_takes"][0]
    assert entry["read"] == "takes/L1.read-abababababab.wav" and entry["take"] == 7
    assert "read_takes" not in raw["lines"][1]  # only a line that has one
    line = load_project(path).line("L1")
    take = read_take_of(line)
    assert line.take == 7 and take is not None and take.read == str(tmp_path / "takes" / "L1.read-abababababab.wav")
    assert (take.timing, take.intonation, take.words) == (100, 40, ((0.12, 0.48, 4), (0.5, 0.9, 4)))
    assert read_take_of(line, line.takes[0]) is None  # the first take is a plain one
    with pytest.raises(ValueError, match="already has a take 7"):
        with_read_take(line, replace(take))


def test_a_revision_that_changes_a_directed_line_leaves_its_read_in_the_history(tmp_path: Path) -> None:
    from engine.project.revision_apply import revise

    production = load_project(_saved(tmp_path))
    draft = Project(cast=[Role(name="JUNE")], scenes=[Scene("S1")],
                    lines=[Line("D1", "JUNE", "Needle's up.", "S1"), Line("D2", "JUNE", "Owen?", "S1")])
    revised = revise(production, draft, name="Blue Revision", date="2026-12-07", colour="#4a7bd0").project
    line = revised.line("L1")
    assert line.text == "Needle's up." and line.read_takes == () and read_take_of(line) is None
    assert read_take_of(revised.revisions[0].earlier[0]) is not None  # the old words' take, kept as history


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("take", 99, "lines[0].read_takes[0].take: expected one of the line's takes [0, 7], got 99"),
    ("timing", 140, "lines[0].read_takes[0].timing: "),
    ("intonation", 50.5, "lines[0].read_takes[0].intonation: expected a whole percentage, got 50.5"),
    ("sha256", "XYZ", "lines[0].read_takes[0].sha256: expected the read's SHA-256"),
    ("read", "", "lines[0].read_takes[0].read: expected the path of the read's WAV file"),
    ("words", [[0.5, 0.9, 4], [0.1, 0.2, 4]], "lines[0].read_takes[0].words[1]: expected [start, end, phonemes]"),
    ("words", [[0.1, 0.2, 0]], "lines[0].read_takes[0].words[0]: expected [start, end, phonemes]"),
    ("words", [], "lines[0].read_takes[0].words: expected 1 to 2000 words, got 0"),
])
def test_a_bad_read_take_is_refused_naming_its_path(tmp_path: Path, key: str, value: object, problem: str) -> None:
    path = _saved(tmp_path)
    raw = json.loads(path.read_text())
    raw["lines"][0]["read_takes"][0][key] = value
    path.write_text(json.dumps(raw))
    with pytest.raises(ProjectFileError) as caught:
        load_project(path)
    message = str(caught.value)
    assert problem in message and "\n" not in message, message
