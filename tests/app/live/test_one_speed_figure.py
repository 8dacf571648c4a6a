"""Issue 30 item 7: the voice picker and the status bar's play outlook name one speed figure
(engine.sched.cost.CostModel.realtime), measured here as the engine loads its voices."""

from __future__ import annotations

from app.cast.voices import VoiceCatalog, speed_text
from engine.sched.cost import prior_realtime
from tests.support.studio import voice_everything, wait_engine


def _outlook_speed(session) -> float:
    outlook = session.outlook()
    assert "piper" in outlook.realtime, (outlook, [(c.line_id, c.estimated) for c in session.clips()])
    return outlook.realtime["piper"]


def test_the_picker_and_the_play_outlook_give_the_same_speed(qtbot, make_window, tiny_file):
    # With no engine running, a backend's speed is its prior, which is not this machine's.
    alone = VoiceCatalog()
    assert alone.realtime("piper") == prior_realtime("piper")
    assert "expected" in alone.speed_label("piper") and "here" not in alone.speed_label("piper")

    window = make_window(tiny_file)
    session = wait_engine(qtbot, window)
    qtbot.waitUntil(lambda: len(session.clips()) == len(window.doc.project.lines))
    assert session.wait_idle(60)
    # The engine measures each engine it has lines to voice in as its voices load (issue 54):
    # the play outlook and the picker name that one figure, before anything is voiced.
    assert session.scheduler.cost.measured("piper")
    outlook = _outlook_speed(session)
    assert window.catalog.realtime("piper") == outlook
    assert window.catalog.speed_label("piper") == f"Piper · {speed_text(outlook)} real time here"

    voice_everything(qtbot, window)
    measured = session.scheduler.cost.realtime("piper", session.scheduler.workers)
    assert window.catalog.realtime("piper") == measured
    assert window.catalog.speed_label("piper") == f"Piper · {speed_text(measured)} real time here"
