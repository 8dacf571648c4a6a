"""``radioplay revise`` on a real production: the import path of ``radioplay import`` (cast on
the bundled Piper voice: the speaker-encoder casting would synthesize every candidate voice,
minutes on a loaded machine, and is not what is tested here), real renders through the clip
cache, a draft with known changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.project.fileformat import load_project, save_project
from engine.project.takes import locked, with_new_take
from engine.synth.production_import import import_production
from tests.support.revisions import HELD_OUT_SCRIPT, write_script

ADDED = "MARA: Then we wait. Nobody walks the coast road at night."


def _draft(lines: list[str]) -> list[str]:
    """Lines 1 and 5 change words, a line comes in after line 3, line 4 goes, line 6 (locked)
    moves to the top (0-based)."""
    out = list(lines)
    out[1] = out[1].replace("the last bus", "the late bus")
    out[5] = out[5].replace("a red umbrella", "a green umbrella")
    assert out[1] != lines[1] and out[5] != lines[5]
    out.insert(4, ADDED)
    del out[5]  # the old line 4
    out.insert(0, out.pop(6))  # the old line 6
    return out


@pytest.mark.integration
def test_revise_keeps_the_unchanged_lines_and_the_next_render_voices_only_the_changes(tmp_path: Path, capsys):
    script = write_script(tmp_path / "harbour.txt", HELD_OUT_SCRIPT)
    project_path = tmp_path / "harbour.radioplay"
    project = import_production(script, suggest=lambda roles, lines, spoken: {}).project  # each role its own Piper joe
    assert {role.voice.backend for role in project.cast} == {"piper"}
    assert len(project.lines) == len(HELD_OUT_SCRIPT)
    # lock two lines' takes (one of them is the line the draft moves), on takes other than the first
    for index in (2, 6):
        line = with_new_take(project.lines[index])
        project.lines[index] = locked(project, line)
    save_project(project, project_path)
    before = {line.id: line for line in load_project(project_path).lines}
    assert main(["render", str(project_path), "-o", str(tmp_path / "first"), "--no-stems"]) == 0
    assert f"({len(before)} synthesized, 0 from cache)" in capsys.readouterr().out

    draft = write_script(tmp_path / "harbour-draft2.txt", _draft(HELD_OUT_SCRIPT))
    assert main(["revise", str(project_path), str(draft), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    ids = list(before)
    assert report["counts"] == {"unchanged": 4, "changed": 2, "split": 0, "merged": 0, "added": 1, "removed": 1,
                                "moved": 1}
    changes = [c for role in report["roles"].values() for kind in role.values() for c in kind]
    assert sorted((c["kind"], c["old_id"]) for c in changes) == sorted(
        [("changed", ids[1]), ("changed", ids[5]), ("added", None), ("removed", ids[4]), ("moved", ids[6])])
    assert report["revoice"]["lines"] == 3 and report["revoice"]["estimated_seconds"] > 0
    assert report["kept"] == {"takes": 5, "locks": 2, "recordings": 0}
    assert report["written"] == str(project_path)

    revised = load_project(project_path)
    after = {line.id: line for line in revised.lines}
    for line_id in (ids[0], ids[2], ids[3], ids[6], ids[7]):  # unchanged, moved included
        old, new = before[line_id], after[line_id]
        assert (new.text, new.role, new.take, new.takes, new.locked) == (old.text, old.role, old.take, old.takes,
                                                                         old.locked)
    assert after[ids[2]].locked is not None and after[ids[6]].locked is not None
    assert revised.lines[0].id == ids[6]  # moved to the top, still itself
    assert "the late bus" in after[ids[1]].text and "green umbrella" in after[ids[5]].text
    assert ids[4] not in after
    [revision] = revised.revisions
    assert [x.id for x in revision.removed] == [ids[4]] and before[ids[4]].text == revision.removed[0].text
    assert sorted(x.id for x in revision.earlier) == sorted([ids[1], ids[5]])
    assert set(revision.changed) == {ids[1], ids[5]} and len(revision.added) == 1

    assert main(["render", str(project_path), "-o", str(tmp_path / "second"), "--no-stems"]) == 0
    out = capsys.readouterr().out
    assert f"{len(revised.lines)} lines (3 synthesized, {len(revised.lines) - 3} from cache)" in out
