"""Issue 57: the studio's Save As, Save and lexicon export obey the rule of every output
path (engine/output_paths.py). The file dialog's "replace it?" is the explicit overwrite;
a FIFO, a folder or a link out of the folder is still refused, with the reason shown and
the file that was there unchanged. Real window offscreen, tiny voices."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine.project.fileformat import load_project


def _state(path: Path) -> tuple[int, int, int, bytes | None]:
    found = os.lstat(path)
    return (stat.S_IFMT(found.st_mode), found.st_ino, found.st_size,
            path.read_bytes() if stat.S_ISREG(found.st_mode) else None)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_save_as_refuses_a_fifo_a_folder_and_a_link_out_of_its_folder(qtbot, make_window, tiny_file, tmp_path):
    window = make_window(tiny_file)
    window.doc.project.title = "Edited"
    (tmp_path / "elsewhere").mkdir()
    outside = tmp_path / "elsewhere" / "kept.radioplay"
    outside.write_bytes(tiny_file.read_bytes())
    (tmp_path / "desk").mkdir()
    fifo = tmp_path / "desk" / "pipe.radioplay"
    os.mkfifo(fifo)
    folder = tmp_path / "desk" / "folder.radioplay"
    folder.mkdir()
    link = tmp_path / "desk" / "link.radioplay"
    link.symlink_to(outside)
    for target, reason in ((fifo, "is a named pipe (FIFO), not a regular file"), (folder, "is a folder"),
                           (link, "is a symbolic link leading out of its folder")):
        before = _state(target)
        window.last_error = ""
        assert not window.files.save_as(target)
        assert window.last_error.startswith("Cannot save the project: ") and reason in window.last_error
        assert _state(target) == before
    assert _state(outside)[3] == tiny_file.read_bytes()
    assert window.doc.path == tiny_file  # still the file it was
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".part") or p.name.startswith(".pipe")]


def test_save_through_a_link_saves_the_linked_file_and_keeps_the_link(qtbot, make_window, tiny_file, tmp_path):
    (tmp_path / "desk").mkdir()
    link = tmp_path / "desk" / "show.radioplay"
    link.symlink_to(tiny_file)
    window = make_window(link)
    window.doc.project.title = "Saved through the link"
    assert window.files.save()
    assert link.is_symlink() and load_project(tiny_file).title == "Saved through the link"


def test_save_as_with_the_extension_added_does_not_replace_another_kind_of_file(qtbot, make_window, tiny_file,
                                                                                   tmp_path):
    """The dialog asked about ``notes``; ``notes.radioplay`` holding a text file was never confirmed."""
    window = make_window(tiny_file)
    notes = tmp_path / "notes.radioplay"
    notes.write_text("my notes, not a project\n")
    assert not window.files.save_as(tmp_path / "notes")
    assert "holds a text file, not a Radioplay project" in window.last_error
    assert notes.read_text() == "my notes, not a project\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_the_lexicon_export_refuses_a_fifo_and_the_open_project(qtbot, make_window, tiny_file, tmp_path):
    window = make_window(tiny_file)
    panel = window.lexicon
    fifo = tmp_path / "lexicon.csv"
    os.mkfifo(fifo)
    panel.export_file(fifo)
    qtbot.waitUntil(lambda: "is a named pipe (FIFO)" in panel.status.text(), timeout=10_000)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    before = _state(tiny_file)
    os.link(tiny_file, tmp_path / "same.csv")
    panel.export_file(tmp_path / "same.csv")
    qtbot.waitUntil(lambda: "is the open project" in panel.status.text(), timeout=10_000)
    assert _state(tiny_file)[1:] == (before[1], before[2], before[3])


def test_the_table_read_never_records_takes_over_the_recordings_it_reads(qtbot, make_window, table):
    """One folder for the simulated reader and the takes would replace each read with its take."""
    from app.transport.table_read import TableReadChoice, TableReadPanel
    from tests.support.studio import wait_engine

    path, reads = table
    window = make_window(path)
    wait_engine(qtbot, window)
    before = {p.name: _state(p) for p in reads.iterdir()}
    panel = TableReadPanel(window, TableReadChoice(("GUEST",), None, reads, reads))
    panel.show()
    qtbot.waitExposed(panel)
    panel.start()
    qtbot.waitUntil(lambda: panel.result_label.text().startswith("Error: "), timeout=60_000)
    assert "is a recording the simulated reader reads, which this command reads" in panel.result_label.text()
    assert {p.name: _state(p) for p in reads.iterdir()} == before
    panel.close()
