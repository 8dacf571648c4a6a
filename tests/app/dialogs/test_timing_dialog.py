"""Edit > Project Timing…: the gaps and the lengths of (beat) / (pause) / (long pause)
in a real window offscreen with its real Session (null output): the change is one
undo step, saved in the project file, re-voices the lines that use the direction
(their clip is keyed by the pause) and re-lays out the lines after a changed gap.
Screenshot of the dialog at its default size."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialogButtonBox, QLabel

from app.dialogs.timing import TimingDialog
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene
from engine.synth.pipeline import plan_line
from tests.support.studio import wait_engine

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def project() -> Project:
    return Project(cast=[Role("TOM"), Role("LUCY")], scenes=[Scene("S1", "INT. STATION - NIGHT")], lines=[
        Line("L1", "TOM", "Tickets, please. (beat) Both of you.", "S1"),
        Line("L2", "LUCY", "We have them here.", "S1"),
        Line("L3", "TOM", "Then show me. (long pause) Thank you.", "S1"),
    ])


def open_dialog(qtbot, window) -> TimingDialog:
    window.actions_["timing"].trigger()
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(TimingDialog)), timeout=5_000)
    dialog = next(d for d in window.findChildren(TimingDialog) if d.isVisible())
    return dialog


def test_timing_dialog_changes_pauses_undoably_saves_and_revoices(qtbot, make_window, tmp_path: Path) -> None:
    path = tmp_path / "station.radioplay"
    save_project(project(), path)
    window = make_window(path, prerender=True)  # every line voiced ahead, as after a change
    session = wait_engine(qtbot, window)
    doc = window.doc
    l1_key = plan_line(session.synth, doc.project, doc.project.line("L1")).key
    l2_key = plan_line(session.synth, doc.project, doc.project.line("L2")).key
    qtbot.waitUntil(lambda: {c.line_id for c in session.clips() if not c.estimated} >= {"L1", "L2"}, timeout=120_000)
    l2_start = next(c.start for c in session.clips() if c.line_id == "L2")

    dialog = open_dialog(qtbot, window)
    assert dialog.spins["beat"].value() == 0.6 and dialog.spins["long_pause"].value() == 2.0
    used = {name: dialog.findChild(QLabel, f"timing_{name}_used").text() for name in ("beat", "pause", "long_pause")}
    assert used == {"beat": "used by 1 line", "pause": "not used yet", "long_pause": "used by 1 line"}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert dialog.grab().save(str(ARTIFACTS / "timing-dialog.png"))
    dialog.spins["beat"].setValue(1.5)
    dialog.spins["line_gap"].setValue(1.35)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()

    assert doc.project.timing.beat == 1.5 and doc.project.timing.line_gap == 1.35
    assert doc.project.timing.long_pause == 2.0
    assert "timing" in doc.undo.undoText().lower() and "(beat)" in doc.undo.undoText()
    # L1 says "(beat)": its clip is a new one, made with the longer pause; L2 is not re-voiced
    # but moves by the wider gap.
    new_key = plan_line(session.synth, doc.project, doc.project.line("L1")).key
    assert new_key != l1_key
    assert plan_line(session.synth, doc.project, doc.project.line("L2")).key == l2_key
    qtbot.waitUntil(lambda: new_key in session.synth.cache, timeout=120_000)
    old_clip, new_clip = session.synth.cache.get(l1_key, promote=False), session.synth.cache.get(new_key, promote=False)
    assert old_clip is not None and new_clip is not None
    grown = (len(new_clip) - len(old_clip)) / doc.project.sample_rate
    assert abs(grown - 0.9) < 0.05  # the beat inside L1, 0.6 -> 1.5 s
    # L2 starts after L1's longer clip and the wider gap (0.35 -> 1.35 s).
    qtbot.waitUntil(lambda: any(c.line_id == "L2" and abs(c.start - (l2_start + grown + 1.0)) < 0.02
                                for c in session.clips()), timeout=60_000)

    doc.undo.undo()
    assert doc.project.timing.beat == 0.6 and doc.project.timing.line_gap == 0.35
    doc.undo.redo()
    assert window.files.save()
    saved = load_project(path)
    assert saved.timing.beat == 1.5 and saved.timing.line_gap == 1.35 and saved.timing.pause == 1.0

    dialog = open_dialog(qtbot, window)  # opens on the project's values; Cancel changes nothing
    assert dialog.spins["beat"].value() == 1.5
    depth = doc.undo.count()
    dialog.spins["beat"].setValue(0.2)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert doc.project.timing.beat == 1.5 and doc.undo.count() == depth
