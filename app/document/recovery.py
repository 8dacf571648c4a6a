"""Autosave after edits, and crash recovery on the next start.

Every window has its own recovery slot in the user state folder
(platformdirs; ``RADIOPLAY_STATE_DIR`` overrides it)::

    recovery/<slot>.radioplay   the autosave (an ordinary project file)
    recovery/<slot>.json        which file the edits belong to: its absolute path
                                and its identity when it was opened or last saved
    recovery/<slot>.lock        flock-ed by the window from its first autosave on

A clean exit, a save and a declined offer remove the slot. The kernel drops
a lock when its process dies, however it dies; so at start-up an autosave
whose lock can be taken was left by a studio that crashed and is offered,
and one whose lock is held belongs to a window still open (in this process
or another) and is left alone. Taking the lock also claims the slot, so two
studios starting together never both recover it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from app.document.document import Document
from app.document.files import FileIdentity, project_text
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


def _lock(path: Path) -> int | None:
    """An fd holding an exclusive lock on ``path`` (created if missing), or None if another holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # not inherited by child processes (PEP 446)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


@dataclass(eq=False)
class Recovery:
    """An autosave left by a studio that crashed, claimed (locked) by this one until resolved."""

    file: Path
    meta: Path
    lock: Path
    original: Path | None  # the project file the edits belong to (None: never saved)
    title: str
    saved_at: float  # time.time()
    restore_to: Path | None  # where Save will write: ``original`` if it is still that file
    reason: str | None  # why not, when ``original`` is set but ``restore_to`` is None
    identity: FileIdentity | None = None  # of ``restore_to`` as it is now
    _fd: int | None = field(default=None, repr=False)

    def load(self) -> Project:
        return load_project(self.file)

    def release(self) -> None:
        """Stop claiming it: it is offered again at the next start."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def discard(self) -> None:
        for path in (self.file, self.meta, self.lock):
            path.unlink(missing_ok=True)
        self.release()


class RecoveryStore:
    """One window's recovery slot, in the folder that every window's slots share."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self.dir = (root or state_dir()) / "recovery"
        slot = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.file = self.dir / f"{slot}.radioplay"
        self.meta = self.dir / f"{slot}.json"
        self.lock = self.dir / f"{slot}.lock"
        self._fd: int | None = None

    def save(self, project: Project, original: Path | None, identity: FileIdentity | None = None) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        if self._fd is None:  # locked before the first autosave exists: never offered while we live
            self._fd = _lock(self.lock)
            if self._fd is None:
                raise OSError(f"{self.lock} is locked by another process")
        atomic_write_text(self.file, project_text(project))
        atomic_write_text(self.meta, json.dumps({
            "original": str(Path(original).absolute()) if original else None,
            "identity": identity.to_json() if identity and original else None,
            "title": project.title, "saved_at": time.time(), "pid": os.getpid()}) + "\n")

    def discard(self) -> None:
        """Nothing to recover any more (saved, or a clean exit)."""
        for path in (self.file, self.meta, self.lock):
            path.unlink(missing_ok=True)
        self.release()

    def release(self) -> None:
        """Leave the autosave for the next start (an exit that keeps unsaved work)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def pending(self) -> list[Recovery]:
        """Autosaves of studios that did not exit cleanly, oldest first, each claimed by this store."""
        if not self.dir.is_dir():
            return []
        found = []
        for file in sorted(self.dir.glob("*.radioplay")):
            if file == self.file:
                continue
            lock = file.with_suffix(".lock")
            try:
                fd = _lock(lock)
            except OSError:
                continue
            if fd is None:
                continue  # its window is open
            if not file.is_file():  # it exited cleanly while we looked
                lock.unlink(missing_ok=True)
                os.close(fd)
                continue
            found.append(_read(file, fd))
        return sorted(found, key=lambda r: r.saved_at)


def _read(file: Path, fd: int) -> Recovery:
    meta_path = file.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    original = Path(meta["original"]) if isinstance(meta.get("original"), str) else None
    restore_to, identity, reason = _check_original(original, FileIdentity.from_json(meta.get("identity")))
    saved_at = meta.get("saved_at")
    if not isinstance(saved_at, int | float):
        with contextlib.suppress(OSError):
            saved_at = file.stat().st_mtime
    return Recovery(file, meta_path, file.with_suffix(".lock"), original, str(meta.get("title") or ""),
                    float(saved_at or 0.0), restore_to, reason, identity, fd)


def _check_original(original: Path | None,
                    recorded: FileIdentity | None) -> tuple[Path | None, FileIdentity | None, str | None]:
    """(where Save may write, that file's identity now, why not): the recovered edits go back only into
    the very file they were made to, unchanged since; anything else opens as a new, unsaved production."""
    if original is None:
        return None, None, None
    if not original.is_absolute():
        return None, None, f"the autosave names {original} without its folder, so it cannot be told apart " \
                           "from another file of that name"
    if recorded is None:
        return None, None, f"the autosave does not record which file {original} was"
    try:
        now = FileIdentity.of(original)
    except FileNotFoundError:
        return None, None, f"{original} no longer exists"
    except OSError as exc:
        return None, None, f"{original} cannot be read ({exc.strerror or exc})"
    if now.sha256 == recorded.sha256:
        return original, now, None  # the very content the edits started from
    if (now.device, now.inode) == (recorded.device, recorded.inode):
        return None, None, f"{original} was changed after these edits began"
    return None, None, f"{original} was changed: another file took its place after these edits began"


class Autosaver(QObject):
    """Writes the document to the window's recovery slot a moment after the last edit."""

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
            self.store.save(self.doc.project, self.doc.path, self.doc.identity)
            self.error = None
        except OSError as exc:
            self.error = f"Autosave failed: {exc}"
