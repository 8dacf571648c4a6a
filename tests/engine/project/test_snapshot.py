"""Project snapshots: what the studio hands the Session instead of its working Project."""

from __future__ import annotations

import copy
import time

from engine.project.model import Line, Project, Role, Scene
from engine.project.snapshot import freeze, refresh, with_line, with_role


def big_project(lines: int = 1000) -> Project:
    return Project(title="Big", cast=[Role(name=f"R{i}") for i in range(10)], scenes=[Scene("S1", "Hall", ["n"])],
                   lines=[Line(id=f"L{i:04d}", role=f"R{i % 10}", scene="S1",
                               text=f"Line {i}, a sentence of ordinary length for a radio play.") for i in range(lines)],
                   lexicon={"Radioplay": "ray dee oh play"})


def objects(project: Project) -> set[int]:
    """Every mutable object in a project (the lists and the records in them)."""
    found = {id(project), id(project.cast), id(project.lines), id(project.scenes), id(project.lexicon),
             id(project.timing)}
    found |= {id(x) for x in [*project.cast, *project.lines, *project.scenes]}
    found |= {id(s.notes) for s in project.scenes}
    return found


def test_a_snapshot_shares_no_mutable_object_with_the_working_copy() -> None:
    work = big_project(20)
    snap = freeze(work)
    assert snap == work
    assert objects(snap).isdisjoint(objects(work))
    work.lines[3].text = "changed in the editor"
    work.cast[0].gain_db = -6.0
    work.scenes[0].notes.append("more")
    work.lexicon["x"] = "y"
    assert snap == freeze(big_project(20))  # the snapshot did not move


def test_refresh_copies_only_what_changed_and_shares_the_rest() -> None:
    work = big_project(50)
    snap = freeze(work)
    assert refresh(snap, work) is snap  # nothing changed: the same snapshot
    work.lines[7].text = "A new reading."
    new = refresh(snap, work, lines=["L0007"])
    assert new == work and new is not snap
    assert new.lines[7] is not work.lines[7] and new.lines[7] is not snap.lines[7]
    assert all(a is b for i, (a, b) in enumerate(zip(new.lines, snap.lines, strict=True)) if i != 7)
    assert new.cast is snap.cast and new.scenes is snap.scenes and new.lexicon is snap.lexicon
    assert snap.lines[7].text != "A new reading."  # the old snapshot is untouched
    assert objects(new).isdisjoint(objects(work))


def test_refresh_finds_structural_changes_without_a_hint() -> None:
    work = big_project(30)
    snap = freeze(work)
    del work.lines[4]
    work.lines.insert(0, Line(id="NEW", role="R1", text="First!"))
    work.cast[2].name = "RENAMED"
    for line in work.lines:
        if line.role == "R2":
            line.role = "RENAMED"
    work.master_effect = "clean"
    new = refresh(snap, work)
    assert new == work and objects(new).isdisjoint(objects(work))
    kept = {id(x) for x in snap.lines}
    assert sum(id(x) in kept for x in new.lines) == 29 - 3  # all but the new line and R2's three
    assert new.cast[0] is snap.cast[0] and new.cast[2] is not snap.cast[2]


def test_a_wrong_hint_falls_back_to_comparing_everything() -> None:
    work = big_project(10)
    snap = freeze(work)
    work.lines.pop()
    work.lines[0].text = "x"
    assert refresh(snap, work, lines=["L0009"]) == work


def test_functional_edits_leave_their_snapshot_alone() -> None:
    snap = freeze(big_project(5))
    before = copy.deepcopy(snap)
    edited = with_role(with_line(snap, "L0002", text="t", pause_before=1.0), "R3", mute=True)
    assert snap == before
    assert edited.line("L0002").text == "t" and edited.role("R3").mute
    assert edited.lines[0] is snap.lines[0]


def test_an_edit_of_a_thousand_line_project_is_cheap() -> None:
    """One keystroke in a 1,000-line script costs well under a millisecond to hand over."""
    work = big_project(1000)
    snap = freeze(work)
    runs = 200
    t0 = time.perf_counter()
    for i in range(runs):
        work.lines[500].text = f"typed {i}"
        snap = refresh(snap, work, lines=["L0500"])
    per_edit = (time.perf_counter() - t0) / runs
    assert snap == work
    assert per_edit < 2e-3, f"{per_edit * 1e3:.2f} ms per edit"
