"""Which device synthesis runs on (``--device auto|cpu|cuda[:N]`` against what ONNX
Runtime offers here, and why), and what a device gets: its sessions' layout and its
device pool (engine/memory/device_pool.py).

``auto`` takes a GPU when ONNX Runtime offers its CUDA provider and a device answers
(a one-operator graph is run on it: a CUDA provider whose libraries or driver are
missing is listed all the same, and ONNX Runtime would fall back to the CPU without a
word), otherwise the CPU, and the :class:`SynthDevice` says which and why. A device
asked for by name that is not there is a :class:`DeviceUnavailable`: one line naming
what is missing and how to install it. The answer for a device is kept for the
process (a probe starts the CUDA runtime once, a second or so).

The synthesis device is not the sound device: ``play`` and ``rehearse`` keep
``--device`` for the audio output (docs/user/command-line.md says which is which).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from engine.memory.arena import Arena
from engine.memory.device_pool import DevicePool
from engine.synth.backends.onnx_sessions import SessionLayout

DEVICE_FORMS = "auto, cpu, cuda or cuda:N"
GPU_INSTALL = "pip install 'radioplay[gpu]' (onnxruntime-gpu in place of onnxruntime, and torch)"
CUDA_PROVIDER = "CUDAExecutionProvider"
CPU_PROVIDER = "CPUExecutionProvider"


class DeviceUnavailable(ValueError):
    """A synthesis device asked for by name is not here (one line, with the install hint)."""


@dataclass(frozen=True)
class SynthDevice:
    """Where synthesis runs: ``kind`` "cpu" or "cuda" (device ``index``), what was asked
    (``asked``: auto, cpu, cuda:1) and why this one (``reason``)."""

    kind: str = "cpu"
    index: int = 0
    asked: str = "cpu"
    reason: str = "asked for"

    @property
    def name(self) -> str:
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    @property
    def providers(self) -> list[Any]:
        """ONNX Runtime's execution providers for this device, first choice first."""
        if self.kind == "cuda":
            # HEURISTIC: the exhaustive cuDNN search ran every convolution algorithm for
            # each new input length, and every line has its own.
            return [(CUDA_PROVIDER, {"device_id": self.index, "cudnn_conv_algo_search": "HEURISTIC"}), CPU_PROVIDER]
        return [CPU_PROVIDER]

    def describe(self) -> str:
        """``synthesis on cuda:0 (auto: ...)``: what the verbs print and the monitor shows."""
        return f"synthesis on {self.name} ({self.reason})"


CPU = SynthDevice()

# The device pool's size (engine/memory/device_pool.py): the model output of the clips
# being voiced at once (a batch per session), a few minutes of it on the CPU, where the
# pool is host memory standing in for a device's; more on a GPU, whose memory is there
# for it. A clip longer than the free room is gathered in room of its own.
DEVICE_POOL_BYTES = {"cpu": 32 << 20, "cuda": 256 << 20}


def device_pool(device: SynthDevice) -> DevicePool[Any]:
    """The device pool of a synthesis device: host memory on the CPU (no torch), a torch
    tensor on CUDA."""
    frames = DEVICE_POOL_BYTES.get(device.kind, DEVICE_POOL_BYTES["cpu"]) // 4
    if device.kind == "cpu":
        return DevicePool(Arena(frames), device.name)
    from engine.memory.device import TorchStorage

    return DevicePool(Arena(frames, storage=TorchStorage(device.name)), device.name)


def layout_for(device: SynthDevice | None) -> SessionLayout:
    """The sessions for a device: on the CPU one single-threaded session per core (the
    most audio per second there: docs/dev/benchmarks.md); on a GPU two, so one runs while
    the other's inputs are bound and its output gathered (a session's CPU threads only
    feed the device)."""
    if device is not None and device.kind == "cuda":
        return SessionLayout(2, 1)
    return SessionLayout.for_throughput()


def parse_device(text: str) -> tuple[str, int | None]:
    """("auto" | "cpu" | "cuda", index or None); ValueError naming the forms there are."""
    match = re.fullmatch(r"\s*(auto|cpu|cuda)(?::(\d{1,3}))?\s*", text.lower())
    if match is None or (match.group(2) is not None and match.group(1) != "cuda"):
        raise ValueError(f"--device {text!r}: expected {DEVICE_FORMS}")
    return match.group(1), int(match.group(2)) if match.group(2) is not None else None


def choose_device(asked: str = "auto") -> SynthDevice:
    """The device for ``--device asked``. Raises ValueError for a malformed name and
    DeviceUnavailable for a CUDA device that is not here."""
    kind, index = parse_device(asked)
    if kind == "cpu":
        return SynthDevice(asked="cpu", reason="asked for")
    problem = cuda_problem(index or 0)
    if kind == "auto":
        if problem is None:
            return SynthDevice("cuda", 0, "auto", "auto: ONNX Runtime's CUDA provider answered on device 0")
        return SynthDevice(asked="auto", reason=f"auto: {problem}")
    name = f"cuda:{index}" if index is not None else "cuda"
    if problem is not None:
        raise DeviceUnavailable(f"--device {name}: {problem}; to synthesize on an NVIDIA GPU: {GPU_INSTALL}")
    return SynthDevice("cuda", index or 0, name, "asked for")


def preferred_device(asked: str) -> SynthDevice:
    """The device for a remembered preference (the studio's): one gone since it was chosen,
    or a name that no longer parses, is said in the reason and ``auto`` taken instead of
    refusing to start."""
    try:
        return choose_device(asked)
    except ValueError as exc:  # DeviceUnavailable too
        why = "is not here" if isinstance(exc, DeviceUnavailable) else "is no device name"
        fallback = choose_device("auto")
        return SynthDevice(fallback.kind, fallback.index, "auto", f"the preferred {asked} {why}; {fallback.reason}")


def cuda_offered() -> bool:
    """Whether ONNX Runtime here lists its CUDA provider (cheap: no device is started)."""
    import onnxruntime as ort

    return CUDA_PROVIDER in ort.get_available_providers()


@functools.cache
def cuda_problem(index: int) -> str | None:
    """Why CUDA device ``index`` cannot synthesize here, or None when it answers."""
    import onnxruntime as ort

    offered = ort.get_available_providers()
    if CUDA_PROVIDER not in offered:
        names = [p.removesuffix("ExecutionProvider") for p in offered]
        listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
        return f"onnxruntime {ort.__version__} here offers no CUDA provider, only {listed}"
    try:
        import torch  # noqa: F401 - the device pool's memory (engine/memory/device.py)
    except ImportError:
        return "the GPU pools need torch, which is not installed"
    options = ort.SessionOptions()
    options.log_severity_level = 4  # said here in one line, not in ONNX Runtime's log
    try:
        session = ort.InferenceSession(_probe_model(), options,
                                       providers=SynthDevice("cuda", index).providers)
        if session.get_providers()[0] != CUDA_PROVIDER:
            return (f"ONNX Runtime's CUDA provider did not start on device {index}: the CUDA or cuDNN libraries "
                    "it needs, or the driver, are missing")
        import numpy as np

        x = np.arange(4, dtype=np.float32)
        if not np.array_equal(session.run(None, {"x": x})[0], -x):
            return f"CUDA device {index} ran a test graph wrongly"
    except Exception as exc:  # noqa: BLE001 - ORT's own exception types; its first line says what
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"CUDA device {index} does not answer: {first[:160]}"
    return None


def _probe_model() -> bytes:
    """A graph of one operator (y = -x) to run on a device to see that it answers."""
    import onnx.helper as helper
    from onnx import TensorProto

    graph = helper.make_graph([helper.make_node("Neg", ["x"], ["y"])], "probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    return bytes(model.SerializeToString())
