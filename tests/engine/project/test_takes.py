"""Takes and locks: the project file records them, planning honours them,
the session re-voices a line when its take changes and keeps a locked line
when its role is recast, and export plays the chosen take."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from engine.audio.sinks import NullSink
from engine.project.fileformat import (
    ProjectFileError,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from engine.project.model import Line, Project
from engine.project.snapshot import with_line, with_role
from engine.project.takes import locked, takes_of, unlocked, voice_of, with_new_take, with_take
from engine.session import LineState, Session
from engine.synth.pipeline import plan_line, plan_lines
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project
from tests.support.session import states, wait_for


@pytest.fixture
def project(tiny_voices: dict[str, Path]) -> Project:
    return tiny_project(tiny_voices["single"], roles=2, lines_per_role=2)


def test_new_takes_choose_the_next_seed_and_keep_the_others() -> None:
    line = Line("L1", "A", "Hello.")
    assert takes_of(line) == (0,)
    second = with_new_take(line)
    third = with_new_take(second)
    assert (second.take, third.take, takes_of(third)) == (1, 2, (0, 1, 2))
    back = with_take(third, 0)
    assert back.take == 0 and takes_of(back) == (0, 1, 2)
    assert line.take == 0 and line.takes == ()  # never changed in place


def test_a_lock_keeps_the_voice_the_take_was_made_with(project: Project) -> None:
    line = project.lines[0]
    held = locked(project, line)
    recast = with_role(project, line.role, voice=project.role(line.role).voice.with_changes(speed=1.3))
    assert voice_of(recast, held) == project.role(line.role).voice
    assert voice_of(recast, unlocked(held)).speed == 1.3


def test_the_file_records_takes_and_locks(project: Project, tmp_path: Path) -> None:
    line = locked(project, with_take(with_new_take(project.lines[1]), 7))
    project.lines[1] = line
    path = tmp_path / "p.radioplay"
    save_project(project, path)
    saved = json.loads(path.read_text())["lines"]
    assert "take" not in saved[0] and "locked_voice" not in saved[0]  # untouched lines stay as they were
    assert (saved[1]["take"], saved[1]["takes"]) == (7, [0, 1, 7])
    again = load_project(path)
    assert again.lines[1] == line and again.lines[0] == project.lines[0]


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("take", -1, "lines[0].take: -1 is out of range"),
    ("take", 1.5, "lines[0].take: expected a whole-number seed"),
    ("takes", [0, "x"], "lines[0].takes[1]: expected a whole-number seed"),
    ("takes", [3, 3], "lines[0].takes[1]: take 3 is listed twice"),
    ("locked_voice", {"speed": 99}, "lines[0].locked_voice.speed: 99 is out of range"),
])
def test_bad_takes_in_a_file_are_named(project: Project, field: str, value: object, problem: str) -> None:
    data = project_to_dict(project)
    data["lines"][0][field] = value
    with pytest.raises(ProjectFileError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        project_from_dict(data, "drama.radioplay")


def test_planning_uses_the_chosen_take_and_the_lock(project: Project, tiny_synth: ClipSynthesizer) -> None:
    base = plan_lines(project, tiny_synth)
    line = project.lines[0]
    other = plan_line(tiny_synth, project, with_take(line, 3))
    assert other.key != base[line.id].key and other.settings.seed == 3
    assert plan_line(tiny_synth, project, line, seed=3).key == other.key
    held = locked(project, line)
    recast = with_role(project, line.role, voice=project.role(line.role).voice.with_changes(pitch=5.0))
    assert plan_line(tiny_synth, recast, held).key == base[line.id].key
    assert plan_line(tiny_synth, recast, line).key != base[line.id].key


@pytest.fixture
def session_factory(tiny_synth: ClipSynthesizer) -> Iterator[Callable[..., Session]]:
    made: list[Session] = []

    def make(project: Project, **kwargs: object) -> Session:
        session = Session(project, None, sink=NullSink(48_000, speed=4.0), synth=tiny_synth, **kwargs)  # type: ignore[arg-type]
        made.append(session)
        assert session.wait_idle(30.0)
        return session

    yield make
    for session in made:
        session.close()


def test_choosing_a_take_revoices_the_line_and_a_locked_line_survives_a_recast(
        session_factory: Callable[..., Session], project: Project) -> None:
    session = session_factory(project)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="every line pre-rendered")
    calls = session.synth.synth_calls
    first, second = project.lines[0], project.lines[2]  # both ROLE0's
    assert first.role == second.role
    project = with_line(project, first.id, take=4, takes=(0, 4))
    project = with_line(project, second.id, locked=project.role(second.role).voice)
    session.update(project)
    wait_for(lambda: session.synth.synth_calls == calls + 1, what="the new take voiced")
    assert session.wait_idle()
    calls = session.synth.synth_calls
    role = project.role(first.role)
    session.update(with_role(project, role.name, voice=role.voice.with_changes(pitch=role.voice.pitch + 2)))
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="the recast line ready")
    # Only the unlocked line of the recast role is voiced again.
    assert session.synth.synth_calls == calls + 1


def test_a_take_is_auditioned_without_being_chosen(session_factory: Callable[..., Session],
                                                    project: Project) -> None:
    session = session_factory(project, prerender=False)
    session.audition_take(project.lines[0].id, 9)
    wait_for(lambda: session.synth.synth_calls >= 1, what="the take auditioned")
    key = plan_line(session.synth, project, project.lines[0], seed=9).key
    wait_for(lambda: key in session.synth.cache, what="the take cached")
    assert session.project.lines[0].take == 0


def test_export_plays_the_chosen_take(project: Project, tiny_synth: ClipSynthesizer, tmp_path: Path) -> None:
    from engine.export.lines import release_clips, synthesize_lines

    project.lines[0] = with_take(project.lines[0], 5)
    result = synthesize_lines(project, tiny_synth)
    try:
        assert result.plans[project.lines[0].id].key == plan_line(tiny_synth, project, project.lines[0], 5).key
        assert result.plans[project.lines[0].id].settings.seed == 5
        assert isinstance(result.clips[project.lines[0].id], np.ndarray)
    finally:
        release_clips(tiny_synth, result)
