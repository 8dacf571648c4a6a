"""The rule of every output path (issue 57, engine/output_paths.py), one test per kind of
target: what is there stays byte for byte and inode for inode when it may not be
replaced, nothing is written on refusal, and the files our own writers make are told
apart by their first bytes."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import numpy as np
import pytest
import soundfile

from engine.fsutil import atomic_write_text
from engine.output_paths import (
    BINARY,
    CSV_LEXICON,
    EMPTY,
    JSON,
    PLS_LEXICON,
    PROJECT,
    TABLE_READ_REPORT,
    TEXT,
    WAV,
    OutputPathError,
    in_place,
    output_file,
    sniff,
)
from engine.project.fileformat import save_project
from engine.project.lexicon_io import Entry, write_csv, write_pls
from engine.project.model import Line, Project, Role

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def _state(path: Path) -> tuple[int, int, int, bytes | None]:
    """What must not change: kind, inode, size and (for a regular file) the bytes."""
    found = os.lstat(path)
    data = path.read_bytes() if stat.S_ISREG(found.st_mode) else None
    return stat.S_IFMT(found.st_mode), found.st_ino, found.st_size, data


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".part")]


def _project_file(path: Path) -> Path:
    project = Project(title="Rule", cast=[Role("SUE")], lines=[Line("L1", "SUE", "Hello there.")])
    save_project(project, path)
    return path


def _refused(match: str, *args: object, **kwargs: object) -> None:
    with pytest.raises(OutputPathError, match=match) as info:
        output_file(*args, **kwargs)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


# ---- what a file holds -------------------------------------------------------------------------


def test_the_files_our_writers_make_are_told_apart_by_their_first_bytes(tmp_path):
    """The table's lines each recognize what the matching writer wrote, and nothing else does."""
    made = {PROJECT: _project_file(tmp_path / "p.radioplay")}
    report = tmp_path / "r.json"
    report.write_text(json.dumps({"lines": 4, "live_lines": 2, "missed": 0, "lines_read": []}, indent=2))
    made[TABLE_READ_REPORT] = report
    entries = [Entry("Llanfair", "Thlan vire")]
    write_pls(tmp_path / "l.pls", entries)
    write_csv(tmp_path / "l.csv", entries)
    made[PLS_LEXICON], made[CSV_LEXICON] = tmp_path / "l.pls", tmp_path / "l.csv"
    soundfile.write(str(tmp_path / "a.wav"), np.zeros(480, np.float32), 48_000, subtype="PCM_24")
    made[WAV] = tmp_path / "a.wav"
    (tmp_path / "cues.json").write_text('{"title": "x", "cues": []}')
    made[JSON] = tmp_path / "cues.json"
    (tmp_path / "draft.txt").write_text("SUE: (whispering) Hello there.\nBOB: Hi. caf\u00e9\n")
    made[TEXT] = tmp_path / "draft.txt"
    (tmp_path / "blob").write_bytes(bytes(range(256)))
    made[BINARY] = tmp_path / "blob"
    for content, path in made.items():
        assert sniff(path.read_bytes()[:8192]) is content, path.name
    assert sniff(b"") is EMPTY
    assert sniff("é".encode()[:1]) is TEXT  # a character cut at the end of the sample


# ---- per kind of target ------------------------------------------------------------------------


def test_a_missing_file_is_written_and_missing_folders_are_made(tmp_path):
    target = output_file(tmp_path / "new" / "deeper" / "p.radioplay", PROJECT, option="-o")
    assert target.path == tmp_path.resolve() / "new" / "deeper" / "p.radioplay"
    atomic_write_text(target.path, "{}", target.check_again)
    assert target.path.read_text() == "{}"


def test_a_file_of_the_same_kind_is_replaced_and_one_of_another_kind_only_with_overwrite(tmp_path):
    same = _project_file(tmp_path / "other.radioplay")
    assert output_file(same, PROJECT, option="-o").path == same.resolve()
    draft = tmp_path / "draft1.txt"
    draft.write_text("SUE: Hello there.\n")
    before = _state(draft)
    _refused(r"^-o .*draft1\.txt: holds a text file, not a Radioplay project; --overwrite replaces it$",
             draft, PROJECT, option="-o")
    project = _project_file(tmp_path / "p.radioplay")
    _refused("holds a Radioplay project, not a table-read report", project, TABLE_READ_REPORT, option="--report")
    assert _state(draft) == before and not _leftovers(tmp_path)
    assert output_file(draft, PROJECT, option="-o", overwrite=True).path == draft.resolve()
    empty = tmp_path / "empty.json"
    empty.touch()
    assert output_file(empty, TABLE_READ_REPORT, option="--report").path == empty.resolve()


@pytest.mark.parametrize("spelling", ["same", "dotted", "hard link", "symbolic link"])
def test_the_input_itself_is_refused_under_any_name_even_with_overwrite(tmp_path, spelling):
    (tmp_path / "sub").mkdir()
    draft = tmp_path / "sub" / "draft1.txt"
    draft.write_text("SUE: Hello there.\n")
    name = {"same": draft, "dotted": tmp_path / "sub" / ".." / "sub" / "." / "draft1.txt",
            "hard link": tmp_path / "sub" / "hard.txt", "symbolic link": tmp_path / "sub" / "soft.txt"}[spelling]
    if spelling == "hard link":
        os.link(draft, name)
    elif spelling == "symbolic link":
        name.symlink_to("draft1.txt")
    before = _state(draft)
    for overwrite in (False, True):
        _refused(r"is the new draft \(NEW_SCRIPT\), which this command reads; choose another file$",
                 name, PROJECT, option="-o", inputs=[("the new draft (NEW_SCRIPT)", draft)], overwrite=overwrite)
    assert _state(draft) == before


@needs_fifo
def test_a_fifo_is_refused_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for overwrite in (False, True):
        _refused(r"^--report .*fifo: is a named pipe \(FIFO\), not a regular file; it would be replaced by one$",
                 fifo, TABLE_READ_REPORT, option="--report", overwrite=overwrite)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_device_is_refused_and_the_check_writes_nothing(tmp_path):
    """/dev/null is only examined: the check opens nothing for writing (as root a write would replace it)."""
    before = _state(Path("/dev/null"))
    _refused(r"^-o /dev/null: is a device, not a regular file", "/dev/null", PROJECT, option="-o", overwrite=True)
    assert _state(Path("/dev/null")) == before
    if os.geteuid() == 0:  # a device node of our own, where only root may make one
        node = tmp_path / "devnull"
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        _refused("is a device", node, PROJECT, option="-o", overwrite=True)
        assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        _refused("is a socket, not a regular file", path, PROJECT, option="-o", overwrite=True)
        assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_a_folder_where_a_file_goes_is_refused_and_a_trailing_slash_means_inside_it(tmp_path):
    folder = tmp_path / "newdir"
    folder.mkdir()
    _refused(r"^-o .*newdir: is a folder; name a file", folder, PROJECT, option="-o", default_name="p.radioplay")
    _refused(r"^--report .*newdir/: ends with a slash \(a folder\); --report needs a file name$",
             f"{folder}/", TABLE_READ_REPORT, option="--report")
    target = output_file(f"{tmp_path}/made/", PROJECT, option="-o", default_name="p.radioplay")
    assert target.path == tmp_path.resolve() / "made" / "p.radioplay" and target.shown == f"{tmp_path}/made/p.radioplay"
    assert not (tmp_path / "made").exists()  # made by the write, not by the check


def test_a_symbolic_link_out_of_its_folder_is_refused_and_one_inside_is_followed(tmp_path):
    outside = tmp_path / "elsewhere.radioplay"
    _project_file(outside)
    (tmp_path / "work").mkdir()
    link = tmp_path / "work" / "p.radioplay"
    link.symlink_to(outside)
    before = _state(outside)
    _refused(r"is a symbolic link leading out of its folder \(to .*elsewhere\.radioplay\); name the file itself$",
             link, PROJECT, option="-o", overwrite=True)
    assert _state(outside) == before and link.is_symlink()
    inside = tmp_path / "work" / "current.radioplay"
    inside.symlink_to("v3.radioplay")
    _project_file(tmp_path / "work" / "v3.radioplay")
    target = output_file(inside, PROJECT, option="-o")
    assert target.path == (tmp_path / "work" / "v3.radioplay").resolve()
    atomic_write_text(target.path, "{}", target.check_again)
    assert inside.is_symlink() and inside.read_text() == "{}"


def test_a_parent_that_is_a_file_is_refused(tmp_path):
    plain = tmp_path / "draft1.txt"
    plain.write_text("x")
    _refused(r"draft1\.txt is a file, not a folder$", plain / "p.radioplay", PROJECT, option="-o")
    assert plain.read_text() == "x"


def test_names_no_file_can_have_are_refused():
    _refused(r"^-o '': an empty name", "", PROJECT, option="-o")
    _refused("cannot hold a NUL character", "a\0b", PROJECT, option="-o")


@needs_fifo
def test_what_takes_the_name_between_the_check_and_the_rename_is_not_replaced(tmp_path):
    """The atomic write's guard checks again once the new file is complete."""
    name = tmp_path / "report.json"
    target = output_file(name, TABLE_READ_REPORT, option="--report")
    os.mkfifo(name)  # planted after the check
    with pytest.raises(OutputPathError, match="is a named pipe"):
        atomic_write_text(target.path, '{"live_lines": 1}', target.check_again)
    assert stat.S_ISFIFO(os.lstat(name).st_mode) and not _leftovers(tmp_path)


def test_saving_in_place_follows_a_link_wherever_it_leads(tmp_path):
    """A project opened through a link is saved into the file it names; the link stays."""
    (tmp_path / "share").mkdir()
    real = _project_file(tmp_path / "share" / "p.radioplay")
    link = tmp_path / "p.radioplay"
    link.symlink_to(real)
    target = in_place(link)
    assert target.path == real.resolve()
    atomic_write_text(target.path, "{}", target.check_again)
    assert link.is_symlink() and real.read_text() == "{}"
