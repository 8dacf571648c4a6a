"""A voice session's memory must not grow with the number of lines voiced.

ONNX Runtime's memory pattern keeps a plan per input shape seen and its CPU
arena never hands back what it grew to; every line has its own length, so
both grew with a production's length (a 60-minute render peaked at 1.7 GB;
bench/memprobe.py measures it). Sessions are made without them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from engine.synth.onnx_sessions import make_session


def test_sessions_keep_no_per_shape_memory(tiny_voices: dict[str, Path]) -> None:
    model = next(p for p in tiny_voices.values() if p.suffix == ".onnx")
    session = make_session(str(model), 1)
    options = session.get_session_options()
    assert options.enable_mem_pattern is False
    assert options.enable_cpu_mem_arena is False
    inputs = {i.name for i in session.get_inputs()}
    for length in (5, 17, 40):  # and lines of every length still run
        feeds = {"input": np.ones((1, length), dtype=np.int64), "input_lengths": np.array([length], dtype=np.int64),
                 "scales": np.array([0.667, 1.0, 0.8], dtype=np.float32)}
        if "sid" in inputs:
            feeds["sid"] = np.array([0], dtype=np.int64)
        assert np.asarray(session.run(None, feeds)[0]).size > 0


def test_a_session_made_from_bytes_does_not_keep_them(tiny_voices: dict[str, Path]) -> None:
    """The patched voice (64 MB for the bundled one) is made in memory; the
    sessions must not hold it for the whole render."""
    model = next(p for p in tiny_voices.values() if p.suffix == ".onnx")
    data = model.read_bytes()
    before = sys.getrefcount(data)
    session = make_session(data, 1)
    assert sys.getrefcount(data) == before
    assert session.get_inputs()[0].name == "input"
