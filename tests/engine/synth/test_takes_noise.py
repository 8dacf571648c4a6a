"""A take is a seed: the noise nodes of a voice graph become seeded windows
of one fixed table (engine.synth.backends.piper.noise), the same in every process."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from engine.synth.backends.onnx_sessions import make_session
from engine.synth.backends.piper.noise import TABLE_SIZE, expose_noise, noise_table
from tests.support.paths import REPO


def _noisy_graph() -> onnx.ModelProto:
    """x (batch, channels, time) -> x + N(0, 1) like x, as VITS draws its prior noise."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "c", "t"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "c", "t"])
    nodes = [helper.make_node("RandomNormalLike", ["x"], ["eps"], dtype=TensorProto.FLOAT),
             helper.make_node("Add", ["x", "eps"], ["y"])]
    model = helper.make_model(helper.make_graph(nodes, "noisy", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 15)])
    model.ir_version = 8
    return model


def _run(model: onnx.ModelProto, shape: tuple[int, int, int], offsets: list[int]) -> np.ndarray:
    session = make_session(model.SerializeToString(), 1)
    feeds = {"x": np.zeros(shape, dtype=np.float32), "noise_offset_0": np.array(offsets, dtype=np.int64)}
    return np.asarray(session.run(["y"], feeds)[0])


def test_the_random_node_is_replaced_by_a_seeded_window() -> None:
    model = _noisy_graph()
    noise = expose_noise(model)
    assert noise.names == ("noise_offset_0",)
    assert not any(n.op_type.startswith("RandomNormal") for n in model.graph.node)
    first = _run(model, (2, 3, 50), [7, 1000])
    again = _run(model, (2, 3, 50), [7, 1000])  # a fresh session: nothing carried over
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first[0], first[1])  # another offset, another take
    # Frame-major: frame t, channel c is table[offset + t * channels + c].
    table = noise_table()
    np.testing.assert_array_equal(first[0, :, 4], table[7 + 4 * 3: 7 + 5 * 3])
    # A longer unit starts with the same noise (a frame's noise does not depend on the length).
    longer = _run(model, (1, 3, 80), [7])
    np.testing.assert_array_equal(longer[0, :, :50], first[0])
    # Windows wrap around the table's end instead of failing.
    wrapped = _run(model, (1, 3, 10), [TABLE_SIZE - 4])
    assert np.isfinite(wrapped).all()
    np.testing.assert_array_equal(wrapped[0, :, 2], table[[TABLE_SIZE - 4 + 6 - TABLE_SIZE + i for i in range(3)]])


def test_the_table_is_standard_normal() -> None:
    table = noise_table()
    assert table.dtype == np.float32 and table.shape == (TABLE_SIZE,)
    assert abs(float(table.mean())) < 0.01 and abs(float(table.std()) - 1) < 0.01


def test_feeds_depend_on_the_row_not_its_place_in_a_batch() -> None:
    model = _noisy_graph()
    noise = expose_noise(model)
    ids = np.array([[1, 2, 3, 0], [4, 5, 6, 7]], dtype=np.int64)
    batch = noise.feeds(ids, np.array([3, 4]), seed=3)["noise_offset_0"]
    alone = noise.feeds(ids[1:], np.array([4]), seed=3)["noise_offset_0"]
    padded = noise.feeds(np.array([[1, 2, 3]]), np.array([3]), seed=3)["noise_offset_0"]
    assert batch[1] == alone[0] and batch[0] == padded[0]
    assert noise.feeds(ids, np.array([3, 4]), seed=4)["noise_offset_0"][0] != batch[0]


_SYNTH_IN_A_CHILD = """
import hashlib, sys
from engine.project.model import VoiceParams
from engine.synth.synthesizer import make_synthesizer
synth = make_synthesizer(None, 48000)
for seed in sys.argv[1:]:
    plan = synth.plan("The lamp was still burning when the tide came in.", VoiceParams(), seed=int(seed))
    clip = synth.finish(synth.infer(plan))
    print(seed, clip.shape[0], hashlib.sha256(clip.tobytes()).hexdigest())
"""


def _child(*seeds: int) -> list[str]:
    out = subprocess.run([sys.executable, "-c", _SYNTH_IN_A_CHILD, *map(str, seeds)], cwd=REPO,
                         capture_output=True, text=True, timeout=300, check=True)
    return out.stdout.split("\n")[: len(seeds)]


@pytest.mark.integration
def test_same_seed_same_samples_in_two_processes() -> None:
    """The bundled voice, cold, in two processes: seed 5 twice gives the same
    samples (length and bytes); seed 6 gives another take."""
    first = _child(5, 6)
    second = _child(5)
    assert first[0] == second[0]
    assert first[1].split()[2] != first[0].split()[2]
