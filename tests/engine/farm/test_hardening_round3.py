"""Issue 25: a kill -9 of ``radioplay render --ray auto`` leaves no process of its
own local Ray instance alive after 10 s (the dashboard and runtime-env agents
used to stay: engine/lifeline.py's reaper ends them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.hostile import descendants, end_survivors, kill_and_count_survivors, project_file

REPO = Path(__file__).resolve().parents[3]


def test_kill_9_of_a_ray_render_leaves_no_ray_process_after_10_s(tmp_path, tiny_voices):
    path = project_file(tmp_path, tiny_voices["single"], lines=300)  # long enough to be killed mid-render
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PYTHONPATH"] = str(REPO)
    with open(tmp_path / "render.log", "w") as log:
        render = subprocess.Popen([sys.executable, "-m", "engine.cli", "render", str(path), "-o", str(tmp_path / "out"),
                                   "--ray", "auto"], cwd=REPO, env=env, stdout=log, stderr=log)

    def agents_running() -> bool:
        from tests.support.hostile import command_line

        words = [w for pid in descendants(render.pid) for w in command_line(pid).split()[:3]]
        return any(w.endswith("dashboard/agent.py") for w in words) and any("runtime_env/agent" in w for w in words)

    named, survivors = kill_and_count_survivors(render, agents_running, "radioplay render --ray auto")
    try:
        assert any("raylet" in c for c in named.values()) and any("gcs_server" in c for c in named.values())
        assert not survivors, f"alive 10 s after kill -9 of the render: {survivors}"
    finally:
        end_survivors(survivors)
