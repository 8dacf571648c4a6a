"""``radioplay revise``'s flags and errors (no synthesis: a revision only rewrites the project)."""

from __future__ import annotations

import json
from pathlib import Path

from engine.cli import main
from engine.project.fileformat import load_project, save_project
from engine.synth.production_import import import_production
from tests.support.revisions import HELD_OUT_SCRIPT, write_script


def _saved(tmp_path: Path) -> Path:
    script = write_script(tmp_path / "harbour.txt", HELD_OUT_SCRIPT)
    path = tmp_path / "harbour.radioplay"
    save_project(import_production(script, suggest=lambda roles, lines, spoken: {}).project, path)
    return path


def test_dry_run_writes_nothing_and_output_leaves_the_project_as_it_was(tmp_path: Path, capsys):
    path = _saved(tmp_path)
    original = path.read_bytes()
    draft = write_script(tmp_path / "draft.txt", [HELD_OUT_SCRIPT[0].replace("late", "early"), *HELD_OUT_SCRIPT[1:]])
    assert main(["revise", str(path), str(draft), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "1 changed" in out and "Dry run: nothing written" in out
    assert "'The harbour lights are out again, and the ferry is late.' -> " in out
    assert path.read_bytes() == original
    other = tmp_path / "revised" / "harbour-2.radioplay"
    assert main(["revise", str(path), str(draft), "-o", str(other), "--json", "--name", "Draft 2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["written"] == str(other) and report["revision"]["name"] == "Draft 2"
    assert report["counts"]["changed"] == 1 and report["counts"]["unchanged"] == len(HELD_OUT_SCRIPT) - 1
    assert path.read_bytes() == original
    assert load_project(other).revisions[0].name == "Draft 2"


def test_bad_input_gets_one_line_naming_the_file(tmp_path: Path, capsys):
    path = _saved(tmp_path)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing but a comment\n")
    assert main(["revise", str(path), str(empty)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"radioplay: error: {empty}: no dialogue found; a revision needs the new draft's lines"
    assert main(["revise", str(tmp_path / "missing.radioplay"), str(empty)]) == 1
    assert capsys.readouterr().err.strip() == f"radioplay: error: {tmp_path / 'missing.radioplay'}: file not found"
    assert main(["revise", str(path), str(tmp_path / "missing.txt")]) == 1
    assert capsys.readouterr().err.strip().endswith("missing.txt: no such script file")
    assert load_project(path).revisions == []
