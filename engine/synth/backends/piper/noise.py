"""Seeded noise for Piper (VITS) voices: a take is a seed.

A Piper graph draws its noise with two ``RandomNormalLike`` nodes (the
duration predictor's and the prior's), so two runs of one line differ in
length and samples, and a seed set on the node would only seed a sequence
that advances with every call in that session. Here each such node is
replaced, in memory, by a window of one fixed table of normal values (an
initializer drawn once from a fixed PCG64 seed) starting at an offset the
caller feeds per batch row (``noise_offset_<k>``). The offset is a hash of
the take's seed, the unit's phoneme ids and the node, so the same text,
voice, settings and seed give the same noise in any process, and another
seed gives another take. Measured (bench/takes_speed.py): speed unchanged.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

# 2**20 values (4 MB): 5,461 frames of the 192-channel prior (about a minute
# of audio) before a window wraps; a longer unit reuses the table from its
# start, which is still deterministic.
TABLE_SIZE = 1 << 20
TABLE_SEED = 0x5EED_7AB1E  # never change: it is part of every take's sound
OFFSET_INPUT = "noise_offset_"
_TABLE = "radioplay_noise_table"


@dataclass(frozen=True)
class NoiseInputs:
    """The offset inputs added to a graph, one per replaced noise node."""

    names: tuple[str, ...]

    def feeds(self, ids: np.ndarray, lengths: np.ndarray, seed: int) -> dict[str, np.ndarray]:
        """Per-row offsets for a (batch, phonemes) id matrix: each row's from
        its own ids (not its place in the batch), so batching keeps the take."""
        rows = [np.asarray(ids[row, : int(lengths[row])], dtype=np.int64).tobytes()
                for row in range(ids.shape[0])]
        return {name: np.array([offset(seed, unit, k) for unit in rows], dtype=np.int64)
                for k, name in enumerate(self.names)}


def offset(seed: int, unit: bytes, node: int) -> int:
    """Where in the table a unit's noise for one node starts (blake2b: the
    same in every process, unlike Python's hash)."""
    digest = hashlib.blake2b(unit, digest_size=8, key=f"{seed}:{node}".encode()).digest()
    return int.from_bytes(digest, "little") % TABLE_SIZE


def noise_table() -> np.ndarray:
    return np.random.Generator(np.random.PCG64(TABLE_SEED)).standard_normal(TABLE_SIZE, dtype=np.float32)


def _rank3_noise_nodes(model: Any) -> list[Any]:
    """The RandomNormalLike nodes whose input is a (batch, channels, time)
    tensor, as in every Piper export; others are left alone."""
    import onnx

    nodes = [n for n in model.graph.node if n.op_type == "RandomNormalLike"]
    if not nodes:
        return []
    inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    ranks = {v.name: len(v.type.tensor_type.shape.dim) for v in inferred.graph.value_info}
    ranks.update({v.name: len(v.type.tensor_type.shape.dim) for v in inferred.graph.input})
    return [n for n in nodes if ranks.get(n.input[0]) == 3]


def expose_noise(model: Any) -> NoiseInputs:
    """Replace the graph's rank-3 RandomNormalLike nodes in place (see the
    module docstring); returns the offset inputs to feed."""
    from onnx import TensorProto, helper, numpy_helper

    nodes = _rank3_noise_nodes(model)
    if not nodes:
        return NoiseInputs(())
    graph = model.graph
    graph.initializer.append(numpy_helper.from_array(noise_table(), _TABLE))
    graph.initializer.append(numpy_helper.from_array(np.array(TABLE_SIZE, dtype=np.int64), _TABLE + "_size"))
    for axis in (0, 1, 2):
        graph.initializer.append(numpy_helper.from_array(np.array([axis], dtype=np.int64), f"{_TABLE}_axis{axis}"))
    graph.initializer.append(numpy_helper.from_array(np.array(0, dtype=np.int64), _TABLE + "_zero"))
    graph.initializer.append(numpy_helper.from_array(np.array(1, dtype=np.int64), _TABLE + "_one"))
    names = []
    for k, node in enumerate(nodes):
        name = f"{OFFSET_INPUT}{k}"
        names.append(name)
        graph.input.append(helper.make_tensor_value_info(name, TensorProto.INT64, ["batch"]))
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        p = f"/radioplay_noise{k}/"
        like, out = node.input[0], node.output[0]
        new = [
            helper.make_node("Shape", [like], [p + "shape"]),
            helper.make_node("Gather", [p + "shape", f"{_TABLE}_axis0"], [p + "b"], axis=0),
            helper.make_node("Gather", [p + "shape", f"{_TABLE}_axis1"], [p + "c"], axis=0),
            helper.make_node("Gather", [p + "shape", f"{_TABLE}_axis2"], [p + "t"], axis=0),
            helper.make_node("Mul", [p + "c", p + "t"], [p + "n1"]),
            helper.make_node("Squeeze", [p + "n1"], [p + "n"]),
            helper.make_node("Range", [_TABLE + "_zero", p + "n", _TABLE + "_one"], [p + "range"]),
            helper.make_node("Unsqueeze", [p + "range", f"{_TABLE}_axis0"], [p + "row"]),
            helper.make_node("Unsqueeze", [name, f"{_TABLE}_axis1"], [p + "col"]),
            helper.make_node("Add", [p + "col", p + "row"], [p + "sum"]),
            helper.make_node("Mod", [p + "sum", _TABLE + "_size"], [p + "idx"]),
            helper.make_node("Gather", [_TABLE, p + "idx"], [p + "flat"], axis=0),
            # Frame-major (time, channel), so a frame's noise does not depend
            # on how long the unit turns out to be.
            helper.make_node("Concat", [p + "b", p + "t", p + "c"], [p + "btc"], axis=0),
            helper.make_node("Reshape", [p + "flat", p + "btc"], [p + "framed"]),
        ]
        result = p + "normal"
        new.append(helper.make_node("Transpose", [p + "framed"], [result], perm=[0, 2, 1]))
        scale, mean = float(attrs.get("scale", 1.0)), float(attrs.get("mean", 0.0))
        if scale != 1.0:
            graph.initializer.append(numpy_helper.from_array(np.array(scale, dtype=np.float32), p + "scale"))
            new.append(helper.make_node("Mul", [result, p + "scale"], [p + "scaled"]))
            result = p + "scaled"
        if mean != 0.0:
            graph.initializer.append(numpy_helper.from_array(np.array(mean, dtype=np.float32), p + "mean"))
            new.append(helper.make_node("Add", [result, p + "mean"], [p + "shifted"]))
            result = p + "shifted"
        new.append(helper.make_node("Identity", [result], [out]))
        index = list(graph.node).index(node)
        graph.node.remove(node)
        for i, made in enumerate(new):
            graph.node.insert(index + i, made)
    return NoiseInputs(tuple(names))
