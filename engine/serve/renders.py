"""The files behind ``POST /renders``: written atomically, removed when their links expire, capped in total.

A render file lives exactly as long as its signed link: after the link's
expiry nothing can fetch it, so keeping it only fills the disk. At start-up
the folder is swept too: temporary ``.part`` files of an interrupted write,
files whose links have expired (their mtime plus the link lifetime), and,
when the link secret is random per process, every earlier render (no link
to it can verify any more). Only names the service makes are touched; other
files in the folder are left alone.

The quota counts the bytes of live renders. A request is refused (507 with
``Retry-After`` until the oldest render expires) when its file would pass
the quota; the room is reserved on the event loop thread before the write,
so concurrent requests cannot overshoot it together.

Threads: :meth:`RenderStore.reserve`, :meth:`RenderStore.add` and
:meth:`RenderStore.release` run on the event loop thread; :meth:`sweep`
and :meth:`scan` run on an io thread. A lock guards the index they share.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("radioplay.serve")
RENDER_NAME = re.compile(r"^([0-9a-f]{32})\.wav$")
TEMP_NAME = re.compile(r"^\.[0-9a-f]{32}\.wav\..*\.part$")  # engine.fsutil.temp_path_for of a render


class QuotaFull(Exception):
    def __init__(self, used: int, quota: int, retry_after: int) -> None:
        super().__init__(f"render storage is full ({used / 1e6:.1f} MB of {quota / 1e6:.1f} MB in use); "
                         f"renders are removed when their links expire")
        self.retry_after = retry_after


class RenderStore:
    """Index of the render files: name -> (bytes, expiry in unix seconds)."""

    def __init__(self, folder: Path, ttl_s: float, quota_bytes: int,
                 clock: Callable[[], float] = time.time) -> None:
        self.folder, self.ttl_s, self.quota_bytes, self.clock = folder, ttl_s, quota_bytes, clock
        self._files: dict[str, tuple[int, float]] = {}
        self._stored = 0  # bytes of the files in the index
        self._reserved = 0  # bytes of renders being written
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        with self._lock:
            return self._stored + self._reserved

    def scan(self, links_survive_restart: bool) -> None:
        """Index the folder at start-up, removing what no link can reach."""
        if not self.folder.is_dir():
            return
        now = self.clock()
        for path in self.folder.iterdir():
            try:
                if TEMP_NAME.match(path.name):
                    path.unlink()
                    continue
                if not RENDER_NAME.match(path.name) or not path.is_file():
                    continue
                stat = path.stat()
                expires = math.ceil(stat.st_mtime + self.ttl_s) + 1.0  # the link was signed just after the write
                if not links_survive_restart or expires <= now:
                    path.unlink()
                else:
                    with self._lock:
                        self._files[path.name] = (stat.st_size, expires)
                        self._stored += stat.st_size
            except OSError as exc:
                log.warning("renders: cannot tidy %s: %s", path, exc)

    def check(self, size: int) -> None:
        """:class:`QuotaFull` unless a file of ``size`` bytes fits now."""
        with self._lock:
            self._check(size)

    def reserve(self, size: int) -> None:
        """Room for a file of ``size`` bytes, or :class:`QuotaFull`."""
        with self._lock:
            self._check(size)
            self._reserved += size

    def _check(self, size: int) -> None:
        used = self._stored + self._reserved
        if used + size > self.quota_bytes:
            soonest = min((exp for _, exp in self._files.values()), default=self.clock() + 1)
            raise QuotaFull(used, self.quota_bytes, max(1, math.ceil(soonest - self.clock())))

    def add(self, name: str, size: int, expires: float) -> None:
        """The reserved file is written under ``name``; it expires with its link."""
        with self._lock:
            self._reserved -= size
            self._files[name] = (size, expires)
            self._stored += size

    def release(self, size: int) -> None:
        """The reserved file was not written."""
        with self._lock:
            self._reserved -= size

    def sweep(self) -> int:
        """Remove every render whose link has expired; returns how many."""
        now = self.clock()
        with self._lock:
            expired = [name for name, (_, exp) in self._files.items() if exp <= now]
            for name in expired:
                self._stored -= self._files.pop(name)[0]
        for name in expired:
            try:
                (self.folder / name).unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("renders: cannot remove expired %s: %s", name, exc)
        return len(expired)

    def sweep_interval(self) -> float:
        """Often enough that a file outlives its link by at most about a tenth of its lifetime."""
        return max(0.5, min(60.0, self.ttl_s / 10))
