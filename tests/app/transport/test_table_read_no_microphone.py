"""Transport > Table Read on a machine with no microphone: the dialog says so and what to do
instead, and refuses to start a read that could only fail."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.transport.table_read import NO_MICROPHONE, SIMULATE, TableReadDialog
from tests.support.audio_server import no_sound_devices, reinit_sounddevice
from tests.support.paths import SAMPLE


@pytest.fixture
def no_microphone(tmp_path: Path) -> Iterator[None]:
    """PortAudio initialized again under an ALSA configuration with no usable device, and again
    as it was afterwards (it lists devices only when it initializes)."""
    saved = os.environ.get("ALSA_CONFIG_PATH")
    os.environ["ALSA_CONFIG_PATH"] = str(no_sound_devices(tmp_path))
    reinit_sounddevice()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("ALSA_CONFIG_PATH", None)
        else:
            os.environ["ALSA_CONFIG_PATH"] = saved
        reinit_sounddevice()


def test_without_a_microphone_the_dialog_says_so_and_offers_recordings(qtbot, no_microphone, tmp_path):
    dialog = TableReadDialog(["MAGGIE", "OWEN"], SAMPLE)
    qtbot.addWidget(dialog)
    assert dialog.device.itemText(0) == "No microphone found"
    assert [dialog.device.itemData(i) for i in range(dialog.device.count())] == [None, SIMULATE]
    dialog.roles.findItems("MAGGIE", Qt.MatchFlag.MatchExactly)[0].setCheckState(Qt.CheckState.Checked)
    dialog.buttons.accepted.emit()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert dialog.error.text() == NO_MICROPHONE
    dialog.device.setCurrentIndex(dialog.device.findData(SIMULATE))  # the way out it names
    dialog.folder.setText(str(tmp_path))
    dialog.buttons.accepted.emit()
    assert dialog.result() == dialog.DialogCode.Accepted
