"""Does a blend of two speakers of a multi-speaker Piper voice still speak clearly?

    python bench/speaker_blend.py MODEL.onnx --speakers A,B [--weights 0,0.25,0.5,0.75,1] [--sentences 20]

Piper (VITS) looks a speaker up in an embedding table, ``g = emb_g[sid]``
(an ONNX Gather on an initializer of shape (speakers, channels)), and
conditions the duration predictor, the flow and the decoder on ``g``. This
script patches the graph in memory the way durations are exposed for batching
(engine/synth/backends/piper/backend.py): the Gather goes, and ``g`` becomes an input,
``speaker_embedding``, so any mix ``w * emb[A] + (1 - w) * emb[B]`` can be
fed. Each weight speaks the held-out sentences of bench/shaping_wer.py
(variation 0, so the only difference is the embedding), and pocketsphinx's
en-US model writes down what it hears: the word error rate per weight, beside
the two pure speakers (weights 0 and 1, which must equal the unpatched model).

Only a real multi-speaker voice can answer the question (the catalogue's
``en_US-libritts_r-medium``, 904 speakers, or ``en_GB-vctk-medium``: download
one with ``radioplay voices --download KEY``). The tiny test voices have no
embedding table (their speaker id scales a sine wave), so on them the script
says so and stops.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shaping_wer import SENTENCES, Recognizer, edit_distance, words  # noqa: E402
from engine.synth.backends.onnx_sessions import make_session  # noqa: E402
from engine.synth.backends.piper.backend import PiperVoiceModel  # noqa: E402
from engine.synth.library import read_voice_info  # noqa: E402

INPUT = "speaker_embedding"


def expose_speaker_embedding(model: Any, num_speakers: int) -> tuple[Any, np.ndarray]:
    """(patched model, embedding table): the speaker lookup replaced by an input."""
    from onnx import TensorProto, helper, numpy_helper

    tables = {init.name: init for init in model.graph.initializer
              if len(init.dims) == 2 and init.dims[0] == num_speakers}
    lookup = next((node for node in model.graph.node if node.op_type == "Gather" and node.input[0] in tables), None)
    if lookup is None:
        raise SystemExit(f"no speaker embedding table ({num_speakers} rows) in this graph: not a VITS Piper voice "
                         "with speakers (the tiny test voices have none)")
    table = numpy_helper.to_array(tables[lookup.input[0]]).astype(np.float32)
    out = lookup.output[0]
    model.graph.node.remove(lookup)
    for node in model.graph.node:
        for i, name in enumerate(node.input):
            if name == out:
                node.input[i] = INPUT
    model.graph.input.append(helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, ["batch", table.shape[1]]))
    used = {name for node in model.graph.node for name in node.input}
    for stale in [i for i in model.graph.input if i.name == lookup.input[1] and i.name not in used]:
        model.graph.input.remove(stale)  # Piper reads sid only to look the speaker up
    if lookup.input[0] not in used:
        model.graph.initializer.remove(tables[lookup.input[0]])
    return model, table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path)
    parser.add_argument("--speakers", required=True, help="two speakers, by name or number: A,B")
    parser.add_argument("--weights", default="0,0.25,0.5,0.75,1", help="share of speaker A")
    parser.add_argument("--sentences", type=int, default=20)
    args = parser.parse_args()
    import onnx

    info = read_voice_info(args.model)
    a, b = (info.speaker_id(s if not s.isdigit() else int(s)) for s in args.speakers.split(","))
    patched, table = expose_speaker_embedding(onnx.load(str(args.model)), info.num_speakers)
    voice = PiperVoiceModel(info)
    blend_session = make_session(patched.SerializeToString())
    settings = voice.settings(1.0, 0.0, a)  # variation 0: the embedding is the only difference
    recognize = Recognizer()
    sentences = SENTENCES[: args.sentences]
    units = [voice.phonemize([s]) for s in sentences]
    total = sum(len(words(s)) for s in sentences)
    results: dict[str, float] = {}
    for weight in (float(w) for w in args.weights.split(",")):
        g = (weight * table[a] + (1 - weight) * table[b])[None, :]
        errors = 0
        for text, pieces in zip(sentences, units, strict=True):
            audio = []
            for unit in pieces:
                ids = np.asarray(unit.ids, dtype=np.int64)[None, :]
                feeds = voice.feeds(ids, np.array([ids.shape[1]], dtype=np.int64), settings)
                feeds.pop("sid", None)
                feeds[INPUT] = g.astype(np.float32)
                audio.append(blend_session.run(["output"], feeds)[0].reshape(-1))
            errors += edit_distance(words(text), words(recognize(np.concatenate(audio), voice.sample_rate)))
        results[f"{weight:g}"] = errors / total
        print(f"  share of {args.speakers.split(',')[0]} {weight:4.2f}: WER {results[f'{weight:g}']:.3f}",
              file=sys.stderr, flush=True)
    print(json.dumps({"model": str(args.model), "speakers": args.speakers, "words": total, "wer": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
