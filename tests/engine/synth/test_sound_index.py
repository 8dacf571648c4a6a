"""The sound index: kept in RADIOPLAY_CACHE_DIR when it is set, shared by
libraries of different folders without their rewriting it in turn, and
written (atomically) only when its content changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.synth.sound_library import INDEX_FILE, SoundLibrary, index_cache_path


def _write(path: Path, seconds: float = 0.3) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(seconds * 48_000)) / 48_000
    sf.write(path, 0.2 * np.sin(2 * np.pi * 330 * t), 48_000)
    return path


def _identity(path: Path) -> tuple[int, int]:
    """The file's inode and modification time: an atomic rewrite changes the inode."""
    stat = path.stat()
    return stat.st_ino, stat.st_mtime_ns


def test_the_index_is_kept_in_the_cache_folder_the_environment_names(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RADIOPLAY_CACHE_DIR", str(tmp_path / "cache"))
    assert index_cache_path() == tmp_path / "cache" / INDEX_FILE
    project = tmp_path / "show" / "show.radioplay"
    _write(project.parent / "sounds" / "door.wav")
    library = SoundLibrary.for_project(project)
    assert "door" in {s.name for s in library.sounds}
    files = json.loads((tmp_path / "cache" / INDEX_FILE).read_text())["files"]
    assert str(project.parent / "sounds" / "door.wav") in files
    monkeypatch.delenv("RADIOPLAY_CACHE_DIR")
    assert index_cache_path().name == INDEX_FILE and index_cache_path().parent != tmp_path / "cache"


def test_an_unchanged_library_does_not_write_the_index(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    _write(folder / "rain.wav")
    _write(folder / "bell.wav")
    index = tmp_path / "cache" / INDEX_FILE
    SoundLibrary([folder], index)
    before = _identity(index)
    for _ in range(3):
        SoundLibrary([folder], index)
    assert _identity(index) == before
    _write(folder / "bell.wav", seconds=0.6)  # a changed file: read again and written
    os.utime(folder / "bell.wav", ns=(1, 1))
    changed = SoundLibrary([folder], index)
    assert _identity(index) != before
    assert {s.name: s for s in changed.sounds}["bell"].duration == pytest.approx(0.6)
    (folder / "rain.wav").unlink()  # a file gone from a scanned folder leaves the index
    SoundLibrary([folder], index)
    assert str(folder / "rain.wav") not in json.loads(index.read_text())["files"]


def test_libraries_of_different_folders_share_the_index_without_rewriting_it(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    _write(one / "thunder.wav")
    _write(two / "knock.wav")
    index = tmp_path / "cache" / INDEX_FILE
    SoundLibrary([one], index)
    SoundLibrary([two], index)  # adds its files, keeps the first library's
    files = json.loads(index.read_text())["files"]
    assert {Path(k).name for k in files} == {"thunder.wav", "knock.wav"}
    settled = _identity(index)
    for folders in ([one], [two], [one, two], [two]):  # parallel renders, benchmarks: nothing to write
        SoundLibrary(folders, index)
    assert _identity(index) == settled
