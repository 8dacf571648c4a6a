"""An export is one set (issue 20, items 4 and 12): a render into a folder
holding an older render replaces all of it or none of it, also when the
process is killed; a folder in the way, an output path that cannot be a
folder, or a cache folder that is a file is a one-line error."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.cli import main
from engine.export.outputset import JOURNAL, MANIFEST, STAGING_PREFIX, ExportError, recover
from engine.export.render import render_project
from engine.project.fileformat import load_project, save_project
from engine.synth.synthesizer import make_synthesizer
from tests.support.paths import REPO
from tests.support.projects import tiny_project


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file of the folder's set by content; a killed export's staging
    folder (hidden, removed by the next export) is not part of any set."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.relative_to(folder).parts[0].startswith(STAGING_PREFIX)}


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*")
                  if p.name.endswith(".part") or p.name.startswith(STAGING_PREFIX) or p.name == JOURNAL)


@pytest.fixture
def versions(tmp_path, tiny_voices):
    """Project A (4 roles) and B (ROLE3 gone, one line changed), both voiced."""
    a = tiny_project(tiny_voices["single"], roles=4, lines_per_role=3)
    b = tiny_project(tiny_voices["single"], roles=4, lines_per_role=3)
    b.cast = b.cast[:3]
    b.lines = [line for line in b.lines if line.role != "ROLE3"]
    b.lines[0].text = "A new first line for the second version."
    paths = tmp_path / "a.radioplay", tmp_path / "b.radioplay"
    for project, path in zip((a, b), paths, strict=True):
        save_project(project, path)
    return paths


def _render(path: Path, out: Path) -> dict[str, str]:
    project = load_project(path)
    render_project(project, make_synthesizer(path, project.sample_rate), out)
    return fingerprint(out)


def test_stems_of_roles_no_longer_in_the_cast_go_with_the_old_set(tmp_path, versions):
    out = tmp_path / "out"
    old = _render(versions[0], out)
    assert "stems/ROLE3.wav" in old and MANIFEST in old
    (out / "notes.txt").write_text("mine")  # not the export's: stays
    new = _render(versions[1], out)
    assert "stems/ROLE3.wav" not in new and new["notes.txt"] and len(new) == len(old)


def test_a_render_from_before_manifests_is_replaced_as_a_set(tmp_path, versions):
    out = tmp_path / "out"
    _render(versions[0], out)
    (out / MANIFEST).unlink()
    (out / "stems" / "mine.wav").write_bytes(b"RIFF")  # no cue names it: the producer's, not the render's
    (out / "stems" / "take.txt").write_text("mine")
    new = _render(versions[1], out)
    assert sorted(p for p in new if p.startswith("stems/")) == [
        "stems/ROLE0.wav", "stems/ROLE1.wav", "stems/ROLE2.wav", "stems/mine.wav", "stems/take.txt"]


def test_stale_part_files_and_staging_folders_are_removed(tmp_path, versions):
    out = tmp_path / "out"
    _render(versions[0], out)
    stale = [out / ".mix.wav.k2j3h4.part", out / "stems" / ".ROLE1.wav.abc.part", out / ".cues.json.x1.part",
             out / f"{STAGING_PREFIX}zz1" / "stems" / "ROLE0.wav"]
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half")
    _render(versions[1], out)
    assert leftovers(out) == []


def test_a_folder_where_a_stem_goes_fails_before_anything_is_replaced(tmp_path, versions, tiny_voices, capsys):
    out = tmp_path / "out"
    old = _render(versions[0], out)
    grown = load_project(versions[0])
    grown.cast.append(grown.cast[0].__class__(name="NEWCOMER", voice=grown.cast[0].voice))
    path = tmp_path / "grown.radioplay"
    save_project(grown, path)
    (out / "stems" / "NEWCOMER.wav").mkdir()
    synth = make_synthesizer(path, grown.sample_rate)
    with pytest.raises(ExportError, match=r"stems/NEWCOMER\.wav is a folder where the export writes a file"):
        render_project(grown, synth, out)
    assert synth.synth_calls == 0  # checked before any work
    assert main(["render", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NEWCOMER.wav is a folder" in err and "Traceback" not in err
    assert fingerprint(out) == old and leftovers(out) == []


def test_a_folder_made_while_rendering_fails_the_commit_and_keeps_the_old_set(tmp_path, versions):
    out = tmp_path / "out"
    old = _render(versions[0], out)
    project = load_project(versions[1])

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "finishing" and done == 0:  # another program makes a folder there meanwhile
            (out / "mix.wav").unlink()
            (out / "mix.wav").mkdir()

    with pytest.raises(ExportError, match="mix.wav is a folder"):
        render_project(project, make_synthesizer(versions[1], project.sample_rate), out, progress=progress)
    (out / "mix.wav").rmdir()
    assert {k: v for k, v in fingerprint(out).items() if k != "mix.wav"} == {
        k: v for k, v in old.items() if k != "mix.wav"}
    assert leftovers(out) == []


def _one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("radioplay: error: ") and captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err
    return captured.err


def test_output_paths_that_cannot_hold_an_export_are_one_line_errors(tmp_path, versions, capsys):
    project = str(versions[0])
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    assert "a-file is a file, not a folder" in _one_line_error(capsys, "render", project, "-o", str(a_file))
    assert "a-file is a file" in _one_line_error(capsys, "render", project, "-o", str(a_file / "sub" / "out"))
    assert "/proc/radioplay-x" in _one_line_error(capsys, "render", project, "-o", "/proc/radioplay-x")
    out = tmp_path / "out"
    (out / "mix.wav").mkdir(parents=True)
    assert "mix.wav is a folder" in _one_line_error(capsys, "render", project, "-o", str(out))
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".part")]


# --- kill -9 of a real `radioplay render` into a folder holding an older render --------------


def _spawn_render(project: Path, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "engine.cli", "render", str(project), "-o", str(out)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _anything_new(out: Path, before: set[str]) -> bool:
    for root, dirs, files in os.walk(out):
        for name in dirs + files:
            if os.path.join(root, name) not in before:
                return True
    return False


def _paths(folder: Path) -> set[str]:
    return {os.path.join(root, n) for root, dirs, files in os.walk(folder) for n in dirs + files}


def test_kill_9_during_render_leaves_one_complete_set(tmp_path, versions):
    old_ref, new_ref = tmp_path / "old-ref", tmp_path / "new-ref"
    old, new = _render(versions[0], old_ref), _render(versions[1], new_ref)  # also warms the clip cache
    assert old != new
    out = tmp_path / "work" / "out"
    out.parent.mkdir()
    rng = random.Random(20)
    outside_before = _paths(tmp_path)
    outcomes: dict[str, int] = {}
    for moment in ["first file", "journal", "after a delay"] * 2:
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(old_ref, out)
        before = _paths(out)
        child = _spawn_render(versions[1], out)
        delay = time.monotonic() + rng.uniform(0.5, 2.5)
        deadline = time.monotonic() + 60
        while child.poll() is None and time.monotonic() < deadline:
            if ((moment == "first file" and _anything_new(out, before))
                    or (moment == "journal" and (out / JOURNAL).exists())
                    or (moment == "after a delay" and time.monotonic() > delay)):
                break
            time.sleep(0.0005)
        child.send_signal(signal.SIGKILL)
        child.wait()
        mid_commit = (out / JOURNAL).exists()
        if not mid_commit:
            assert fingerprint(out) in (old, new), f"killed at {moment}: a mix of old and new files"
        recover(out)  # what the next export into this folder does before anything else
        state = fingerprint(out)
        assert state in (old, new), f"killed at {moment}: not one complete set after recovery"
        assert leftovers(out) == []
        kind = f"{moment}: {'new' if state == new else 'old'}{' (mid-commit)' if mid_commit else ''}"
        outcomes[kind] = outcomes.get(kind, 0) + 1
    print(outcomes)
    # A stale staging folder of a killed run never survives the next render.
    shutil.rmtree(out)
    shutil.copytree(old_ref, out)
    child = _spawn_render(versions[1], out)
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(STAGING_PREFIX) for p in out.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.0005)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert subprocess.run([sys.executable, "-m", "engine.cli", "render", str(versions[1]), "-o", str(out)],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True).returncode == 0
    assert fingerprint(out) == new and leftovers(out) == []
    assert _paths(tmp_path) - _paths(out) - {str(out)} == outside_before  # nothing written outside OUTDIR
