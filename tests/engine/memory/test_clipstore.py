"""engine.memory.clipstore: an LRU clip store inside an arena."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from engine.memory.arena import Arena, ArenaFull
from engine.memory.clipstore import ClipTooLarge, PooledClipStore

BLOCK = 10


def store(blocks: int = 10) -> PooledClipStore[np.ndarray]:
    return PooledClipStore(Arena(blocks * BLOCK, BLOCK))


def clip(frames: int, value: float = 1.0) -> np.ndarray:
    return np.full(frames, value, dtype=np.float32)


def test_put_copies_and_get_returns_a_view_of_the_arena() -> None:
    s = store()
    source = np.arange(25, dtype=np.float32)
    put = s.put("a", source)
    source[:] = -1  # the store made its own copy
    got = s.get("a")
    assert got is not None
    assert np.array_equal(got, np.arange(25, dtype=np.float32))
    assert np.shares_memory(got, s.arena.buffer) and np.shares_memory(put, s.arena.buffer)
    assert not got.flags.writeable  # readers share it: read-only
    with pytest.raises(ValueError):
        got[0] = 1.0
    assert s.get("a") is not None and s.get("missing") is None
    assert (s.hits, s.misses) == (2, 1)
    assert "a" in s and "missing" not in s and len(s) == 1
    with pytest.raises(ValueError, match="mono"):
        s.put("stereo", np.zeros((10, 2), dtype=np.float32))


def test_put_converts_to_float32() -> None:
    s = store()
    view = s.put("a", np.linspace(-1, 1, 20))  # float64 in
    assert view.dtype == np.float32 and np.isclose(view[-1], 1.0)


def test_put_of_a_present_key_marks_it_used_without_copying() -> None:
    s = store()
    first = s.put("a", clip(20, 1.0))
    s.put("b", clip(20, 2.0))
    again = s.put("a", clip(20, 9.0))  # content-addressed: same key, same audio
    assert np.all(again == 1.0) and np.shares_memory(first, again)
    assert s.keys() == ["b", "a"]
    assert s.arena.stats().allocations == 2


def test_lru_eviction_order() -> None:
    s = store()
    for key in "abcde":
        s.put(key, clip(20))  # five 2-block clips fill the arena
    assert s.get("a") is not None  # a becomes the most recent
    s.put("f", clip(20))
    assert "b" not in s and "a" in s
    s.put("g", clip(20))
    assert "c" not in s
    assert s.keys() == ["d", "e", "a", "f", "g"]
    assert s.evictions == 2


def test_fragmentation_needs_several_evictions() -> None:
    s = store()
    for i in range(10):
        s.put(f"k{i}", clip(10, float(i)))  # k<i> owns block i
    for i in (1, 2, 3, 4, 6, 7, 8, 9):
        s.get(f"k{i}")
    assert s.keys()[:3] == ["k0", "k5", "k1"]  # least recently used first
    s.put("wide", clip(20, 42.0))
    # k0 and k5 leave two single free blocks; only evicting k1 too makes a 2-run.
    assert s.evictions == 3
    assert not any(k in s for k in ("k0", "k5", "k1"))
    assert all(f"k{i}" in s for i in (2, 3, 4, 6, 7, 8, 9))
    wide = s.get("wide")
    assert wide is not None and np.all(wide == 42.0)
    for i in (2, 3, 4, 6, 7, 8, 9):  # survivors are intact
        assert np.all(s.get(f"k{i}") == float(i))
    st = s.stats()
    assert st.arena.free_bytes == BLOCK * 4 and st.arena.fragmentation == 0.0


def test_a_clip_larger_than_the_arena_is_refused_clearly() -> None:
    s = store()
    s.put("a", clip(10))
    with pytest.raises(ClipTooLarge, match="larger than the whole arena"):
        s.put("huge", clip(101))
    with pytest.raises(ValueError):
        s.reserve("huge", 101)
    assert "a" in s and s.evictions == 0


def test_pinned_clips_are_never_evicted() -> None:
    s = store()
    for key in "abcde":
        s.put(key, clip(20))
    s.pin("a")
    s.pin("a")  # pins nest
    s.unpin("a")
    assert s.pins("a") == 1
    s.put("f", clip(20))
    assert "a" in s and "b" not in s
    with pytest.raises(KeyError):
        s.unpin("c")
    with pytest.raises(KeyError):
        s.pin("nope")
    for key in "cdef":
        s.pin(key)
    assert s.stats().pinned == 5
    with pytest.raises(ArenaFull, match="pinned"):
        s.put("g", clip(10))
    assert len(s) == 5 and s.evictions == 1  # the refusal evicted nothing
    s.unpin("e")
    s.put("g", clip(10))
    assert "e" not in s and s.evictions == 2


def test_pins_that_split_the_arena_refuse_without_evicting() -> None:
    s = store()
    for i in range(10):
        s.put(f"k{i}", clip(10))
    s.pin("k3")
    s.pin("k7")  # longest possible run now: blocks 0-2 or 4-6 (3 blocks)
    with pytest.raises(ArenaFull):
        s.put("four", clip(40))
    assert len(s) == 10 and s.evictions == 0
    s.put("three", clip(30))
    assert s.evictions == 3 and "k3" in s and "k7" in s


def test_reserve_then_commit_writes_in_place() -> None:
    s = store()
    allocation = s.reserve("x", 45)  # predicted length plus margin: 5 blocks
    assert "x" not in s and len(s) == 0 and s.get("x") is None
    assert s.stats().reserved == 1
    allocation.view()[:30] = np.arange(30, dtype=np.float32)  # "inference" writes here
    view = s.commit("x", allocation, 30)  # the true length was shorter
    assert allocation.capacity == 30 and view.shape == (30,)
    assert np.array_equal(s.get("x"), np.arange(30, dtype=np.float32))
    st = s.stats()
    assert st.reserved == 0 and st.entries == 1 and st.arena.used_bytes == 30 * 4
    with pytest.raises(KeyError):
        s.commit("x", allocation, 30)  # already committed
    with pytest.raises(KeyError):
        s.reserve("x", 10)
    with pytest.raises(KeyError):
        s.commit("other", allocation, 10)


def test_a_commit_longer_than_the_reservation_is_a_miss_the_caller_handles() -> None:
    s = store()
    allocation = s.reserve("x", 15)  # 2 blocks
    with pytest.raises(ValueError):
        s.commit("x", allocation, 21)
    with pytest.raises(KeyError, match="reserved"):
        s.put("x", clip(21))
    assert s.evict("x")  # give up the reservation ...
    s.put("x", clip(21))  # ... and store the clip the ordinary way
    assert s.arena.stats().allocations == 1


def test_reservations_are_not_evicted() -> None:
    s = store()
    allocation = s.reserve("pending", 50)
    for i in range(5):
        s.put(f"k{i}", clip(10))
    s.put("more", clip(30))  # must evict clips, not the reservation
    assert s.evictions == 3
    with pytest.raises(ArenaFull):
        s.put("too-much", clip(60))
    assert s.commit("pending", allocation, 50).shape == (50,)


def test_evict_and_counters() -> None:
    s = store()
    s.put("a", clip(10))
    s.pin("a")
    assert s.evict("a") and not s.evict("a")  # explicit eviction ignores pins
    assert s.get("a") is None
    st = s.stats()
    assert (st.entries, st.pinned, st.hits, st.misses, st.evictions) == (0, 0, 0, 1, 0)
    assert st.arena.used_bytes == 0


def test_host_store_budget() -> None:
    s = PooledClipStore.host(budget_bytes=48_000 * 4 * 10)  # ten seconds at 48 kHz
    assert s.arena.capacity_frames == 480_000 and s.arena.block_frames == 4800
    s.put("a", clip(48_000 * 3))
    assert s.stats().arena.used_bytes == 48_000 * 3 * 4


def test_concurrent_use_keeps_the_store_consistent() -> None:
    s = store(blocks=64)
    errors: list[str] = []

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        for n in range(300):
            key = f"{seed}-{rng.randrange(20)}"
            value = float(hash(key) % 1000)
            if rng.random() < 0.5:
                try:
                    s.put(key, clip(rng.randint(1, 40), value))
                except ArenaFull:
                    pass
            else:
                try:
                    s.pin(key)
                except KeyError:
                    continue
                got = s.get(key)
                if got is None or not np.all(got == value):
                    errors.append(f"{key}: wrong audio while pinned (step {n})")
                s.unpin(key)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    s.arena.check_invariants()
    assert s.stats().arena.allocations == len(s)
