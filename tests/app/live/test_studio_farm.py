"""The studio's export on a Ray cluster: the dialog's field, remembered, and an
unreachable cluster as one line before anything is written. (Voicing on a
local Ray instance is tests/engine/farm/test_farm.py's; the studio hands the same address
to the same open_farm.)"""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import socket

from app.dialogs.export import ExportDialog
from tests.support.paths import ARTIFACTS
from tests.support.studio import wait_engine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_export_on_an_unreachable_cluster_is_one_line_and_the_address_is_remembered(qtbot, make_window, tiny_file,
                                                                                   tmp_path):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    dialog = window.files.export(tmp_path / "out")
    assert isinstance(dialog, ExportDialog) and dialog.cluster() is None  # empty: this computer
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    dialog.cluster_edit.setText(f"  {address} ")
    artifacts = ARTIFACTS
    artifacts.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(artifacts / "export-dialog-ray.png"))
    window.last_error = ""
    dialog.accept()
    qtbot.waitUntil(lambda: "Ray cluster" in window.last_error, timeout=30_000)
    assert f"cannot reach the Ray cluster at {address} ({address}): connection refused" in window.last_error
    assert not (tmp_path / "out").exists()
    assert window.settings.value("export/ray") == address
    again = window.files.export(tmp_path / "out")
    assert again is not None and again.cluster() == address
    again.cluster_edit.clear()
    again.reject()
