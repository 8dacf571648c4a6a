"""What `make run` installs renders the bundled sample: every role's voice found, no line failed.

The suite itself runs in the test extra's environment, which has more than a producer gets
(torch, Ray, the speaker encoder...): a voice the sample is cast on that only the test extra
brought would pass every other test and leave a producer's `make run` with roles that cannot
speak. This test builds the default environment as `make run` does (`make .venv/.installed`
in a copy of the checkout: a virtual environment and `pip install -e .`, from the pip cache
the suite's own install filled) and renders the sample with its `radioplay`.

The clips come from the run's voiced sample (tests/support/sample_clips.py): a clip's key
holds the identity of the voice model it was made with, so every line taken from the cache
is a line whose voice the default install found, the same files the suite voiced it with.
Cost: one virtual environment and one cached render, about a minute on two cores
(docs/dev/testing.md).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from engine.project.fileformat import load_project
from tests.support.paths import REPO, SAMPLE
from tests.support.sample_clips import copy_sample_clips

# What `make .venv/.installed` reads: the Makefile, the project's metadata, its packages, and
# what a render of the sample reads beside them (the sample, its starter sounds).
CHECKOUT = ("Makefile", "pyproject.toml", "README.md", "engine", "app", "resources", "samples")
INSTALL_TIMEOUT_S = 900.0  # pip from its cache, on a loaded machine
TEST_ONLY = ("pytest", "torch", "ray", "resemblyzer")  # the test extra's, never the default install's


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("make") is None, reason="make is what a producer runs")
def test_the_default_install_renders_the_sample_with_every_voice_found(tmp_path, sample_clips):
    checkout = tmp_path / "radioplay"
    checkout.mkdir()
    for name in CHECKOUT:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, checkout / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(source, checkout / name)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env |= {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "RADIOPLAY_STATE_DIR": str(tmp_path / "state"), "RADIOPLAY_VOICE_DIR": str(tmp_path / "voices"),
            "RADIOPLAY_CACHE_DIR": str(copy_sample_clips(sample_clips, tmp_path / "cache"))}
    env.pop("XDG_CACHE_HOME", None)  # pip's cache stays the one the suite's own install filled
    installed = subprocess.run(["make", "--no-print-directory", ".venv/.installed", f"PYTHON={sys.executable}"],
                               cwd=checkout, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    venv = checkout / ".venv" / "bin"
    have = subprocess.run([str(venv / "python"), "-m", "pip", "list", "--format=freeze"], env=env,
                          capture_output=True, text=True, check=True).stdout.lower()
    assert not [name for name in TEST_ONLY if re.search(rf"^{name}==", have, re.MULTILINE)], have

    sample = checkout / "samples" / SAMPLE.name
    out = tmp_path / "out"
    done = subprocess.run([str(venv / "radioplay"), "render", str(sample), "-o", str(out)], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    project = load_project(sample)
    lines = len(project.lines)
    # Every line voiced, none synthesized again: each came from the clip its voice made in the suite.
    assert f"{lines} lines (0 synthesized, {lines} from cache)" in done.stdout, done.stdout
    assert "not installed" not in done.stdout + done.stderr and "cannot be voiced" not in done.stderr
    stems = {p.stem for p in (out / "stems").glob("*.wav")}
    assert len(stems) == len(project.cast), stems
