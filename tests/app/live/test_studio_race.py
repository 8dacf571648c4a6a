"""Edits from the GUI while the studio plays: the Session only ever sees snapshots.

While a tiny-voice production loops on the null output, thousands of random
edits (text, timing, cast settings, undo and redo) go through the studio's
own undo commands on the GUI thread. Every take those edits can ask for is
voiced beforehand, so any late line would come from handling the edits, not
from waiting for synthesis.
"""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import logging
import random
import time
from pathlib import Path

import numpy as np
import pytest

from app.document.commands import SetLineField, SetRoleField
from engine.audio.mixer import pan_gains
from engine.project.fileformat import save_project
from engine.project.presets import LANE_EFFECTS
from engine.project.timeline import layout
from tests.support.projects import tiny_project
from tests.support.studio import voice_everything, wait_all_ready

EDITS = 3000
ALT_TEXT = " Once more, with feeling."
ALT_PITCH = 2.0


@pytest.fixture
def race_file(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    path = tmp_path / "race.radioplay"
    save_project(tiny_project(tiny_voices["single"], roles=3, lines_per_role=4), path)
    return path


def settle(qtbot, window) -> None:
    """Let typed lines go quiet, then wait until the Session has applied everything."""
    qtbot.wait(500)
    session = window.session()  # hands over the newest snapshot
    assert session.wait_idle(10.0)
    qtbot.wait(150)  # one more tick: lines that went quiet are re-planned
    assert session.wait_idle(10.0)


def prevoice(qtbot, window) -> None:
    """Voice every take the race can ask for: each text with each pitch."""
    doc = window.doc
    texts = {line.id: line.text for line in doc.project.lines}
    pitches = {role.name: role.voice.pitch for role in doc.project.cast}
    for with_alt_text, with_alt_pitch in ((False, False), (True, False), (True, True), (False, True)):
        for line_id, text in texts.items():
            doc.apply_line_field(line_id, "text", text + ALT_TEXT if with_alt_text else text)
        for name, pitch in pitches.items():
            doc.apply_role_field(name, "voice.pitch", pitch + ALT_PITCH if with_alt_pitch else pitch)
        settle(qtbot, window)
        voice_everything(qtbot, window)
    doc.undo.clear()
    settle(qtbot, window)
    wait_all_ready(qtbot, window)


def random_edit(rng: random.Random, window, texts: dict[str, str], pitches: dict[str, float]) -> None:
    doc = window.doc
    kind = rng.random()
    line = rng.choice(doc.project.lines)
    role = rng.choice(doc.project.cast)
    if kind < 0.25:
        text = rng.choice([texts[line.id], texts[line.id] + ALT_TEXT])
        doc.undo.push(SetLineField(doc, line.id, "text", text, merge_key=("text", rng.randrange(3))))
    elif kind < 0.40:
        doc.undo.push(SetLineField(doc, line.id, "pause_before", round(rng.uniform(0.0, 0.6), 3)))
    elif kind < 0.45:
        doc.undo.push(SetLineField(doc, line.id, "overlap", round(rng.uniform(0.0, 0.4), 3)))
    elif kind < 0.70:
        field, value = rng.choice([
            ("gain_db", round(rng.uniform(-12.0, 3.0), 1)), ("pan", round(rng.uniform(-1.0, 1.0), 2)),
            ("mute", rng.random() < 0.3), ("solo", rng.random() < 0.2), ("priority", rng.choice([0.5, 1.0, 2.0])),
            ("effect", rng.choice(sorted(LANE_EFFECTS))),
            ("voice.pitch", pitches[role.name] + rng.choice([0.0, ALT_PITCH]))])
        doc.undo.push(SetRoleField(doc, role.name, field, value, merge=rng.random() < 0.5))
    elif kind < 0.85:
        doc.undo.undo()
    else:
        doc.undo.redo()


def test_thousands_of_edits_while_playing_leave_the_session_equal_to_the_document(
        qtbot, make_window, race_file, caplog):
    caplog.set_level(logging.ERROR, logger="engine")
    window = make_window(race_file, prerender=True)
    from tests.support.studio import wait_engine

    session = wait_engine(qtbot, window)
    texts = {line.id: line.text for line in window.doc.project.lines}
    pitches = {role.name: role.voice.pitch for role in window.doc.project.cast}
    prevoice(qtbot, window)
    calls, late = session.synth.synth_calls, len(session.late_log)  # lines voiced while playing above were late
    duration = max(c.end for c in session.clips())
    window.loop_changed((0.0, duration))
    window.set_playing(True)
    qtbot.waitUntil(lambda: window.engine.state().transport.playing, timeout=10_000)

    rng = random.Random(11)
    positions: list[float] = []
    started = time.monotonic()
    for i in range(EDITS):
        random_edit(rng, window, texts, pitches)
        if i % 25 == 24:
            qtbot.wait(2)  # the event loop turns: snapshots go out, the presenter draws
            state = window.engine.state()
            assert state.transport.playing, f"playback stopped after {i + 1} edits"
            positions.append(state.transport.position_s)
    editing_s = time.monotonic() - started
    settle(qtbot, window)
    wait_all_ready(qtbot, window)

    state = window.engine.state()
    assert state.transport.playing
    assert len(set(positions)) > len(positions) // 2, "the playhead kept moving while edits arrived"
    assert state.transport.late_lines == late, session.late_log[late:]
    assert session.synth.synth_calls == calls, "every take was voiced beforehand"
    assert session.last_error is None
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "errors on the control thread"

    # The final state equals the document.
    window.stop()
    settle(qtbot, window)
    doc = window.doc.project
    assert session.project == doc and session.project is not doc
    assert session.project.lines[0] is not doc.lines[0] and session.project.cast[0] is not doc.cast[0]
    for line in doc.lines:
        plan = session._lines[line.id].plan
        assert plan is not None and plan.key == session.synth.plan(line.text, doc.role(line.role).voice).key
    durations = {c.line_id: c.end - c.start for c in session.clips()}
    expected = [(p.line_id, round(p.start, 6)) for p in layout(doc, durations)]
    assert [(c.line_id, round(c.start, 6)) for c in session.clips()] == expected
    assert not any(c.estimated for c in session.clips())
    assert session.programme.lane_effects == tuple(role.effect for role in doc.cast)
    audible = doc.audible_roles()
    assert session.mixer._audible.tolist() == [role.name in audible for role in doc.cast]
    np.testing.assert_allclose(session.mixer._gains, [pan_gains(r.gain_db, r.pan) for r in doc.cast], rtol=1e-6)
    print(f"race: {EDITS} edits in {editing_s:.1f} s on the GUI thread "
          f"({editing_s / EDITS * 1e3:.2f} ms each, drawing included); late lines 0; "
          f"underruns {state.transport.underruns}")
