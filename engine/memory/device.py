"""Arena storage in torch tensors (CUDA on a GPU, CPU in tests) and ONNX
Runtime IO binding into it.

Why torch: it is the simplest way to own a large block of device memory from
Python and get a pointer into it; ONNX Runtime (CUDA provider) can then write
a model's output there directly, with no device-to-host copy and no per-call
allocation. The pool logic is :class:`engine.memory.arena.Arena`, unchanged.

torch is optional (``pip install 'radioplay[gpu]'``): it is imported inside
functions only, so importing this module costs CPU users nothing, and
:func:`cuda_available` answers False instead of raising when it is missing.

Threads: :class:`TorchStorage` is stateless after construction; the arena
that uses it serializes allocation. Writing into one allocation's view from
one thread at a time is the caller's business, as with numpy.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.memory.arena import Allocation, FloatArray

if TYPE_CHECKING:
    import torch

GPU_HINT = "GPU pools need torch: pip install 'radioplay[gpu]'"


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise ImportError(GPU_HINT) from exc
    return torch


def cuda_available() -> bool:
    """True when torch is installed and sees a CUDA device. Never raises."""
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # missing, or a broken CUDA install: either way, no GPU pool
        return False


class TorchStorage:
    """Storage protocol over ``torch.empty(n, dtype=float32, device=...)``."""

    def __init__(self, device: str = "cpu") -> None:
        th = _torch()
        self.device = th.device(device)
        if self.device.type == "cuda" and not th.cuda.is_available():
            raise RuntimeError(f"torch sees no CUDA device for a pool on {device!r}")

    def allocate_buffer(self, frames: int) -> torch.Tensor:
        th = _torch()
        buffer: torch.Tensor = th.empty(frames, dtype=th.float32, device=self.device)
        return buffer

    def view(self, buffer: torch.Tensor, start: int, stop: int) -> torch.Tensor:
        return buffer[start:stop]  # basic slicing of a 1-D tensor: a contiguous view

    def write(self, view: torch.Tensor, source: FloatArray) -> None:
        host = _torch().from_numpy(np.ascontiguousarray(source, dtype=np.float32))
        view.copy_(host)  # synchronous: the caller's array may change right after

    def freeze(self, view: torch.Tensor) -> torch.Tensor:
        return view  # torch has no read-only tensors; readers must not write

    def place(self, view: torch.Tensor, piece: object) -> None:
        """A model output on this device (a tensor over ONNX Runtime's output, through
        DLPack) copied device to device; a host array (the CPU provider's output in a
        CPU tensor pool, as the tests run it) copied in as it is."""
        th = _torch()
        source = piece if isinstance(piece, th.Tensor) else th.from_numpy(np.ascontiguousarray(piece))
        view.copy_(source.reshape(-1))

    def to_host(self, view: torch.Tensor, out: FloatArray) -> None:
        _torch().from_numpy(out).copy_(view)  # synchronous: ``out`` holds the samples when this returns


def ort_output_binding(io_binding: Any, name: str, allocation: Allocation[Any],
                       shape: tuple[int, ...] | None = None) -> None:
    """Bind ONNX Runtime output ``name`` to ``allocation``'s memory, so the
    model writes into the arena.

    Used only with the CUDA execution provider and a :class:`TorchStorage`
    on ``cuda`` (a CPU tensor or numpy allocation binds as ``cpu``, which is
    what the CPU provider would need, but the CPU path copies anyway and gains
    nothing). Exercised by ``bench/gpu_check.py`` on a GPU machine.

    ONNX Runtime requires the bound shape to equal the shape the model
    computes: a pre-allocated output of any other shape fails the run with
    INVALID_ARGUMENT ("has shape {20} but the computed output shape for this
    run is {10}", ORT 1.32; older releases say "Shape mismatch attempting to
    re-use buffer"). ``shape`` (default ``(allocation.frames,)``) must
    therefore be the exact output shape and may not exceed the allocation's
    capacity. A Piper (VITS) voice computes its output length inside the
    graph, so a predicted, over-sized reservation cannot be bound as is: bind
    that output to the device unallocated and copy device-to-device into the
    reservation, or bind only models whose output length is known up front.
    """
    shape = shape if shape is not None else (allocation.frames,)
    elements = math.prod(shape)
    if elements > allocation.capacity:
        raise ValueError(f"output shape {shape} ({elements} floats) exceeds {allocation!r}")
    view = allocation.arena.storage.view(allocation.arena.buffer, allocation.offset,
                                         allocation.offset + elements)
    if isinstance(view, np.ndarray):
        device_type, device_id, pointer = "cpu", 0, int(view.ctypes.data)
    else:
        device = view.device
        device_type = device.type
        device_id = device.index if device.index is not None else 0
        pointer = int(view.data_ptr())
    io_binding.bind_output(name, device_type, device_id, np.float32, list(shape), pointer)

