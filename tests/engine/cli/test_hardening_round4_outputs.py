"""Issue 57, "data lost: an output option replaces the user's own file": each case of the
issue generated here and run through the real verbs. A refused output is one line (exit
status 1, no traceback) before any work, and the file that was there keeps its bytes and
its inode; an allowed one is written where the rule says."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest
import soundfile

from engine.cli import main
from engine.project.fileformat import load_project, save_project
from engine.synth.production_import import import_production
from tests.support.hostile import project_file
from tests.support.revisions import HELD_OUT_SCRIPT, write_script

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def _state(path: Path) -> tuple[int, int, int, bytes | None]:
    found = os.lstat(path)
    return (stat.S_IFMT(found.st_mode), found.st_ino, found.st_size,
            path.read_bytes() if stat.S_ISREG(found.st_mode) else None)


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("radioplay: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.strip()


def _special_files(folder: Path) -> list[Path]:
    """A FIFO, and where only root may make one, a device node like /dev/null (1, 3)."""
    made = []
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "fifo")
        made.append(folder / "fifo")
    if os.geteuid() == 0:
        os.mknod(folder / "devnull", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        made.append(folder / "devnull")
    return made


def _reads(folder: Path, project: Path) -> Path:
    """--simulate's folder: one short recording per line."""
    folder.mkdir()
    for line in load_project(project).lines:
        soundfile.write(str(folder / f"{line.id}.wav"), np.zeros(4800, np.float32), 48_000)
    return folder


def test_rehearse_report_never_replaces_the_project_or_a_recording(tmp_path, tiny_voices, capsys):
    """``rehearse p.radioplay --role SUE --simulate sim --device null --report p.radioplay``
    replaced the project with a 463-byte report, exit 0."""
    project = project_file(tmp_path, tiny_voices["single"])
    sim = _reads(tmp_path / "sim", project)
    rehearse = ["rehearse", str(project), "--role", "ANNA", "--simulate", str(sim), "--device", "null"]
    before = _state(project)
    err = _one_line(capsys, [*rehearse, "--report", str(project)])
    assert err == f"radioplay: error: --report {project}: is the project, which this command reads; choose another file"
    _one_line(capsys, [*rehearse, "--report", str(tmp_path / "." / project.name), "--overwrite"])
    take = sim / "L1.wav"
    take_before = _state(take)
    assert "is a --simulate recording" in _one_line(capsys, [*rehearse, "--report", str(take), "--overwrite"])
    assert "is a --simulate recording" in _one_line(capsys, [*rehearse, "--record", str(sim)])
    for special in _special_files(tmp_path):
        kept = _state(special)
        assert "not a regular file" in _one_line(capsys, [*rehearse, "--report", str(special), "--overwrite"])
        assert _state(special) == kept
    err = _one_line(capsys, [*rehearse, "--report", f"{tmp_path}/reports/"])
    assert err.endswith("ends with a slash (a folder); --report needs a file name")
    assert _state(project) == before and _state(take) == take_before
    assert not (tmp_path / "reports").exists()


def test_revise_output_never_replaces_the_draft(tmp_path, capsys):
    """``revise p.radioplay draft1.txt -o draft1.txt`` replaced the writer's draft with project JSON."""
    draft = write_script(tmp_path / "draft1.txt", HELD_OUT_SCRIPT)
    project = tmp_path / "p.radioplay"
    save_project(import_production(draft, suggest=lambda roles, lines, spoken: {}).project, project)
    before, project_before = _state(draft), _state(project)
    os.link(draft, tmp_path / "hard.txt")
    (tmp_path / "soft.txt").symlink_to("draft1.txt")
    for name in (draft, tmp_path / "hard.txt", tmp_path / "soft.txt", tmp_path / "." / "draft1.txt"):
        for flags in ([], ["--overwrite"]):
            err = _one_line(capsys, ["revise", str(project), str(draft), "-o", str(name), *flags])
            assert err.endswith("is the new draft (NEW_SCRIPT), which this command reads; choose another file")
    other = tmp_path / "notes.txt"
    other.write_text("a writer's notes\n")
    err = _one_line(capsys, ["revise", str(project), str(draft), "-o", str(other)])
    assert err.endswith("holds a text file, not a Radioplay project; --overwrite replaces it")
    assert other.read_text() == "a writer's notes\n"
    for special in _special_files(tmp_path):
        kept = _state(special)
        assert "not a regular file" in _one_line(capsys, ["revise", str(project), str(draft), "-o", str(special)])
        assert _state(special) == kept
    assert _state(draft) == before and _state(project) == project_before
    # a trailing slash is a folder: the revision goes inside it under the project's name
    assert main(["revise", str(project), str(draft), "-o", f"{tmp_path}/newdir/"]) == 0
    assert "Wrote " + f"{tmp_path}/newdir/p.radioplay" in capsys.readouterr().out
    assert load_project(tmp_path / "newdir" / "p.radioplay").revisions
    assert not (tmp_path / "newdir").is_file() and _state(project) == project_before


def test_import_output_never_replaces_the_script(tmp_path, capsys):
    script = write_script(tmp_path / "harbour.txt", HELD_OUT_SCRIPT)
    before = _state(script)
    err = _one_line(capsys, ["import", str(script), "-o", str(script), "--force"])
    assert err.endswith("is the script (SCRIPT), which this command reads; choose another file")
    for special in _special_files(tmp_path):
        kept = _state(special)
        assert "not a regular file" in _one_line(capsys, ["import", str(script), "-o", str(special), "--overwrite"])
        assert _state(special) == kept
    assert _state(script) == before


def test_lexicon_export_never_replaces_the_project_or_another_kind_of_file(tmp_path, tiny_voices, capsys):
    project = project_file(tmp_path, tiny_voices["single"])
    before = _state(project)
    os.link(project, tmp_path / "same.csv")
    for flags in ([], ["--overwrite"]):
        err = _one_line(capsys, ["lexicon", str(project), "--export", str(tmp_path / "same.csv"), *flags])
        assert err.endswith("is the project, which this command reads; choose another file")
    table = tmp_path / "table.csv"
    table.write_text("name,phone\nSue,555\n")
    err = _one_line(capsys, ["lexicon", str(project), "--export", str(table)])
    assert err.endswith("holds a text file, not a CSV lexicon; --overwrite replaces it")
    assert table.read_text() == "name,phone\nSue,555\n" and _state(project) == before
    assert main(["lexicon", str(project), "--export", str(table), "--overwrite"]) == 0
    assert table.read_text().startswith("word,say,role")


def test_render_never_replaces_the_project_or_a_file_of_another_kind_in_its_folder(tmp_path, tiny_voices, capsys):
    """Checked before synthesis: each case fails at once."""
    project = project_file(tmp_path, tiny_voices["single"])
    before = _state(project)
    out = tmp_path / "out"
    out.mkdir()
    os.link(project, out / "cues.json")
    for flags in ([], ["--overwrite"]):
        err = _one_line(capsys, ["render", str(project), "-o", str(out), "--no-cache", *flags])
        assert err.endswith("cues.json: is the project, which this command reads; choose another file")
    (out / "cues.json").unlink()
    script = out / "captions.srt"
    script.write_bytes(project.read_bytes())
    err = _one_line(capsys, ["render", str(project), "-o", str(out), "--no-cache"])
    assert err.endswith("captions.srt: holds a Radioplay project, not a text file; --overwrite replaces it")
    script.unlink()
    for special in _special_files(tmp_path):
        os.rename(special, out / "mix.wav")
        kept = _state(out / "mix.wav")
        assert "mix.wav: is " in _one_line(capsys, ["render", str(project), "-o", str(out), "--overwrite"])
        assert _state(out / "mix.wav") == kept
        os.unlink(out / "mix.wav")
    assert _state(project) == before
    assert sorted(p.name for p in out.iterdir()) == []


def test_saving_in_place_through_a_link_keeps_the_link(tmp_path, tiny_voices, capsys):
    """``lexicon --import`` saves the project it read: through a link, into the linked file."""
    real = project_file(tmp_path, tiny_voices["single"])
    (tmp_path / "desk").mkdir()
    link = tmp_path / "desk" / "show.radioplay"
    link.symlink_to(real)
    entries = tmp_path / "names.csv"
    entries.write_text("word,say,role\nAnna,Ah nah,\n")
    assert main(["lexicon", str(link), "--import", str(entries)]) == 0
    assert link.is_symlink() and load_project(real).lexicon == {"Anna": "Ah nah"}
