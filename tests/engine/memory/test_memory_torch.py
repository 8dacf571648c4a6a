"""The arena and clip store logic on torch tensors (CPU here; CUDA in bench/gpu_check.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch  # noqa: E402 - pinned in the test extra

from engine.memory import device
from engine.memory.arena import Arena, ArenaFull
from engine.memory.clipstore import PooledClipStore


def torch_arena(blocks: int = 10, block: int = 10) -> Arena[Any]:
    return Arena(blocks * block, block, storage=device.TorchStorage("cpu"))


def test_arena_on_a_torch_buffer() -> None:
    ar = torch_arena()
    assert isinstance(ar.buffer, torch.Tensor) and ar.buffer.dtype == torch.float32
    assert ar.buffer.shape == (100,)
    a = ar.allocate(25)
    view = a.view()
    assert isinstance(view, torch.Tensor) and view.shape == (25,)
    assert view.data_ptr() == ar.buffer.data_ptr() + a.offset * 4  # a view, not a copy
    view.copy_(torch.arange(25, dtype=torch.float32))
    assert torch.equal(ar.buffer[:25], torch.arange(25, dtype=torch.float32))
    b = ar.allocate(30)
    assert b.view().data_ptr() == ar.buffer.data_ptr() + 30 * 4
    assert a.shrink(5) == 20
    ar.free(b)
    s = ar.stats()
    assert s.used_bytes == 40 and s.largest_free_bytes == 360
    ar.check_invariants()
    with pytest.raises(ArenaFull):
        ar.allocate(400)


def test_clip_store_on_a_torch_buffer() -> None:
    s = PooledClipStore(torch_arena())
    for i, key in enumerate("abcde"):
        s.put(key, np.full(20, float(i), dtype=np.float32))
    got = s.get("a")
    assert isinstance(got, torch.Tensor) and torch.all(got == 0.0)
    assert got.data_ptr() == s.arena.buffer.data_ptr()  # shares the arena's memory
    s.pin("b")
    s.put("f", np.full(20, 5.0, dtype=np.float32))  # evicts c: a was used, b is pinned
    assert "c" not in s and "a" in s and "b" in s and s.evictions == 1
    f = s.get("f")
    assert f is not None and torch.all(f == 5.0)
    assert torch.all(s.get("d") == 3.0)  # neighbours intact

    allocation = s.reserve("x", 35)  # evicts more; the inference path writes in place
    allocation.view()[:] = torch.linspace(0.0, 1.0, 35)
    stored = s.commit("x", allocation, 30)
    assert stored.shape == (30,) and float(stored[-1]) == pytest.approx(29 / 34)
    assert s.stats().arena.allocations == len(s)
    s.arena.check_invariants()


def test_ort_output_binding_binds_the_allocation_pointer() -> None:
    ar = torch_arena()
    ar.allocate(10)
    a = ar.allocate(30)
    calls: list[tuple[Any, ...]] = []

    class FakeBinding:
        def bind_output(self, *args: Any) -> None:
            calls.append(args)

    device.ort_output_binding(FakeBinding(), "output", a, shape=(1, 1, 25))
    assert calls == [("output", "cpu", 0, np.float32, [1, 1, 25], ar.buffer.data_ptr() + 40)]
    with pytest.raises(ValueError, match="exceeds"):
        device.ort_output_binding(FakeBinding(), "output", a, shape=(1, 31))
