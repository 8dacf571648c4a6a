"""Lexicon edits in a live Session: only the lines whose entries changed are
voiced again, and a bad entry fails only the line that uses it. Real
scheduler, tiny generated voices, the null sink."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from engine.audio.sinks import NullSink
from engine.project.model import Project
from engine.project.snapshot import freeze, with_role
from engine.session import LineState, Session
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project
from tests.support.session import states, wait_for


@pytest.fixture
def session(tiny_voices: dict[str, Path], tiny_synth: ClipSynthesizer) -> Iterator[Session]:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=3)
    texts = ["Llanfair is far.", "Llanfair again.", "Nothing to see.", "Penrose, Llanfair.", "Far away.", "Quiet."]
    for line, text in zip(project.lines, texts, strict=True):
        line.text = text
    project.lexicon = {"Llanfair": "Clan vire"}
    session = Session(freeze(project), None, sink=NullSink(48_000, speed=4.0), synth=tiny_synth)
    assert session.wait_idle(30.0)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="every line prerendered")
    yield session
    session.close()


def _voiced_after(session: Session, project: Project) -> set[str]:
    """Apply ``project``; the ids of the lines synthesized again."""
    before = {lid: session._lines[lid].clip for lid in session._lines}
    calls = session.synth.synth_calls
    session.update(project)
    session.wait_idle(30.0)
    wait_for(lambda: all(s in (LineState.READY, LineState.FAILED) for s in states(session).values()),
             what="the edit voiced")
    changed = {lid for lid, clip in before.items() if session._lines[lid].clip is not clip}
    assert session.synth.synth_calls - calls == len(changed - failed(session))
    return changed


def failed(session: Session) -> set[str]:
    return {lid for lid, s in states(session).items() if s is LineState.FAILED}


def test_a_role_entry_revoices_only_that_roles_lines_that_use_the_word(session: Session) -> None:
    project = session.project
    # ROLE1 speaks L0002, L0004, L0006; L0002 and L0004 say Llanfair.
    assert _voiced_after(session, with_role(project, "ROLE1", lexicon={"llanfair": "Thlan vire"})) == {
        "L0002", "L0004"}
    # The project's entry now reaches only ROLE0's line: ROLE1's own entry wins.
    project = session.project
    assert _voiced_after(session, replace(project, lexicon={"Llanfair": "Hlan veer"})) == {"L0001"}
    # An entry no line uses voices nothing.
    project = session.project
    assert _voiced_after(session, replace(project, lexicon={**project.lexicon, "Zebra": "Zeb ra"})) == set()


def test_a_bad_entry_fails_its_line_with_the_reason_and_the_others_still_play(session: Session) -> None:
    project = with_role(session.project, "ROLE0", lexicon={"far": "?!"})
    session.update(project)
    session.wait_idle(30.0)
    status = session.line_status()
    assert status["L0001"].state is LineState.FAILED
    assert status["L0001"].error == "lexicon entry 'far': the respelling '?!' says nothing (only punctuation or markup)"
    # ROLE0 also says "Far away." (L0005); ROLE1's lines never read ROLE0's entry. The rest still play.
    assert failed(session) == {"L0001", "L0005"}
    assert all(status[lid].state is LineState.READY for lid in status if lid not in ("L0001", "L0005"))
    # Fixing the entry voices those lines.
    assert _voiced_after(session, with_role(project, "ROLE0", lexicon={"far": "fahr"})) == {"L0001", "L0005"}
    assert failed(session) == set()
