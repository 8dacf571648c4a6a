"""Fixed-size rings and the scrolling time grid (driven by explicit times, no wall clock)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.metrics.rings import OTHER_ROW, Ring, TimeGrid

COL = 0.05


def at(k: int) -> float:
    """A time safely inside column ``k`` (avoids float rounding at column edges)."""
    return k * COL + COL / 2


# --------------------------------------------------------------------------- Ring


def test_ring_keeps_last_values_in_order() -> None:
    ring = Ring(4)
    assert len(ring) == 0 and ring.values().shape == (0,) and ring.last() is None
    assert ring.percentile(50) is None
    for v in (1, 2, 3):
        ring.append(v)
    assert len(ring) == 3 and ring.values().tolist() == [1, 2, 3]
    for v in (4, 5, 6):
        ring.append(v)
    assert len(ring) == 4 and ring.capacity == 4 and ring.total == 6
    assert ring.values().tolist() == [3, 4, 5, 6]
    assert ring.last() == 6


def test_ring_values_is_a_copy_and_percentile_exact() -> None:
    ring = Ring(100)
    for v in range(250):
        ring.append(float(v))
    vals = ring.values()
    vals[:] = -1
    assert ring.values().tolist() == [float(v) for v in range(150, 250)]
    assert ring.percentile(95) == pytest.approx(np.percentile(np.arange(150, 250), 95))
    ring.clear()
    assert len(ring) == 0 and ring.values().size == 0


def test_ring_rejects_zero_capacity() -> None:
    with pytest.raises(ValueError):
        Ring(0)


# --------------------------------------------------------------------------- TimeGrid


def test_default_grid_is_600_columns_of_50ms() -> None:
    grid = TimeGrid()
    assert grid.columns == 600 and grid.column_s == pytest.approx(0.05)
    grid.set("AMY", 1.0, at(0))
    m, names = grid.matrix(at(0))
    assert m.shape == (1, 600) and names == ["AMY"]


def test_set_keeps_latest_value_and_add_accumulates() -> None:
    grid = TimeGrid(window_s=1.0, column_s=COL)
    grid.set("A", 1.0, at(3))
    grid.set("A", 5.0, at(3) + 0.01)  # same column: latest wins
    grid.add("B", 2.0, at(3))
    grid.add("B", 3.0, at(3))
    m, names = grid.matrix(at(3))
    assert names == ["A", "B"]
    assert m.shape == (2, 20)
    assert m[0, -1] == 5.0 and m[1, -1] == 5.0
    assert m[:, :-1].sum() == 0.0


def test_grid_scrolls_oldest_to_newest() -> None:
    grid = TimeGrid(window_s=1.0, column_s=COL)  # 20 columns
    for k in range(5):
        grid.add("r", float(k + 1), at(k))
    m, _ = grid.matrix(at(4))
    assert m[0, -5:].tolist() == [1, 2, 3, 4, 5]
    # Read later: the data slides left, the newer columns are empty.
    m, _ = grid.matrix(at(10))
    assert m[0, -11:-6].tolist() == [1, 2, 3, 4, 5] and m[0, -6:].sum() == 0
    # Reading did not scroll: a write at column 6 still lands after the 5 values.
    grid.add("r", 9.0, at(6))
    m, _ = grid.matrix(at(6))
    assert m[0, -7:].tolist() == [1, 2, 3, 4, 5, 0, 9]


def test_grid_clears_columns_as_time_moves_past_the_window() -> None:
    grid = TimeGrid(window_s=1.0, column_s=COL)
    grid.add("r", 1.0, at(0))
    grid.add("r", 2.0, at(19))  # still inside the 20-column window
    m, _ = grid.matrix(at(19))
    assert m[0, 0] == 1.0 and m[0, -1] == 2.0
    grid.add("r", 3.0, at(20))  # column 0 scrolls out and its slot is reused
    m, _ = grid.matrix(at(20))
    assert m[0].sum() == 5.0 and m[0, -2:].tolist() == [2.0, 3.0]
    grid.add("r", 4.0, at(100))  # a long gap clears everything
    m, _ = grid.matrix(at(100))
    assert m[0].sum() == 4.0 and m[0, -1] == 4.0
    # Reading far in the future shows nothing of the stored window.
    m, _ = grid.matrix(at(200))
    assert m.sum() == 0.0


def test_hold_grid_draws_a_continuous_gauge() -> None:
    grid = TimeGrid(window_s=1.0, column_s=COL, hold=True)
    grid.set("A", 2.0, at(2))
    grid.set("A", 7.0, at(5))
    m, _ = grid.matrix(at(8))
    row = m[0, -9:].tolist()  # columns 0..8
    assert row == [0, 0, 2, 2, 2, 7, 7, 7, 7]
    # Much later, without new writes, the gauge still reads its last value everywhere.
    m, _ = grid.matrix(at(500))
    assert (m == 7.0).all()
    grid.set("B", 1.0, at(500))
    m, names = grid.matrix(at(500))
    assert names == ["A", "B"] and (m[0] == 7.0).all() and m[1, -1] == 1.0 and m[1, :-1].sum() == 0


def test_late_writes_land_in_their_column_or_are_dropped() -> None:
    grid = TimeGrid(window_s=1.0, column_s=COL)
    grid.add("r", 1.0, at(30))
    grid.add("r", 2.0, at(25))  # slightly late (another thread): still in the window
    grid.add("r", 4.0, at(5))  # left the window long ago: dropped
    m, _ = grid.matrix(at(30))
    assert m[0, -1] == 1.0 and m[0, -6] == 2.0 and m.sum() == 3.0


def test_rows_are_capped_with_an_other_row() -> None:
    grid = TimeGrid(window_s=1.0, column_s=COL, max_rows=4)
    for i in range(10):
        grid.add(f"R{i}", 1.0, at(0))
    m, names = grid.matrix(at(0))
    assert names == ["R0", "R1", "R2", OTHER_ROW]
    assert m.shape == (4, 20)
    assert m[:, -1].tolist() == [1.0, 1.0, 1.0, 7.0]
    assert grid.row_name(grid.row_index("R9")) == OTHER_ROW


def test_initial_rows_and_matrix_is_a_copy() -> None:
    grid = TimeGrid(window_s=1.0, column_s=COL, rows=["x", "y"])
    m, names = grid.matrix(at(0))
    assert names == ["x", "y"] and m.shape == (2, 20) and m.sum() == 0
    grid.add_at(1, 3.0, at(0))
    m, _ = grid.matrix(at(0))
    m[:] = 99.0
    names.append("z")
    m2, names2 = grid.matrix(at(0))
    assert m2[1, -1] == 3.0 and m2.sum() == 3.0 and names2 == ["x", "y"]


def test_grid_rejects_bad_geometry() -> None:
    with pytest.raises(ValueError):
        TimeGrid(window_s=0.01, column_s=0.05)
    with pytest.raises(ValueError):
        TimeGrid(max_rows=1, rows=["a", "b"])
