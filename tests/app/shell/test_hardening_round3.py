"""Issue 25: a kill -9 of the studio leaves no process of its own alive after
10 s: the speech-check worker watches its parent (engine/lifeline.py), and
multiprocessing's resource tracker ends when the last end of its pipe closes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.hostile import (
    command_line,
    descendants,
    end_survivors,
    kill_and_count_survivors,
    project_file,
)

REPO = Path(__file__).resolve().parents[3]


def test_kill_9_of_the_studio_leaves_no_checker_or_resource_tracker_after_10_s(tmp_path, tiny_voices):
    path = project_file(tmp_path, tiny_voices["single"], lines=6)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO),
           "RADIOPLAY_STATE_DIR": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    with open(tmp_path / "studio.log", "w") as log:
        studio = subprocess.Popen([sys.executable, "-m", "app.launch", "studio", str(path), "--output", "null"],
                                  cwd=tmp_path, env=env, stdout=log, stderr=log)

    first_seen: list[float] = []

    def checker_running() -> bool:  # and settled: past its start-up, waiting for (or doing) checks
        lines = [command_line(pid) for pid in descendants(studio.pid)]
        if not (any("resource_tracker" in c for c in lines) and any("spawn_main" in c for c in lines)):
            return False
        first_seen.append(time.monotonic())
        return first_seen[-1] - first_seen[0] >= 5.0

    named, survivors = kill_and_count_survivors(studio, checker_running, "the studio")
    try:
        assert any("spawn_main" in c for c in named.values())  # the speech-check worker was there
        assert not survivors, f"alive 10 s after kill -9 of the studio: {survivors}"
    finally:
        end_survivors(survivors)
