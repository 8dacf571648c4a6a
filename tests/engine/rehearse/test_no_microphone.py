"""A table read on a machine with no microphone: one line saying so and what to do instead,
never PortAudio's "Error querying device -1"."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.audio_server import no_sound_devices
from tests.support.paths import REPO, SAMPLE


def test_rehearse_without_a_microphone_says_so_in_one_line(tmp_path):
    env = os.environ | {"ALSA_CONFIG_PATH": str(no_sound_devices(tmp_path)), "HOME": str(tmp_path),
                        "RADIOPLAY_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "engine.cli", "rehearse", str(SAMPLE), "--role", "MAGGIE"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("radioplay")]
    assert errors == ["radioplay: error: no microphone found (no sound input device here): connect one, or read "
                      "the part from recordings (radioplay rehearse --simulate DIR; in the studio, Input: "
                      "Simulated reader)"], done.stderr
    assert "querying device" not in done.stderr and "Traceback" not in done.stderr
