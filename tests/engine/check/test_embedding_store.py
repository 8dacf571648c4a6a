"""The store of measured voices is shared by every process measuring on the machine (the
studio and a CLI import at once; the suite's two workers): nothing one measures is lost to
another's save, and what another has measured is not measured again."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import numpy as np

from engine.check.candidate_measures import EmbeddingStore


def test_two_stores_on_one_file_keep_each_others_measurements(tmp_path: Path) -> None:
    path = tmp_path / "speaker-embeddings.json"
    first, second = EmbeddingStore(path), EmbeddingStore(path)  # both opened before either measured
    first.put("a", np.ones(4, np.float32))
    second.remember("q:b", [3.1])
    on_disk = json.loads(path.read_text(encoding="utf-8"))
    assert set(on_disk) == {"a", "q:b"}  # the second save kept the first's entry
    # What the other measured after this store opened is found, not measured again.
    assert first.lookup("q:b") == [3.1]
    assert second.get("a") is not None and np.allclose(second.get("a"), 1.0)
    assert first.lookup("never measured") is None


def _remember_many(path: str, prefix: str, count: int) -> None:
    store = EmbeddingStore(Path(path))
    for i in range(count):
        store.remember(f"{prefix}{i}", [float(i)])


def test_processes_saving_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "speaker-embeddings.json"
    spawn = multiprocessing.get_context("spawn")
    workers = [spawn.Process(target=_remember_many, args=(str(path), prefix, 150)) for prefix in ("x", "y", "z")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
        assert worker.exitcode == 0
    stored = EmbeddingStore(path).values
    assert len(stored) == 450, f"{450 - len(stored)} of 450 measurements lost"
    assert stored["y149"] == [149.0]


def test_a_damaged_store_means_measuring_again_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "speaker-embeddings.json"
    path.write_text("{not json", encoding="utf-8")
    store = EmbeddingStore(path)
    assert store.lookup("a") is None
    store.remember("a", [1.0])
    assert json.loads(path.read_text(encoding="utf-8")) == {"a": [1.0]}
