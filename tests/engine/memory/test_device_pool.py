"""The device pool (engine/memory/device_pool.py) on host memory and on a torch tensor on the
device under test (the CPU here; the GPU under make gpu-check): a clip's pieces gathered in the
room reserved for it, one copy of the clip to the host, the room given back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from engine.memory.arena import Arena
from engine.memory.device_pool import DevicePool
from tests.support.device import device_under_test

pytestmark = pytest.mark.device

BLOCK = 100


def numpy_pool(blocks: int) -> tuple[DevicePool[Any], Callable[[np.ndarray], Any]]:
    return DevicePool(Arena(blocks * BLOCK, BLOCK), "cpu"), lambda host: host


def torch_pool(blocks: int) -> tuple[DevicePool[Any], Callable[[np.ndarray], Any]]:
    import torch

    from engine.memory.device import TorchStorage

    name = device_under_test().name
    return (DevicePool(Arena(blocks * BLOCK, BLOCK, storage=TorchStorage(name)), name),
            lambda host: torch.from_numpy(host).to(name))  # a model output already on the device


POOLS = [numpy_pool, torch_pool]


def pieces(*lengths: int) -> list[np.ndarray]:
    """Distinct samples per piece, so a piece landed at the wrong offset shows."""
    return [np.arange(n, dtype=np.float32) + 1000.0 * i for i, n in enumerate(lengths)]


@pytest.mark.parametrize("make", POOLS)
def test_a_clip_gathers_in_its_reservation_and_crosses_to_the_host_once(make: Any) -> None:
    pool, on_device = make(20)
    assert pool.reserve("clip", 930)
    assert pool.reserved("clip") == 1000  # whole blocks: what the predictor asked, rounded up
    used = pool.stats().used_bytes
    host = np.full(2000, -1.0, dtype=np.float32)  # the host pool's room for the clip
    made = pieces(300, 0, 450)
    landed = pool.land("clip", [on_device(p) for p in made], host)
    assert [p.shape for p in landed] == [(300,), (0,), (450,)]
    for got, want in zip(landed, made, strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.size == 0 or np.shares_memory(got, host)  # landed in the host room, no copy after
    assert np.all(host[750:] == -1.0)  # nothing written past the clip
    traffic = pool.traffic()
    assert (traffic.clips, traffic.host_copies, traffic.bytes_to_host) == (1, 1, 750 * 4)
    assert (traffic.misses, traffic.overflows) == (0, 0)
    assert pool.reserved("clip") is None and pool.stats().used_bytes == 0  # the room is given back
    assert pool.stats().high_water_bytes == used == 1000 * 4


@pytest.mark.parametrize("make", POOLS)
def test_a_reservation_the_predictor_made_too_small_is_taken_again(make: Any) -> None:
    pool, on_device = make(20)
    pool.reserve("clip", 100)
    made = pieces(640, 60)
    landed = pool.land("clip", [on_device(p) for p in made])
    np.testing.assert_array_equal(np.concatenate(landed), np.concatenate(made))
    traffic = pool.traffic()
    assert (traffic.misses, traffic.host_copies, traffic.overflows) == (1, 1, 0)
    assert pool.stats().used_bytes == 0
    pool.arena.check_invariants()


@pytest.mark.parametrize("make", POOLS)
def test_a_clip_longer_than_the_pool_lands_all_the_same_in_one_copy(make: Any) -> None:
    pool, on_device = make(4)
    assert not pool.reserve("long", 900)  # no run that long: nothing reserved
    made = pieces(250, 300)
    host = np.zeros(100, dtype=np.float32)  # the host room is too short for it: an array of its own
    landed = pool.land("long", [on_device(p) for p in made], host)
    np.testing.assert_array_equal(np.concatenate(landed), np.concatenate(made))
    assert not np.shares_memory(landed[0], host) and np.shares_memory(landed[0], landed[1].base)
    traffic = pool.traffic()
    assert (traffic.overflows, traffic.host_copies, traffic.clips) == (1, 1, 1)


def test_release_gives_a_stopped_clip_s_room_back() -> None:
    pool, _ = numpy_pool(10)
    pool.reserve("a", 250)
    pool.reserve("a", 250)  # the same clip asked twice keeps one room
    assert pool.stats().used_bytes == 300 * 4
    pool.release("a")
    pool.release("a")
    assert pool.stats().used_bytes == 0 and pool.reserved("a") is None
    assert pool.traffic().clips == 0
