"""Weighted consistent hashing of roles onto workers: stable, proportional, minimal moves."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import pytest

from engine.sched.hashring import EmptyRingError, WeightedHashRing, stable_hash

ROLES = [f"ROLE {i}" for i in range(1000)]
KEYS = [f"key-{i}" for i in range(10_000)]


def ring(*nodes: str | tuple[str, float]) -> WeightedHashRing:
    r = WeightedHashRing()
    for node in nodes:
        if isinstance(node, tuple):
            r.add(*node)
        else:
            r.add(node)
    return r


def test_assignment_is_deterministic_and_order_independent() -> None:
    a = ring("w1", "w2", "w3").assignment(ROLES)
    b = ring("w3", "w1", "w2").assignment(ROLES)
    assert a == b and set(a.values()) == {"w1", "w2", "w3"}


def test_hash_is_stable_across_processes() -> None:
    """Python's hash() is salted per process; the ring's must not be."""
    code = ("from engine.sched.hashring import WeightedHashRing as R, stable_hash\n"
            "r = R(); [r.add(n) for n in ('w1', 'w2', 'w3')]\n"
            "print(stable_hash('AMY'), *(r.node_for(f'ROLE {i}') for i in range(50)))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outs) == 1
    here = ring("w1", "w2", "w3")
    assert outs.pop().split() == [str(stable_hash("AMY")), *(here.node_for(f"ROLE {i}") for i in range(50))]


@pytest.mark.parametrize("names", [("w1", "w2", "w3", "w4"), ("w0", "w1", "w2", "w3"),
                                   ("cuda:0", "cuda:1", "cpu", "remote")])
def test_distribution_is_roughly_even(names: tuple[str, ...]) -> None:
    counts = Counter(ring(*names).assignment(KEYS).values())
    for node in names:
        assert counts[node] == pytest.approx(2500, rel=0.15), counts


def test_weight_two_gets_about_twice() -> None:
    counts = Counter(ring("a", ("b", 2.0), "c").assignment(KEYS).values())
    assert counts["b"] == pytest.approx(5000, rel=0.15), counts
    for node in ("a", "c"):
        assert counts[node] == pytest.approx(2500, rel=0.15), counts
    assert 1.6 < counts["b"] / ((counts["a"] + counts["c"]) / 2) < 2.4
    r = WeightedHashRing(vnodes_per_weight=64)
    r.add("a")
    r.add("b", 2.0)
    r.add("tiny", 0.001)
    assert (r.vnode_count("a"), r.vnode_count("b"), r.vnode_count("tiny")) == (64, 128, 1)  # never zero


def test_adding_the_nth_node_moves_about_one_nth_and_only_onto_it() -> None:
    r = ring("w1")
    before = r.assignment(ROLES)
    for n in range(2, 11):
        r.add(f"w{n}")
        after = r.assignment(ROLES)
        moved = [k for k in ROLES if before[k] != after[k]]
        assert all(after[k] == f"w{n}" for k in moved), "a role moved between old workers"
        assert len(moved) / len(ROLES) <= 1 / n + 0.05, (n, len(moved))
        assert moved, "the new worker got nothing"
        before = after


def test_removing_a_node_moves_only_its_roles() -> None:
    r = ring("w1", "w2", "w3", "w4", "w5")
    before = r.assignment(ROLES)
    r.remove("w3")
    after = r.assignment(ROLES)
    for k in ROLES:
        if before[k] != "w3":
            assert after[k] == before[k]
        else:
            assert after[k] != "w3"
    assert "w3" not in r and len(r) == 4
    r.add("w3")  # coming back restores the original assignment exactly
    assert r.assignment(ROLES) == before


def test_reweighting_moves_roles_only_onto_the_heavier_node() -> None:
    r = ring("w1", "w2", "w3")
    before = r.assignment(ROLES)
    r.add("w2", 2.0)
    after = r.assignment(ROLES)
    assert r.nodes == {"w1": 1.0, "w2": 2.0, "w3": 1.0}
    assert all(after[k] == "w2" for k in ROLES if before[k] != after[k])


def test_errors() -> None:
    r = WeightedHashRing()
    with pytest.raises(EmptyRingError, match="no nodes"):
        r.node_for("AMY")
    with pytest.raises(KeyError):
        r.remove("ghost")
    with pytest.raises(ValueError):
        r.add("w", 0.0)
    with pytest.raises(ValueError):
        WeightedHashRing(vnodes_per_weight=0)
    r.add("only")
    assert r.node_for("anything") == "only"
    r.remove("only")
    with pytest.raises(LookupError):
        r.node_for("AMY")
