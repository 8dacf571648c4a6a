"""Revising a production grows linearly with its lines (issue 31: "linear or n log n"),
measured as tests/contracts/test_linear_time.py does: the same work at n and 4n, a ratio
of thread CPU time, never a wall-clock threshold. The drafts are the hard shapes for an
aligner: the usual scattered edits and moves, a script rewritten end to end (no anchor
at all), and a script of one repeated line with an edit in the middle (no unique line)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.project.model import Line, Project, Role, Scene
from engine.project.revision_apply import revise
from tests.support.growth import LINEAR, growth

Script = list[tuple[str, str]]
ROLES = [f"ROLE{k}" for k in range(9)]


def _script(n: int) -> Script:
    return [(ROLES[k % len(ROLES)], f"Line {k}: the {k % 13} boats came in by the {k % 7} harbour lights.")
            for k in range(n)]


def _scattered(old: Script) -> Script:
    new = [(role, text.replace("boats", "ships")) if k % 10 == 3 else (role, text)
           for k, (role, text) in enumerate(old) if k % 17 != 5]
    moved = [new.pop(k) for k in range(len(new) - 1, 0, -23)]
    return new + moved + [("ROLE1", f"An added line {k}.") for k in range(len(old) // 20)]


def _rewritten(old: Script) -> Script:
    return [(role, f"Something else entirely, number {k * 7919 % 10007}.") for k, (role, _) in enumerate(old)]


def _repeated(n: int) -> Script:
    return [("ROLE0", "Yes.")] * n


def _repeated_draft(old: Script) -> Script:
    new = list(old)
    new[len(new) // 2] = ("ROLE0", "Yes, yes.")
    return new[1:] + [("ROLE1", "No.")]


def _project(lines: Script) -> Project:
    return Project(cast=[Role(name=r) for r in ROLES], scenes=[Scene("S1")],
                   lines=[Line(id=f"L{k:06d}", role=r, text=t, scene="S1") for k, (r, t) in enumerate(lines)])


DRAFTS: dict[str, tuple[Callable[[int], Script], Callable[[Script], Script], int]] = {
    "scattered edits, moves, inserts, deletes": (_script, _scattered, 500),
    "rewritten end to end": (_script, _rewritten, 300),
    "one repeated line": (_repeated, _repeated_draft, 2000),
}


@pytest.mark.parametrize(("make", "edit", "n"), DRAFTS.values(), ids=DRAFTS.keys())
def test_revising_is_linear_in_the_lines(make: Callable[[int], Script], edit: Callable[[Script], Script],
                                         n: int) -> None:
    def pair(size: int) -> tuple[Project, Project]:
        old = make(size)
        return _project(old), _project(edit(old))

    def run(projects: tuple[Project, Project]) -> object:
        return revise(projects[0], projects[1], name="Blue Revision", date="2026-12-01", colour="#4a7bd0")

    assert growth(run, pair, n) < LINEAR
