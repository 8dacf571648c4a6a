"""The shared clip cache (issue 16): clips follow their content, not the
project's path; a size limit with least-recently-used eviction; the
per-project caches of earlier versions are still read."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from engine.cli import main
from engine.project.fileformat import save_project
from engine.synth.cache import cache_dir_for
from engine.synth.clipfolder import CacheFolderError, ClipFolder
from tests.support.fixtures import SHARED_IN_CACHE
from tests.support.projects import tiny_project
from tests.support.render import synth_for


@pytest.fixture
def saved(tmp_path, tiny_voices):
    path = tmp_path / "first" / "show.radioplay"
    path.parent.mkdir()
    save_project(tiny_project(tiny_voices["single"]), path)
    return path


def _render(capsys: pytest.CaptureFixture[str], project: Path, out: Path) -> str:
    assert main(["render", str(project), "-o", str(out)]) == 0
    return capsys.readouterr().out


def test_a_project_saved_elsewhere_or_moved_voices_nothing_again(tmp_path, saved, capsys):
    assert "6 synthesized, 0 from cache" in _render(capsys, saved, tmp_path / "a")
    copy = tmp_path / "elsewhere" / "renamed.radioplay"  # Save As: a new name in a new folder
    copy.parent.mkdir()
    shutil.copyfile(saved, copy)
    assert "0 synthesized, 6 from cache" in _render(capsys, copy, tmp_path / "b")
    moved = tmp_path / "moved"
    shutil.move(saved.parent, moved)
    assert "0 synthesized, 6 from cache" in _render(capsys, moved / saved.name, tmp_path / "c")
    assert not cache_dir_for(saved).exists() and not cache_dir_for(copy).exists()  # nothing beside projects


def test_a_per_project_cache_of_earlier_versions_is_read_and_adopted(tmp_path, saved, capsys,
                                                                      _isolated_clip_cache):
    from engine.export.render import render_project
    from engine.project.fileformat import load_project

    render_project(load_project(saved), synth_for(saved), tmp_path / "old")  # fills show.radioplay-cache/
    legacy = sorted(p.name for p in cache_dir_for(saved).glob("*.npy"))
    assert len(legacy) == 6 and not [p for p in _isolated_clip_cache.iterdir() if p.name not in SHARED_IN_CACHE]
    assert "0 synthesized, 6 from cache" in _render(capsys, saved, tmp_path / "a")
    assert sorted(p.name for p in _isolated_clip_cache.glob("*.npy")) == legacy
    shutil.rmtree(cache_dir_for(saved))
    assert "0 synthesized, 6 from cache" in _render(capsys, saved, tmp_path / "b")


def _clip(seconds: float) -> np.ndarray:
    return np.full(int(seconds * 1000), 0.1, dtype=np.float32)


def test_the_least_recently_used_clips_go_first_when_over_the_limit(tmp_path):
    folder = tmp_path / "cache"
    size = 4 * 1000 + 128  # one second at 1 kHz, plus the .npy header
    first = ClipFolder(folder)
    for i, key in enumerate(["a", "b", "c", "d"]):
        first.save(key, _clip(1))
        os.utime(first.path(key), (time.time() - 100 + i, time.time() - 100 + i))
    assert first.load("a") is not None  # used now: the most recent
    # Another project in another process, with a limit of about three clips.
    second = ClipFolder(folder, limit_bytes=int(3.5 * size))
    second.save("e", _clip(1))
    left = sorted(p.stem for p in folder.glob("*.npy"))
    assert left == ["a", "d", "e"]  # b and c were the least recently used
    # What this process used stays, even past the limit (a production larger than the limit).
    for key in ["f", "g", "h"]:
        second.save(key, _clip(1))
    assert {"e", "f", "g", "h"} <= {p.stem for p in folder.glob("*.npy")}


def test_a_cache_folder_that_is_a_file_is_a_one_line_error(tmp_path, saved, capsys, monkeypatch):
    blocker = tmp_path / "cache-file"
    blocker.write_text("x")
    monkeypatch.setenv("RADIOPLAY_CACHE_DIR", str(blocker))
    with pytest.raises(CacheFolderError, match="cache-file is a file"):
        ClipFolder(blocker)
    for argv in (["render", str(saved), "-o", str(tmp_path / "out")], ["play", str(saved), "--device", "null"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith("radioplay: error: the clip cache folder") and err.count("\n") == 1, err
    monkeypatch.setenv("RADIOPLAY_CACHE_DIR", str(blocker / "below"))
    assert main(["render", str(saved), "-o", str(tmp_path / "out")]) == 1
    assert "cannot create the clip cache folder" in capsys.readouterr().err
    monkeypatch.setenv("RADIOPLAY_CACHE_DIR", str(tmp_path / "ok"))
    monkeypatch.setenv("RADIOPLAY_CACHE_LIMIT_MB", "lots")
    assert main(["render", str(saved), "-o", str(tmp_path / "out")]) == 1
    assert "RADIOPLAY_CACHE_LIMIT_MB='lots' is not a number" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
