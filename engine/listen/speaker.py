"""Who is speaking: Resemblyzer's GE2E speaker encoder, run in numpy.

The network (a 3-layer LSTM of 256 units over 40 mel bands, a linear layer
and a ReLU; Wan et al.'s generalized end-to-end loss) and its trained weights
ship in the ``resemblyzer`` wheel. Resemblyzer itself runs it through torch:
importing torch alone costs seconds and hundreds of MiB, more than the
encoding (measured: docs/dev/voices.md). So the same network runs here in
numpy, the weights read straight from the wheel's ``pretrained.pt`` (torch's
legacy serialization: pickles then raw little-endian storages) without torch.
``tests/engine/listen/test_speaker.py`` checks the embeddings against
Resemblyzer's own on the same audio.

An embedding is the L2-normed mean of the embeddings of 1.6 s windows taken
1.3 times a second, as Resemblyzer's ``embed_utterance`` does; two clips of
one person score a cosine similarity of about 0.80-0.90, two people usually
below 0.75. Without resemblyzer installed, :func:`encoder` raises
:class:`SpeakerEncoderUnavailable` and callers go on without similarity.
"""

from __future__ import annotations

import importlib.util
import pickle
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from engine.listen.mel import mel_power

RATE = 16000
N_MELS = 40
N_FFT = 400  # 25 ms
HOP = 160  # 10 ms
PARTIAL_FRAMES = 160  # 1.6 s windows
PARTIALS_PER_S = 1.3
# At most this many windows of one utterance, spread evenly over it (every one of a clip up to
# 49 s): a speech of minutes is still one voice, and all its windows at once took a gigabyte.
MAX_PARTIALS = 64
MIN_COVERAGE = 0.75
TARGET_DBFS = -30.0  # Resemblyzer raises quiet audio to this level before encoding
EMBEDDING_SIZE = 256
_INT16_MAX = 2**15 - 1


class SpeakerEncoderUnavailable(RuntimeError):
    """resemblyzer (which ships the weights) is not installed."""


def weights_path() -> Path:
    """The wheel's weights file, found without importing resemblyzer (whose
    ``__init__`` imports torch)."""
    spec = importlib.util.find_spec("resemblyzer")
    if spec is None or not spec.submodule_search_locations:
        raise SpeakerEncoderUnavailable("the speaker encoder needs the resemblyzer package "
                                        "(pip install 'radioplay[voices]')")
    path = Path(next(iter(spec.submodule_search_locations))) / "pretrained.pt"
    if not path.is_file():
        raise SpeakerEncoderUnavailable(f"{path}: resemblyzer's weights file is missing")
    return path


class _Storage:
    def __init__(self, dtype: type, numel: int) -> None:
        self.dtype, self.numel = dtype, numel
        self.data: np.ndarray | None = None


class _Tensor:
    def __init__(self, storage: _Storage, offset: int, size: tuple[int, ...], stride: tuple[int, ...]) -> None:
        self.storage, self.offset, self.size, self.stride = storage, offset, size, stride

    def array(self) -> np.ndarray:
        data = self.storage.data
        assert data is not None
        item = data.itemsize
        return np.lib.stride_tricks.as_strided(data[self.offset:], self.size,
                                               tuple(s * item for s in self.stride)).astype(np.float32)


_DTYPES: dict[str, type] = {"FloatStorage": np.float32, "DoubleStorage": np.float64,
                            "LongStorage": np.int64, "IntStorage": np.int32}


class _LegacyUnpickler(pickle.Unpickler):
    """Only what a state dict needs: storages, tensors, ordered dicts. Anything
    else in the file is refused rather than executed."""

    def __init__(self, file: Any) -> None:
        super().__init__(file)
        self.storages: dict[str, _Storage] = {}

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch" and name in _DTYPES:
            return _DTYPES[name]
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return lambda storage, offset, size, stride, *_: _Tensor(storage, offset, tuple(size), tuple(stride))
        if module == "collections" and name == "OrderedDict":
            return OrderedDict  # (a state dict carries a _metadata attribute: not a plain dict)
        raise pickle.UnpicklingError(f"unexpected {module}.{name} in the speaker encoder's weights")

    def persistent_load(self, pid: Any) -> _Storage:
        _, dtype, key, _location, numel, _view = pid
        return self.storages.setdefault(key, _Storage(dtype, numel))


def read_state(path: Path) -> dict[str, np.ndarray]:
    """The ``model_state`` of a torch legacy checkpoint as float32 arrays."""
    with open(path, "rb") as f:
        for _ in range(3):  # magic number, protocol version, system info
            pickle.load(f)  # noqa: S301 - the wheel's own file; plain values only
        unpickler = _LegacyUnpickler(f)
        checkpoint = unpickler.load()
        keys = pickle.load(f)  # noqa: S301
        for key in keys:
            storage = unpickler.storages[key]
            numel = int(np.frombuffer(f.read(8), "<i8")[0])
            storage.data = np.frombuffer(f.read(numel * np.dtype(storage.dtype).itemsize), storage.dtype)
    return {name: t.array() for name, t in checkpoint["model_state"].items() if isinstance(t, _Tensor)}


def mel_frames(wav: np.ndarray) -> np.ndarray:
    """The encoder's input: 25 ms frames every 10 ms, 40 mel bands of power."""
    return mel_power(wav, RATE, N_FFT, HOP, N_MELS)


def prepare(audio: np.ndarray, rate: int) -> np.ndarray:
    """Mono float audio at 16 kHz, raised to Resemblyzer's level if quieter."""
    wav = np.asarray(audio, dtype=np.float32).reshape(-1)
    if rate != RATE:
        import soxr

        wav = soxr.resample(wav, rate, RATE).astype(np.float32)
    rms = float(np.sqrt(np.mean((wav.astype(np.float64) * _INT16_MAX) ** 2))) if len(wav) else 0.0
    if rms > 0:
        change = TARGET_DBFS - 20 * np.log10(rms / _INT16_MAX)
        if change > 0:
            wav = wav * np.float32(10 ** (change / 20))
    return wav


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow warnings for large |x|


class SpeakerEncoder:
    """The GE2E network on numpy arrays; one instance may serve one thread at a time."""

    def __init__(self, state: dict[str, np.ndarray]) -> None:
        self.layers = []
        for k in range(3):
            w_ih, w_hh = state[f"lstm.weight_ih_l{k}"], state[f"lstm.weight_hh_l{k}"]
            bias = state[f"lstm.bias_ih_l{k}"] + state[f"lstm.bias_hh_l{k}"]
            self.layers.append((np.ascontiguousarray(w_ih.T), np.ascontiguousarray(w_hh.T), bias))
        self.linear_w = np.ascontiguousarray(state["linear.weight"].T)
        self.linear_b = state["linear.bias"]

    def partials(self, mels: np.ndarray) -> np.ndarray:
        """Embeddings of a batch of mel windows (batch x frames x 40), each L2-normed."""
        # 480 small matrix products in a row: a multi-threaded BLAS spends them waking threads
        # (measured: 27x slower on a loaded 2-core machine than one thread, docs/dev/voices.md).
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            return self._partials(mels)
        with threadpool_limits(1, user_api="blas"):
            result: np.ndarray = self._partials(mels)
        return result

    def _partials(self, mels: np.ndarray) -> np.ndarray:
        x = mels.astype(np.float32)
        batch, steps, _ = x.shape
        for w_ih, w_hh, bias in self.layers:
            hidden = w_hh.shape[0]
            gates_in = x @ w_ih + bias  # every step's input projection at once
            h = np.zeros((batch, hidden), np.float32)
            c = np.zeros((batch, hidden), np.float32)
            out = np.empty((batch, steps, hidden), np.float32)
            for t in range(steps):
                g = gates_in[:, t] + h @ w_hh
                i, f, cell, o = (g[:, :hidden], g[:, hidden:2 * hidden], g[:, 2 * hidden:3 * hidden],
                                 g[:, 3 * hidden:])
                c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(cell)
                h = _sigmoid(o) * np.tanh(c)
                out[:, t] = h
            x = out
        raw = np.maximum(0.0, x[:, -1] @ self.linear_w + self.linear_b)
        return np.asarray(raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12), dtype=np.float32)

    def embed(self, audio: np.ndarray, rate: int) -> np.ndarray:
        """One utterance's embedding (256 values, L2-normed)."""
        wav = prepare(audio, rate)
        starts, stop = _partial_starts(len(wav))
        if stop > len(wav):
            wav = np.pad(wav, (0, stop - len(wav)))
        mel = mel_frames(wav)
        if len(starts) > MAX_PARTIALS:
            starts = [starts[int(k)] for k in np.linspace(0, len(starts) - 1, MAX_PARTIALS).round()]
        mels = np.stack([mel[s:s + PARTIAL_FRAMES] for s in starts])
        mean = self.partials(mels).mean(axis=0)
        return np.asarray(mean / np.linalg.norm(mean), dtype=np.float32)

    def embed_speaker(self, clips: Sequence[tuple[np.ndarray, int]]) -> np.ndarray:
        """A voice from several utterances: the normed mean of their embeddings."""
        mean = np.mean([self.embed(audio, rate) for audio, rate in clips], axis=0)
        return np.asarray(mean / np.linalg.norm(mean), dtype=np.float32)


def _partial_starts(n_samples: int) -> tuple[list[int], int]:
    """Frame starts of the 1.6 s windows (Resemblyzer's compute_partial_slices)
    and the sample length the audio must be padded to."""
    n_frames = int(np.ceil((n_samples + 1) / HOP))
    step = int(np.round((RATE / PARTIALS_PER_S) / HOP))
    starts = list(range(0, max(1, n_frames - PARTIAL_FRAMES + step + 1), step))
    last = starts[-1] * HOP
    coverage = (n_samples - last) / (PARTIAL_FRAMES * HOP)
    if coverage < MIN_COVERAGE and len(starts) > 1:
        starts = starts[:-1]
    return starts, (starts[-1] + PARTIAL_FRAMES) * HOP


@cache
def encoder() -> SpeakerEncoder:
    """The process's encoder (weights read once)."""
    return SpeakerEncoder(read_state(weights_path()))


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two embeddings (both L2-normed)."""
    return float(np.dot(a, b))
