"""Issue 51 in the studio: the sounds a screenplay's action lines describe are offered in
the Sounds tab (Accept places a clip where the script describes it, Dismiss keeps it
answered, each one undo step); Sound > Add Sound Lane adds a lane (undoable); a sound file
dropped on the timeline of a play without sound lanes makes a lane and a clip at the drop
time."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMenu

from app.sound.lanes import lane_key
from app.timeline.scene import LaneKind
from engine.project.fileformat import save_project
from engine.project.importers.build import import_script
from engine.project.model import VoiceParams
from engine.synth.sound_library import SoundLibrary, match_suggestions, starter_sound_dir

SCREENPLAY = """\
Title: The Harbour

EXT. HARBOUR WALL - DAWN

Gulls. A diesel engine idles. FRASER coils a rope.

FRASER
Fetch the bait box, and mind the wet steps.

INT. KITCHEN - MORNING

A kettle. Rain on the window. ELSIE pours the tea.

ELSIE
Sit down and drink this while it is hot.
"""


def _harbour(tmp_path: Path, voice: Path) -> Path:
    """The screenplay imported (its suggestions matched to the library), on the tiny voice."""
    script = tmp_path / "harbour.fountain"
    script.write_text(SCREENPLAY, encoding="utf-8")
    project, _ = import_script(script)
    for role in project.cast:
        role.voice = VoiceParams(voice=str(voice))
    path = tmp_path / "harbour.radioplay"
    match_suggestions(project, SoundLibrary.for_project(path))
    save_project(project, path)
    return path


def test_suggested_sounds_are_offered_and_accepting_one_puts_a_clip_on_the_timeline(
        qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(_harbour(tmp_path, tiny_voices["single"]))
    doc, timeline = window.doc, window.timeline
    offered = window.sound_panel.suggested
    assert offered.isVisible() and offered.rows.topLevelItemCount() == 4
    rows = {offered.rows.topLevelItem(i).text(0): offered.rows.topLevelItem(i) for i in range(4)}
    assert rows["Rain on the window"].text(3) == "rain.flac"
    assert rows["Rain on the window"].text(1) == "S2 before line 2"  # where it stands, as the script numbers lines
    assert rows["A kettle"].text(3) == "no sound in the library"  # shown unmatched, never guessed
    assert "\u201cA kettle.\u201d" in rows["A kettle"].toolTip(0)
    # The scenes' weather (issue 52) is offered as their beds; the engine and the kettle are not weather.
    assert (rows["Rain on the window"].text(2), rows["Gulls"].text(2)) == ("ambience bed", "ambience bed")
    assert (rows["A diesel engine idles"].text(2), rows["A kettle"].text(2)) == ("ambience", "effects")
    assert [lane.kind for lane in timeline.lanes()] == [LaneKind.CAST, LaneKind.CAST]  # offered, not placed
    rows["Rain on the window"].setSelected(True)
    offered.accept.click()
    rain = next(c for c in doc.project.sounds if c.cue == "Rain on the window")
    assert rain.file == str(starter_sound_dir() / "rain.flac") and rain.line == "L0002"
    assert lane_key("AMBIENCE") in [lane.name for lane in timeline.lanes()]
    qtbot.waitUntil(lambda: timeline.clip_item(rain.id) is not None, timeout=30_000)
    assert timeline.clip_kind(rain.id) is LaneKind.SOUND
    assert offered.rows.topLevelItemCount() == 3  # answered: no longer offered
    rows = {offered.rows.topLevelItem(i).text(0): offered.rows.topLevelItem(i) for i in range(3)}
    rows["Gulls"].setSelected(True)
    offered.dismiss.click()
    assert next(s for s in doc.project.sound_suggestions if s.text == "Gulls").state == "dismissed"
    assert offered.rows.topLevelItemCount() == 2
    doc.undo.undo()  # the dismissal
    doc.undo.undo()  # the acceptance: its clip and lane go, the suggestion is offered again
    assert doc.project.sounds == [] and doc.project.sound_lanes == []
    assert offered.rows.topLevelItemCount() == 4
    qtbot.waitUntil(lambda: timeline.clip_item(rain.id) is None, timeout=30_000)


def test_add_sound_lane_and_a_file_dropped_where_there_is_no_sound_lane(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(_harbour(tmp_path, tiny_voices["single"]))
    doc, timeline = window.doc, window.timeline
    # A file from the file manager dropped on the timeline of a play without sound lanes.
    bell = starter_sound_dir() / "door-knock.flac"
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(bell))])
    timeline.set_zoom(40.0)
    at = QPointF(timeline.x_of(1.5), timeline.lane_span(1)[0] + 4)
    buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(at.toPoint(), Qt.DropAction.CopyAction, data, buttons, keys)
    QApplication.sendEvent(timeline.viewport(), enter)
    assert enter.isAccepted()  # the timeline takes a sound file anywhere
    drop = QDropEvent(at, Qt.DropAction.CopyAction, data, buttons, keys)
    QApplication.sendEvent(timeline.viewport(), drop)
    assert [lane.name for lane in doc.project.sound_lanes] == ["FX"]
    clip = doc.project.sounds[0]
    assert clip.lane == "FX" and clip.anchor == "time" and abs(clip.offset - 1.5) < 0.05
    assert Path(clip.file).name == "door-knock.flac"  # copied into the project's sounds/ folder
    qtbot.waitUntil(lambda: timeline.clip_item(clip.id) is not None, timeout=30_000)
    doc.undo.undo()  # lane and clip are one step
    assert doc.project.sound_lanes == [] and doc.project.sounds == []
    # Sound > Add Sound Lane > Ambience: a new, empty lane, undoable.
    sound_menu = window.findChild(QMenu, "soundMenu")
    assert sound_menu is not None and sound_menu.menuAction() in window.menuBar().actions()
    lanes_menu = window.findChild(QMenu, "addSoundLaneMenu")
    assert lanes_menu.title() == "Add Sound &Lane" and lanes_menu.menuAction() in sound_menu.actions()
    action = window.findChild(QAction, "addSoundLane_ambience")
    assert action in lanes_menu.actions() and action.text().startswith("&Ambience Lane")
    action.trigger()
    assert [(lane.name, lane.kind) for lane in doc.project.sound_lanes] == [("AMBIENCE", "ambience")]
    assert timeline.lanes()[-1].name == lane_key("AMBIENCE") and timeline.lanes()[-1].kind is LaneKind.SOUND
    action.trigger()
    assert [lane.name for lane in doc.project.sound_lanes] == ["AMBIENCE", "AMBIENCE 2"]
    doc.undo.undo()
    doc.undo.undo()
    assert doc.project.sound_lanes == []
