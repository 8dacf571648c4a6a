"""Autosave after edits, and crash recovery on the next start.

After each undoable change (debounced) the open project is written to a
recovery file in the user state folder (platformdirs; ``RADIOPLAY_STATE_DIR``
overrides it), with a small JSON beside it naming the original file and the
process that wrote it. A clean exit removes both; so a recovery file found
at start-up whose writer is no longer running means the studio did not exit
cleanly, and the window offers to recover it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from app.document import Document
from app.files import project_text
from engine.fsutil import atomic_write_text
from engine.project.fileformat import load_project
from engine.project.model import Project

AUTOSAVE_DELAY_MS = 2000


def state_dir() -> Path:
    override = os.environ.get("RADIOPLAY_STATE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return platformdirs.user_state_path("radioplay", appauthor=False)


@dataclass(frozen=True)
class Recovery:
    file: Path
    original: Path | None  # the project file the edits belong to (None: never saved)
    title: str
    saved_at: float  # time.time()


class RecoveryStore:
    def __init__(self, root: Path | None = None) -> None:
        self.dir = (root or state_dir()) / "recovery"
        self.file = self.dir / "autosave.radioplay"
        self.meta = self.dir / "autosave.json"

    def save(self, project: Project, original: Path | None) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.file, project_text(project))
        atomic_write_text(self.meta, json.dumps({
            "original": str(original) if original else None, "title": project.title,
            "saved_at": time.time(), "pid": os.getpid()}) + "\n")

    def pending(self) -> Recovery | None:
        """A recovery file left by a studio that did not exit cleanly, if any."""
        if not self.file.is_file():
            return None
        try:
            meta = json.loads(self.meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        pid = meta.get("pid")
        if isinstance(pid, int) and pid != os.getpid() and _alive(pid):
            return None  # another studio is running and owns it
        original = meta.get("original")
        return Recovery(self.file, Path(original) if original else None, str(meta.get("title") or ""),
                        float(meta.get("saved_at") or self.file.stat().st_mtime))

    def load(self) -> Project:
        return load_project(self.file)

    def discard(self) -> None:
        for path in (self.file, self.meta):
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


class Autosaver(QObject):
    """Writes the document to the recovery store a moment after the last edit."""

    def __init__(self, doc: Document, store: RecoveryStore, parent: QObject | None = None,
                 delay_ms: int = AUTOSAVE_DELAY_MS) -> None:
        super().__init__(parent)
        self.doc, self.store = doc, store
        self.error: str | None = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self.flush)
        doc.undo.indexChanged.connect(self._index_changed)
        doc.undo.cleanChanged.connect(self._clean_changed)

    def _index_changed(self, _index: int) -> None:
        self.schedule()

    def schedule(self) -> None:
        if self.doc.is_modified():
            self.timer.start()

    def _clean_changed(self, clean: bool) -> None:
        if clean:  # saved (or undone back to the saved state): nothing to recover
            self.timer.stop()
            self.store.discard()

    def flush(self) -> None:
        self.timer.stop()
        if not self.doc.is_modified():
            return
        try:
            self.store.save(self.doc.project, self.doc.path)
            self.error = None
        except OSError as exc:
            self.error = f"Autosave failed: {exc}"
