"""A staged line is staged once: kept in the clip cache's folder under a key of
everything that changes it, so a render of an unchanged production reads the
staged audio from there, convolves nothing and loads neither scipy nor
pyroomacoustics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from numpy.testing import assert_array_equal

from engine.audio.rooms import RoomResponses
from engine.audio.staging import Stager, line_stage, stage_clip, staged_key
from engine.project.fileformat import save_project
from engine.project.staging import ROOM_PRESETS, LineStage, Position
from engine.synth.clipfolder import ClipFolder
from tests.support.paths import REPO
from tests.support.projects import tiny_project

RATE = 48_000


def _clip(seconds: float = 0.3) -> np.ndarray:
    return (np.random.default_rng(5).standard_normal(int(seconds * RATE)) * 0.1).astype(np.float32)


def test_a_staged_clip_is_kept_and_read_back_by_the_next_stager(tmp_path: Path) -> None:
    folder, responses = ClipFolder(tmp_path / "clips"), RoomResponses(tmp_path / "rooms")
    stage = line_stage(ROOM_PRESETS["car"], "moving-away", None, 0.0)
    assert stage is not None
    clip = _clip()
    first = Stager(responses, store=folder).clip("L1", clip, stage, RATE, "dry-key")
    expected = stage_clip(clip, stage, RATE, responses.response(ROOM_PRESETS["car"], RATE))
    assert_array_equal(first, expected)
    kept = folder.path(staged_key("dry-key", stage, RATE))
    assert kept.is_file()
    # The next process's stager: the kept file, memory-mapped, not a new staging. A
    # zero clip under the same key proves it: staging it would give silence.
    again = Stager(RoomResponses(tmp_path / "no-rooms"), store=folder).clip(
        "L1", np.zeros_like(clip), stage, RATE, "dry-key")
    assert isinstance(again, np.memmap)
    assert_array_equal(again, expected)
    assert not (tmp_path / "no-rooms").exists()  # no room was simulated or read for it


def test_the_staged_key_changes_with_everything_that_changes_the_staged_clip() -> None:
    kitchen = LineStage(room=ROOM_PRESETS["kitchen"])
    variants = [
        staged_key("dry", kitchen, RATE),
        staged_key("another take", kitchen, RATE),  # the dry clip
        staged_key("dry", LineStage(room=ROOM_PRESETS["cathedral"]), RATE),  # the room
        staged_key("dry", line_stage(ROOM_PRESETS["kitchen"], "off", None, 0.0), RATE),  # the perspective
        staged_key("dry", line_stage(ROOM_PRESETS["kitchen"], "", Position(pan=0.5), 0.0), RATE),  # the position
        staged_key("dry", line_stage(ROOM_PRESETS["kitchen"], "",
                                     Position(path=((0.0, 0.0, 1.0), (1.0, 0.5, 4.0))), 0.0), RATE),  # movement
        staged_key("dry", kitchen, 44_100),  # the rate
    ]
    assert len(set(variants)) == len(variants)
    assert staged_key("dry", LineStage(room=ROOM_PRESETS["kitchen"]), RATE) == variants[0]


def test_an_unkept_stager_still_stages_each_clip_once_by_identity(tmp_path: Path) -> None:
    stager = Stager(RoomResponses(tmp_path / "rooms"))
    stage = LineStage(room=None, level_db=-6.0)
    clip = _clip()
    first = stager.clip("L1", clip, stage, RATE)
    assert stager.clip("L1", clip, stage, RATE) is first
    assert stager.clip("L1", clip, LineStage(room=None, level_db=-3.0), RATE) is not first


_PROBE = """
import json, sys
from engine.cli import main
code = main(["render", sys.argv[1], "-o", sys.argv[2]])
print(json.dumps({"code": code, "modules": sorted({m.split(".")[0] for m in sys.modules
                  if m.split(".")[0] in ("scipy", "onnx", "pyloudnorm", "soxr", "pyroomacoustics")})}))
"""


@pytest.mark.integration
def test_a_cached_render_of_a_staged_project_stages_nothing_again(tmp_path: Path,
                                                                  tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"])
    project.scenes[0].room = ROOM_PRESETS["car"]  # small: its room simulates in a moment
    project.lines[0].perspective = "off"
    project.lines[1].perspective = "phone"
    project.lines[2].perspective = "moving-away"
    project.master_effect = "broadcast"
    path = tmp_path / "staged.radioplay"
    save_project(project, path)
    # A cache folder of its own: the suite's shares its rooms, and this render must simulate one.
    env = {**os.environ, "PYTHONPATH": str(REPO), "RADIOPLAY_CACHE_DIR": str(tmp_path / "cache")}

    def run(out: str) -> dict[str, object]:
        done = subprocess.run([sys.executable, "-c", _PROBE, str(path), str(tmp_path / out)], env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    cold = run("a")
    assert cold["code"] == 0 and {"onnx", "scipy", "pyroomacoustics"} <= set(cold["modules"])  # type: ignore[arg-type]
    assert run("b") == {"code": 0, "modules": []}
    for name in ("mix.wav", "stems/ROLE0.wav", "stems/ROLE2.wav"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    # Staged: ROLE1 stands in the middle, where a dry line is the same left and right; its
    # line in the car is heard by the room's spaced pair of microphones.
    stem, _ = sf.read(tmp_path / "b" / "stems" / "ROLE1.wav", dtype="float32")
    assert np.abs(stem[:, 0] - stem[:, 1]).max() > 1e-4
