"""Issue 57: a direction a new draft adds or changes makes the line changed, to voice,
and the project keeps the draft's direction. ``revise`` said "30 unchanged, 0 to
voice" for a draft adding ``(whispering)`` to every line, and dropped it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.project.fileformat import load_project, save_project
from engine.project.revision import revision_name_problem
from engine.project.revision_apply import revise
from engine.synth.production_import import import_production
from engine.synth.revision_import import revise_from_script
from tests.support.revisions import HELD_OUT_SCRIPT, write_script


def _imported(path: Path) -> object:
    return import_production(path, suggest=lambda roles, lines, spoken: {}).project


def _whispered(lines: list[str]) -> list[str]:
    """Every line's words led by ``(whispering)``, as a writer adds a direction."""
    return [line.replace(": ", ": (whispering) ", 1) for line in lines]


def test_a_direction_added_at_the_start_of_every_line_makes_every_line_changed(tmp_path):
    production = _imported(write_script(tmp_path / "draft1.txt", HELD_OUT_SCRIPT))
    draft = _imported(write_script(tmp_path / "draft2.txt", _whispered(HELD_OUT_SCRIPT)))
    revised = revise(production, draft, name="Blue Revision", date="2026-01-01", colour="#4a7bd0")
    report = revised.report
    assert report.unchanged == 0 and report.count("changed") == len(HELD_OUT_SCRIPT)
    assert len(report.revoice) == len(HELD_OUT_SCRIPT)
    assert all(line.note == "whispering" for line in revised.project.lines)
    assert [x.id for x in revised.project.lines] == [x.id for x in production.lines]  # the same lines, edited
    first = report.changes[0]
    assert first.old_text == production.lines[0].text and first.new_text == f"(whispering) {first.old_text}"
    assert revised.project.revisions[0].earlier[0].note == ""  # the old version kept as history


def test_a_changed_direction_is_a_change_and_a_draft_without_one_keeps_the_producers(tmp_path):
    production = _imported(write_script(tmp_path / "draft1.txt", _whispered(HELD_OUT_SCRIPT)))
    production.lines[1].note = "very quietly"  # the producer's, from the studio's Delivery column
    lines = list(HELD_OUT_SCRIPT)
    lines[0] = lines[0].replace(": ", ": (angry) ", 1)  # changed direction
    lines[2] = lines[2].replace(": ", ": (whispering) ", 1)  # as it was
    draft = _imported(write_script(tmp_path / "draft2.txt", lines))
    revised = revise(production, draft, name="Pink Revision", date="2026-01-02", colour="#e58bb5")
    notes = [line.note for line in revised.project.lines]
    assert notes[0] == "angry" and notes[1] == "very quietly" and notes[2] == "whispering"
    assert revised.report.revoice == [production.lines[0].id]


def test_a_direction_inside_the_words_is_a_change_too(tmp_path):
    production = _imported(write_script(tmp_path / "draft1.txt", HELD_OUT_SCRIPT))
    lines = list(HELD_OUT_SCRIPT)
    lines[3] = lines[3].replace("sit here", "sit here (beat)")
    draft = _imported(write_script(tmp_path / "draft2.txt", lines))
    revised = revise(production, draft, name="Blue Revision", date="2026-01-01", colour="#4a7bd0")
    assert revised.report.revoice == [production.lines[3].id]
    assert "(beat)" in revised.project.lines[3].text


def test_revise_keeps_the_whispering_through_the_file(tmp_path, capsys):
    from engine.cli import main

    path = tmp_path / "p.radioplay"
    save_project(_imported(write_script(tmp_path / "draft1.txt", HELD_OUT_SCRIPT)), path)
    draft = write_script(tmp_path / "draft2.txt", _whispered(HELD_OUT_SCRIPT))
    assert main(["revise", str(path), str(draft)]) == 0
    out = capsys.readouterr().out
    assert f"0 unchanged, {len(HELD_OUT_SCRIPT)} changed; {len(HELD_OUT_SCRIPT)} lines to re-voice" in out
    assert all(line.note == "whispering" for line in load_project(path).lines)


@pytest.mark.parametrize(("name", "problem"), [
    ("x" * 100_000, "100,000 characters; at most 100"),
    ("Blue\x1b[31m", "holds a control character (U+001B)"),
    ("Blue\nRevision", "holds a control character (U+000A)"),
    ("Blue\u2028Revision", "holds a control character (U+2028)"),
])
def test_a_revision_name_is_one_short_line(tmp_path, capsys, name, problem):
    from engine.cli import main

    assert revision_name_problem(name) is not None and problem in str(revision_name_problem(name))
    path = tmp_path / "p.radioplay"
    save_project(_imported(write_script(tmp_path / "draft1.txt", HELD_OUT_SCRIPT)), path)
    before = path.read_bytes()
    assert main(["revise", str(path), str(tmp_path / "draft1.txt"), "--name", name]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err and len(err) < 300 and "\x1b" not in err
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="revision name: "):
        revise_from_script(load_project(path), tmp_path / "draft1.txt", name=name)
