"""Issue 30 item 7: the voice picker and the status bar's play outlook name one speed figure
(engine.sched.cost.CostModel.realtime), before the engine has measured a backend and after."""

from __future__ import annotations

from app.cast.voices import speed_text
from app.live.outlook import short_text
from tests.support.studio import voice_everything, wait_engine


def _outlook_speed(session) -> float:
    outlook = session.outlook()
    assert "piper" in outlook.realtime, (outlook, [(c.line_id, c.estimated) for c in session.clips()])
    return outlook.realtime["piper"]


def test_the_picker_and_the_play_outlook_give_the_same_speed(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    session = wait_engine(qtbot, window)
    qtbot.waitUntil(lambda: len(session.clips()) == len(window.doc.project.lines))
    assert not session.scheduler.cost.measured("piper")  # nothing voiced: the prior, in both
    outlook = _outlook_speed(session)
    assert window.catalog.realtime("piper") == outlook
    assert speed_text(outlook) in window.catalog.speed_label("piper")
    assert speed_text(outlook) in short_text(session.outlook())
    # A prior is not a measurement: the picker does not call it this machine's speed.
    assert "expected" in window.catalog.speed_label("piper") and "here" not in window.catalog.speed_label("piper")

    voice_everything(qtbot, window)
    assert session.scheduler.cost.measured("piper")
    measured = session.scheduler.cost.realtime("piper", session.scheduler.workers)
    assert window.catalog.realtime("piper") == measured
    assert window.catalog.speed_label("piper") == f"Piper · {speed_text(measured)} real time here"
