"""A folder of small remembered results: one JSON object per key, written atomically, the
newest ``keep`` kept.

What is remembered is keyed by a hash of everything it depends on, so an entry is never
stale, only unused: reading one touches it (recently used), and a write beyond ``keep``
entries deletes the least recently used. Best effort throughout: a folder that cannot be
read or written means measuring again, never a failure. The export's solved gains and mix
measurements (engine/mixdown/memo.py, engine/export/mix_memo.py) and the speech check's
clip measures (engine/check/voice.py) each keep one.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from engine.fsutil import atomic_write_text


class MemoFolder:
    """Entries in ``directory`` (None: remember nothing, e.g. beside a memory-only clip cache)."""

    def __init__(self, directory: Path | None, keep: int) -> None:
        self.directory = directory
        self.keep = keep

    def read(self, key: str) -> dict[str, Any] | None:
        """The entry ``key`` as JSON read it (None: none, unreadable, or nowhere to remember);
        its reader checks what it holds."""
        if self.directory is None:
            return None
        try:
            data = json.loads((self.directory / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def touch(self, key: str) -> None:
        """Mark ``key`` recently used (its reader found it usable): kept by the pruning."""
        if self.directory is not None:
            with contextlib.suppress(OSError):
                os.utime(self.directory / f"{key}.json")

    def write(self, key: str, data: dict[str, object]) -> None:
        if self.directory is None:
            return
        with contextlib.suppress(OSError):
            self.directory.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.directory / f"{key}.json", json.dumps(data))
            self._prune()

    def _prune(self) -> None:
        assert self.directory is not None
        entries = [e for e in os.scandir(self.directory) if e.name.endswith(".json")]
        if len(entries) <= self.keep:
            return  # counted without a stat each: sorted only when something must go
        entries.sort(key=lambda e: e.stat().st_mtime)
        for old in entries[:len(entries) - self.keep]:
            with contextlib.suppress(OSError):
                os.unlink(old.path)
