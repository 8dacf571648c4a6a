"""Generate a tiny Kokoro-signature ONNX model and voices file for the tests.

The real Kokoro-82M is 92 MB (int8) and runs near real time on this CPU;
unit tests need only its exact interface: inputs ``tokens`` (1, n) int64,
``style`` (1, 256) float32 and ``speed`` (1,) float32, output ``audio``
(samples,) float32, and a ``voices-v1.0.bin`` npz of (rows, 1, 256) style
vectors. The model emits a sine whose length is a pure function of the
token count and speed (``SAMPLES_PER_TOKEN * n / speed``, rounded up) and
whose frequency is ``BASE_FREQ_HZ * (1 + style[0])``, so a test can tell
which style vector (or which blend of them) was used from the pitch.

Usage: ``python tests/support/voices/generate_test_kokoro.py OUTDIR``
"""

from __future__ import annotations

import io
import math
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

SAMPLE_RATE = 24_000
SAMPLES_PER_TOKEN = 1200  # 50 ms of audio per token (pads included)
BASE_FREQ_HZ = 200.0
ROWS = 64  # real voices files have 510 rows (one per input length); the backend takes min(n, rows)
# style[0] of every row: frequency factor - 1 (af_alpha 200 Hz, am_beta 400 Hz, bf_gamma 300 Hz).
STYLES = {"af_alpha": 0.0, "am_beta": 1.0, "bf_gamma": 0.5}
OPSET = 17
IR_VERSION = 8


def build_model() -> onnx.ModelProto:
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    inputs = [
        helper.make_tensor_value_info("tokens", i64, [1, "sequence_length"]),
        helper.make_tensor_value_info("style", f32, [1, 256]),
        helper.make_tensor_value_info("speed", f32, [1]),
    ]
    outputs = [helper.make_tensor_value_info("audio", f32, ["audio_length"])]
    inits = [
        helper.make_tensor("i1", i64, [], [1]),
        helper.make_tensor("i0", i64, [], [0]),
        helper.make_tensor("f0", f32, [], [0.0]),
        helper.make_tensor("f1", f32, [], [1.0]),
        helper.make_tensor("f_per_token", f32, [], [float(SAMPLES_PER_TOKEN)]),
        helper.make_tensor("f_omega", f32, [], [2.0 * math.pi * BASE_FREQ_HZ / SAMPLE_RATE]),
        helper.make_tensor("f_amp", f32, [], [0.5]),
    ]
    n = helper.make_node
    nodes = [
        n("Shape", ["tokens"], ["shape"]),
        n("Gather", ["shape", "i1"], ["count"], axis=0),
        n("Cast", ["count"], ["count_f"], to=f32),
        n("Mul", ["count_f", "f_per_token"], ["samples_at_1"]),
        n("Div", ["samples_at_1", "speed"], ["samples_vec"]),
        n("Ceil", ["samples_vec"], ["samples_ceil"]),
        n("ReduceMax", ["samples_ceil"], ["samples"], axes=[0], keepdims=0),
        n("Range", ["f0", "samples", "f1"], ["t"]),
        n("Gather", ["style", "i0"], ["style_row"], axis=0),
        n("Gather", ["style_row", "i0"], ["style0"], axis=0),
        n("Add", ["style0", "f1"], ["factor"]),
        n("Mul", ["factor", "f_omega"], ["omega"]),
        n("Mul", ["t", "omega"], ["phase"]),
        n("Sin", ["phase"], ["wave"]),
        n("Mul", ["wave", "f_amp"], ["audio"]),
    ]
    graph = helper.make_graph(nodes, "tiny-kokoro", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, producer_name="radioplay-test-kokoro",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def voices_bytes(styles: dict[str, float] = STYLES) -> bytes:
    """An npz like voices-v1.0.bin: (ROWS, 1, 256) float32 per voice."""
    arrays = {}
    for name, factor in styles.items():
        vector = np.zeros((ROWS, 1, 256), dtype=np.float32)
        vector[:, 0, 0] = factor
        vector[:, 0, 1:] = np.linspace(-0.1, 0.1, 255, dtype=np.float32)  # not all zeros, like a real one
        arrays[name] = vector
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def generate_kokoro(out_dir: Path, model_name: str = "kokoro-v1.0.onnx") -> tuple[Path, Path]:
    """Write the tiny model and voices file into ``out_dir``; return their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    model_path, voices_path = out_dir / model_name, out_dir / "voices-v1.0.bin"
    model_path.write_bytes(build_model().SerializeToString(deterministic=True))
    voices_path.write_bytes(voices_bytes())
    return model_path, voices_path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(f"usage: {Path(sys.argv[0]).name} OUTDIR", file=sys.stderr)
        sys.exit(2)
    for path in generate_kokoro(Path(sys.argv[1])):
        print(f"{path} ({path.stat().st_size} bytes)")
