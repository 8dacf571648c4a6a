"""Where a Kokoro line's words lie, from the model's own duration predictor.

Kokoro's published graphs output only the waveform, so its clips' words are
estimated (spread over the voiced audio by phoneme counts: engine.synth.wordtimes).
A take directed by a read (engine/synth/read_transfer.py) moves each word onto
the read's, and an estimate off by a syllable moves the wrong sound there. The
graph does compute each token's length before the decoder: its ``/encoder/Round``
node, whole frames of :data:`SAMPLES_PER_FRAME` samples, deterministic for the
same tokens, style and speed. So the graph up to that node is cut out of the
model (onnx's extractor) and run on the same feeds as the line: the words then
lie where the model put them, for tens of milliseconds a line.

The cut graph is kept in the models folder, sealed as the joined model is
(engine/synth/backends/sealed_model.py), named by the digest of the model it came from;
a model without that node (another export) keeps the estimate.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.synth.backends.base import Inference, InferenceSettings, PhonemeUnit
from engine.synth.backends.kokoro import voices as kokoro_voices
from engine.synth.backends.sealed_model import SealError, sealed_source, write_sealed
from engine.synth.wordtimes import unit_words

log = logging.getLogger(__name__)

DURATIONS_NODE = "/encoder/Round_output_0"  # per token (pads included), in decoder frames
SAMPLES_PER_FRAME = 600  # at 24 kHz: the decoder's upsampling of one predicted frame
# The waveform runs this many frames ahead of the predicted ones: against pocketsphinx's
# alignment of the same clips, Kokoro's durations put words 50 ms later than Piper's do
# (docs/dev/direct-by-voice.md).
LEAD_FRAMES = 2
_VERSION = 1  # of the cut: a change to it names new files

_sessions: dict[tuple[str, int, int], Any] = {}  # model (path, size, mtime) -> its durations session, or None
_lock = threading.Lock()


def timed(model: Any, units: list[PhonemeUnit], inferred: list[Inference], settings: InferenceSettings,
          separators: frozenset[int], silent: frozenset[int]) -> list[Inference]:
    """``inferred`` (a Kokoro ``model``'s) with each unit's words timed by the model's
    durations, where its words are only counted and its graph has the node; else
    ``inferred`` as it is. ``separators`` and ``silent``: the model's word-gap and
    silent tokens (engine/synth/backends/kokoro/backend.py)."""
    if all(i.words.spans is not None for i in inferred):
        return inferred
    session = _durations_session(model)
    if session is None:
        return inferred
    out = []
    for unit, inference in zip(units, inferred, strict=True):
        if not unit.ids:
            out.append(inference)
            continue
        frames = np.asarray(session.run(None, model.feeds(unit.ids, settings))[0], dtype=np.float64).reshape(-1)
        if frames.size != len(unit.ids) + 2 or round(frames.sum() * SAMPLES_PER_FRAME) != inference.audio.size:
            out.append(inference)  # not the lengths this audio was made with: keep the estimate
            continue
        # The leading pad (id 0, a separator here) sounds before the first token, less the
        # waveform's lead.
        lengths = frames[:-1] * SAMPLES_PER_FRAME
        lengths[0] = max(0.0, lengths[0] - LEAD_FRAMES * SAMPLES_PER_FRAME)
        words = unit_words((0, *unit.ids), separators | {0}, silent, lengths, model.sample_rate)
        out.append(replace(inference, words=words))
    return out


def _durations_session(model: Any) -> Any:
    """The cut graph's session for ``model``'s file (made once per process), or None."""
    path: Path = model.info.model_path
    try:
        st = path.stat()
    except OSError:
        return None
    memo = (str(path), st.st_size, st.st_mtime_ns)
    with _lock:
        if memo in _sessions:
            return _sessions[memo]
        session = _make_session(model)
        _sessions[memo] = session
        return session


def _make_session(model: Any) -> Any:
    import onnxruntime as ort

    source = kokoro_voices.model_source(model.info.model_path, model.info.source)
    digest = hashlib.blake2b(Path(source).read_bytes() if isinstance(source, str) else source,
                             digest_size=16).hexdigest()
    kept = kokoro_voices.model_cache_dir() / f"kokoro-durations.{digest}.v{_VERSION}.onnx"
    graph: str | bytes | None = None
    try:
        graph = sealed_source(kept)
    except (FileNotFoundError, SealError):
        graph = None
    except OSError as exc:
        log.warning("warning: cannot read %s: %s; cutting the durations graph again", kept, exc)
    if graph is None:
        graph = _cut(source, model)
        if graph is None:
            return None
        try:
            kept.parent.mkdir(parents=True, exist_ok=True)
            write_sealed(kept, graph)
        except OSError:
            pass  # made again by the next process: slower, still right
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


def _cut(source: str | bytes, model: Any) -> bytes | None:
    """The model's graph from its inputs to the durations node, or None (no such node,
    or onnx, an optional dependency of Piper's alignment, missing)."""
    try:
        import onnx
        from onnx.utils import Extractor
    except ImportError:
        return None
    graph = onnx.load_from_string(source) if isinstance(source, bytes) else onnx.load(source)
    if not any(DURATIONS_NODE in node.output for node in graph.graph.node):
        log.info("%s has no %s node: its words stay estimated", model.info.model_path, DURATIONS_NODE)
        return None
    inputs = [i.name for i in graph.graph.input]
    try:
        cut = Extractor(graph).extract_model(inputs, [DURATIONS_NODE])
    except Exception as exc:  # onnx raises its own types for a graph it cannot cut
        log.info("cannot cut the durations graph of %s: %s", model.info.model_path, exc)
        return None
    return bytes(cut.SerializeToString())
