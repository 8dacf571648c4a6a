"""The export dialog offers again what the producer chose last time (issue "studio" item 8: it
forgot the preset, the folder and the DAW hand-off), and a preset's description is never cut off."""

from __future__ import annotations

from pathlib import Path

from app.dialogs.export import ExportDialog
from tests.support.studio import export_through_dialog, wait_engine


def test_the_next_export_offers_the_last_preset_folder_and_hand_off(qtbot, make_window, tiny_file, tmp_path):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    first = window.files.export()
    assert first.folder() == tiny_file.parent / "out" / tiny_file.stem  # nothing remembered yet
    assert first.preset.currentData() == "custom" and first.daw.currentData() == ""
    first.reject()
    chosen = tmp_path / "elsewhere"
    dialog = window.files.export(chosen)
    dialog.daw.setCurrentIndex(dialog.daw.findData("reaper"))
    dialog.stems.setChecked(False)
    dialog.reject()  # cancelled: nothing is remembered
    again = window.files.export()
    assert again.daw.currentData() == "" and again.stems.isChecked()
    again.reject()
    window.files.export(chosen).reject()
    # An export that runs remembers its choices.
    report = export_through_dialog(qtbot, window, chosen)  # (it picks WAV 32-bit float)
    assert report is not None
    nxt = window.files.export()
    assert nxt.folder() == chosen and nxt.format.currentData() == "wav32f"
    nxt.reject()


def test_a_presets_description_fits_the_dialog(qtbot, tmp_path):
    dialog = ExportDialog(Path(tmp_path))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    for key in ("custom", "acx", "podcast", "ebu-r128"):
        dialog.preset.setCurrentIndex(dialog.preset.findData(key))
        qtbot.wait(10)
        label = dialog.spec
        needed = label.heightForWidth(label.width())
        assert label.height() >= needed, (key, label.height(), needed, label.text())
