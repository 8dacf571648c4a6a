"""What the workers of one test run share (pytest-xdist, ``-n 2``): a folder above each
worker's own temporary folder, and a lock to make a shared result once.

Without xdist the run's root is the session's own temporary folder, so a serial run
behaves as before. A shared result is made by the first worker that needs it, under a
file lock, and marked complete only once it is whole; the other workers wait for the
lock and read it (read only: a test copies what it may change)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

# A worker waits this long for another to finish making a shared result: the sample's
# 48 clips take about a minute on an idle 2-core machine and many at a load of 10.
LOCK_TIMEOUT_S = 1500.0


def run_root(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run sees (the session's own folder when serial)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(root: Path, name: str, make: Callable[[Path], None]) -> Path:
    """``root/name`` (``root``: the :func:`run_root`), made by ``make(folder)`` in the first
    worker that asks and read by the others; a folder left half made by a worker that died
    is made again."""
    folder = root / name
    done = folder.with_name(f"{name}.done")
    with FileLock(str(folder.with_name(f"{name}.lock")), timeout=LOCK_TIMEOUT_S):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            make(folder)
            done.touch()
    return folder
