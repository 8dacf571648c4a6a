"""The bundled sample's clips, voiced once per session with the real voice (a plugin of
tests/conftest.py).

Several tests render or play the sample to check what happens after synthesis
(loudness, presets, stems, the DAW hand-off, live playback); each voiced all 48
lines again from a cold cache (30-40 s each on two cores). ``sample_clips`` voices
them once; ``warm_sample_cache`` gives a test a private copy of those clips in its
own clip folder, so nothing a test writes there reaches another. The folder holds
only what voicing writes (each clip, its word times, the voices' identities): gain
and mix memos stay each test's own work. A test whose claim is about synthesis
itself keeps its cold cache by not asking for these.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.export.lines import synthesize_lines
from engine.project.fileformat import load_project
from engine.synth.synthesizer import make_synthesizer
from tests.support.paths import SAMPLE
from tests.support.shared_run import made_once, run_root


@pytest.fixture(scope="session")
def sample_clips(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of every clip of the bundled sample as `radioplay render` voices them; read only.
    Voiced once per run: the first xdist worker that asks voices them, the others wait and
    read the same folder (tests/support/shared_run.py)."""
    return made_once(run_root(tmp_path_factory), "sample-clips", _voice_the_sample) / "clips"


def _voice_the_sample(root: Path) -> None:
    project_path = root / SAMPLE.name
    shutil.copy(SAMPLE, project_path)
    project = load_project(project_path)
    folder = root / "clips"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RADIOPLAY_CACHE_DIR", str(folder))
        synth = make_synthesizer(project_path, project.sample_rate)
        synthesize_lines(project, synth)
    assert any(folder.glob("*.npy")), f"voicing the sample left no clips in {folder}"


def copy_sample_clips(clips: Path, folder: Path) -> Path:
    """Copy the session's sample clips (with their word times) into ``folder``, a clip
    cache folder; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    for file in clips.iterdir():
        if file.is_file():
            shutil.copy2(file, folder / file.name)
    return folder


@pytest.fixture
def warm_sample_cache(sample_clips: Path, _isolated_clip_cache: Path) -> Path:
    """This test's clip folder (RADIOPLAY_CACHE_DIR) already holds every clip of the sample."""
    return copy_sample_clips(sample_clips, _isolated_clip_cache)
