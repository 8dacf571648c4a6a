"""Placing an effect in its scene's room from the Sounds panel's clip form: a
perspective and a distance, one undoable edit each, drawn on the timeline clip
as a line's position is; an ambience cannot be placed (it is the room)."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import os
from pathlib import Path

from engine.project.staging import Position
from tests.support.studio import scored_file


def test_an_effect_is_placed_from_the_clip_form_and_drawn_on_its_clip(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    form, timeline = window.sound_panel.form, window.timeline
    qtbot.waitUntil(lambda: timeline.clip_item("X2") is not None, timeout=30_000)
    window.timeline.clip_selected.emit("X2")  # the gong, on the FX lane
    assert form.perspective.isEnabled() and form.distance.isEnabled() and form.placement_note.isHidden()
    assert timeline.clip_item("X2").position == ()  # unplaced: no gold line
    form.perspective.setCurrentIndex(form.perspective.findData("distant"))
    form.distance.setValue(8.0)
    gong = window.doc.sound_clip("X2")
    assert gong is not None and gong.perspective == "distant" and gong.position == Position(distance=8.0)
    assert window.doc.undo.undoText() == "Change sound clip"
    qtbot.waitUntil(lambda: timeline.clip_item("X2").position == ((0.0, 0.0, 8.0),), timeout=10_000)
    shot = Path(os.environ.get("RADIOPLAY_SHOT_DIR", tmp_path)) / "sound-clip-form.png"
    window.sound_panel.grab().save(str(shot))
    timeline.viewport().update()
    qtbot.wait(50)
    window.timeline.grab().save(str(shot.with_name("sound-clip-timeline.png")))
    window.doc.undo.undo()
    assert window.doc.sound_clip("X2").position is None and form.distance.value() == 0.0  # the form follows undo
    window.doc.undo.undo()
    assert window.doc.sound_clip("X2").perspective == ""
    qtbot.waitUntil(lambda: timeline.clip_item("X2").position == (), timeout=10_000)


def test_an_ambience_is_not_placed(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    form = window.sound_panel.form
    window.timeline.clip_selected.emit("X1")  # the rain, on the AMBIENCE lane
    assert not form.perspective.isEnabled() and not form.distance.isEnabled()
    assert not form.placement_note.isHidden() and "an ambience is the room" in form.placement_note.text()
