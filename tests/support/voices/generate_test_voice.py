"""Generate tiny, deterministic Piper-compatible ONNX voices for the test suite.

Real Piper voices are 20-60 MB and need real inference; unit tests only need
something with Piper's exact ONNX signature and config layout that behaves
predictably.  These models emit a speaker-dependent sine wave whose length is a
pure function of the phoneme count and ``length_scale``, and they expose the
per-phoneme ``durations`` output (in frames of ``hop_length`` samples) like a
voice patched by ``piper.patch_voice_with_alignment``.

Like real VITS, batched items shorter than the longest one get a NON-silent
padded tail, so callers must trim using ``durations`` rather than silence.

Usage: ``python tests/support/voices/generate_test_voice.py OUTDIR``
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import onnx
from onnx import TensorProto, helper

SAMPLE_RATE = 16000
HOP_LENGTH = 256
BASE_FREQ_HZ = 220.0
FRAMES_PER_PHONEME = 2.0  # frames = ceil(length_scale * FRAMES_PER_PHONEME)
MULTI_SPEAKERS = {"alice": 0, "bob": 1, "carol": 2}
OPSET = 17
IR_VERSION = 8  # pinned so serialized bytes don't change with the onnx version

# Symbols of the en_US-joe-medium phoneme_id_map in id order (symbol i -> [i]).
# Embedded so the tests do not depend on the joe voice package being installed.
_PHONEME_SYMBOLS = (
    "_^$ !'(),-.:;?abcdefhijklmnopqrstuvwxyz\xe6\xe7\xf0\xf8\u0127"
    "\u014b\u0153\u01c0\u01c1\u01c2\u01c3\u0250\u0251\u0252\u0253"
    "\u0254\u0255\u0256\u0257\u0258\u0259\u025a\u025b\u025c\u025e"
    "\u025f\u0260\u0261\u0262\u0263\u0264\u0265\u0266\u0267\u0268"
    "\u026a\u026b\u026c\u026d\u026e\u026f\u0270\u0271\u0272\u0273"
    "\u0274\u0275\u0276\u0278\u0279\u027a\u027b\u027d\u027e\u0280"
    "\u0281\u0282\u0283\u0284\u0288\u0289\u028a\u028b\u028c\u028d"
    "\u028e\u028f\u0290\u0291\u0292\u0294\u0295\u0298\u0299\u029b"
    "\u029c\u029d\u029f\u02a1\u02a2\u02b2\u02c8\u02cc\u02d0\u02d1"
    "\u02de\u03b2\u03b8\u03c7\u1d7b\u2c710123456789\u0327\u0303\u032a"
    '\u032f\u0329\u02b0\u02e4\u03b5\u2193#"'
)
PHONEME_ID_MAP: dict[str, list[int]] = {
    symbol: [i] for i, symbol in enumerate(_PHONEME_SYMBOLS)
}


def _const(name: str, value: float | int, dtype: int) -> onnx.TensorProto:
    """Scalar initializer; scalars keep broadcasting simple and the file tiny."""
    return helper.make_tensor(name, dtype, [], [value])


def build_model(num_speakers: int) -> onnx.ModelProto:
    """Build the sine-wave "voice" graph with Piper's inputs and outputs.

    ``sid`` is only an input when ``num_speakers > 1``, exactly like Piper,
    because piper only feeds ``sid`` to multi-speaker models.
    """
    multi = num_speakers > 1
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    inputs = [
        helper.make_tensor_value_info("input", i64, ["batch", "phonemes"]),
        helper.make_tensor_value_info("input_lengths", i64, ["batch"]),
        helper.make_tensor_value_info("scales", f32, [3]),
    ]
    if multi:
        inputs.append(helper.make_tensor_value_info("sid", i64, ["batch"]))
    outputs = [
        helper.make_tensor_value_info("output", f32, ["batch", 1, "samples"]),
        helper.make_tensor_value_info("durations", f32, ["batch", "phonemes"]),
    ]
    inits = [
        _const("i0", 0, i64),
        _const("i1", 1, i64),
        _const("f0", 0.0, f32),
        _const("f1", 1.0, f32),
        _const("f_half", 0.5, f32),
        _const("f_frames", FRAMES_PER_PHONEME, f32),
        _const("f_hop", float(HOP_LENGTH), f32),
        _const("f_base_freq", BASE_FREQ_HZ, f32),
        _const("f_sr", float(SAMPLE_RATE), f32),
        _const("f_omega", 2.0 * math.pi / SAMPLE_RATE, f32),
        helper.make_tensor("axes0", i64, [1], [0]),
        helper.make_tensor("axes1", i64, [1], [1]),
    ]
    n = helper.make_node
    nodes = [
        # Scales: [noise_scale, length_scale, noise_w_scale].
        n("Gather", ["scales", "i0"], ["noise_scale"], axis=0),
        n("Gather", ["scales", "i1"], ["length_scale"], axis=0),
        # mask[b, p] = p < input_lengths[b]  -> padding gets 0 frames.
        n("Shape", ["input"], ["in_shape"]),
        n("Gather", ["in_shape", "i1"], ["num_phonemes"], axis=0),
        n("Range", ["i0", "num_phonemes", "i1"], ["positions"]),
        n("Unsqueeze", ["positions", "axes0"], ["positions_row"]),
        n("Unsqueeze", ["input_lengths", "axes1"], ["lengths_col"]),
        n("Less", ["positions_row", "lengths_col"], ["mask_bool"]),
        n("Cast", ["mask_bool"], ["mask"], to=f32),
        # The single Ceil node produces `durations` directly, so piper's
        # alignment patcher finds it, sees it is already an output, and
        # leaves the model alone (as with a pre-patched real voice).
        n("Mul", ["length_scale", "f_frames"], ["frames_f"]),
        n("Mul", ["mask", "frames_f"], ["durations_raw"]),
        n("Ceil", ["durations_raw"], ["durations"]),
        # T = max_b(sum_p durations[b, p]) * hop_length.
        n("ReduceSum", ["durations", "axes1"], ["item_frames"], keepdims=0),
        n("ReduceMax", ["item_frames"], ["max_frames"], keepdims=0),
        n("Mul", ["max_frames", "f_hop"], ["num_samples"]),
        n("Range", ["f0", "num_samples", "f1"], ["t"]),
        # Wrap at 1 s (an integer number of cycles for every speaker's
        # frequency) so float32 phase stays precise for long outputs.
        n("Mod", ["t", "f_sr"], ["t_wrapped"], fmod=1),
        n("Unsqueeze", ["t_wrapped", "axes0"], ["t_row"]),
    ]
    if multi:
        nodes.append(n("Cast", ["sid"], ["sid_f"], to=f32))
    else:
        # Zeros shaped [batch] so the output still broadcasts to every item.
        nodes += [
            n("Cast", ["input_lengths"], ["lengths_f"], to=f32),
            n("Mul", ["lengths_f", "f0"], ["sid_f"]),
        ]
    nodes += [
        # freq[b] = 220 Hz * (1 + 0.5 * sid[b])
        n("Mul", ["sid_f", "f_half"], ["sid_half"]),
        n("Add", ["sid_half", "f1"], ["freq_factor"]),
        n("Mul", ["freq_factor", "f_base_freq"], ["freq"]),
        n("Mul", ["freq", "f_omega"], ["omega"]),
        n("Unsqueeze", ["omega", "axes1"], ["omega_col"]),
        n("Mul", ["omega_col", "t_row"], ["phase"]),
        n("Sin", ["phase"], ["wave"]),
        # amplitude = 0.5 * (0.5 + 0.5 * min(noise_scale, 1))
        n("Min", ["noise_scale", "f1"], ["noise_clamped"]),
        n("Mul", ["noise_clamped", "f_half"], ["noise_half"]),
        n("Add", ["noise_half", "f_half"], ["amp_factor"]),
        n("Mul", ["amp_factor", "f_half"], ["amplitude"]),
        n("Mul", ["wave", "amplitude"], ["audio"]),
        n("Unsqueeze", ["audio", "axes1"], ["output"]),
    ]
    name = "tiny-multi" if multi else "tiny-single"
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    model = helper.make_model(
        graph,
        producer_name="radioplay-test-voice",
        opset_imports=[helper.make_opsetid("", OPSET)],
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def build_config(dataset: str, speaker_id_map: dict[str, int]) -> dict[str, Any]:
    """Piper .onnx.json with the same layout as a real voice config."""
    return {
        "audio": {"sample_rate": SAMPLE_RATE, "quality": "x_low"},
        "espeak": {"voice": "en-us"},
        "inference": {"noise_scale": 0.667, "length_scale": 1, "noise_w": 0.8},
        "phoneme_type": "espeak",
        "phoneme_map": {},
        "phoneme_id_map": PHONEME_ID_MAP,
        "num_symbols": 256,
        "num_speakers": max(1, len(speaker_id_map)),
        "speaker_id_map": speaker_id_map,
        "hop_length": HOP_LENGTH,
        "piper_version": "1.0.0",
        "language": {"code": "en_US"},
        "dataset": dataset,
    }


def _write_atomic(path: Path, data: bytes) -> None:
    """Write via a unique temp file + os.replace so readers never see a torn file."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as tmp_file:
            tmp_file.write(data)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def generate_voices(out_dir: Path) -> dict[str, Path]:
    """Write the tiny single- and multi-speaker voices; return their .onnx paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    specs = {"single": ("tiny-single", {}), "multi": ("tiny-multi", MULTI_SPEAKERS)}
    paths: dict[str, Path] = {}
    for key, (dataset, speakers) in specs.items():
        model_path = out_dir / f"{dataset}.onnx"
        model = build_model(num_speakers=max(1, len(speakers)))
        config = build_config(dataset, dict(speakers))
        config_text = json.dumps(config, indent=2, ensure_ascii=False) + "\n"
        _write_atomic(model_path, model.SerializeToString(deterministic=True))
        _write_atomic(Path(f"{model_path}.json"), config_text.encode("utf-8"))
        paths[key] = model_path
    return paths


def main(argv: list[str] | None = None) -> int:
    """CLI entry point: ``generate_test_voice.py OUTDIR``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(f"usage: {Path(sys.argv[0]).name} OUTDIR", file=sys.stderr)
        return 2
    for key, path in generate_voices(Path(args[0])).items():
        print(f"{key}: {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
