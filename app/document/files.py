"""Reading and writing project files from the studio, and the recent-files list.

Content comes from engine.project.fileformat (one definition of the file);
the write goes through QSaveFile, so a failed or interrupted save leaves the
previous file untouched. Every read and write also yields the file's
identity, so crash recovery can tell the file the edits belong to from
another one that took its place.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QIODevice, QSaveFile, QSettings

from app.document.settings import RECENT_FILES
from engine.fsutil import open_regular
from engine.output_paths import PROJECT, OutputFile, OutputPathError, in_place, output_file
from engine.project.fileformat import EXTENSION, load_project, project_to_dict
from engine.project.model import Project

FILE_FILTER = f"Radioplay projects (*{EXTENSION});;All files (*)"
SCRIPT_FILTER = "Scripts (*.fountain *.spmd *.txt);;All files (*)"
MAX_RECENT = 8


@dataclass(frozen=True)
class FileIdentity:
    """A project file as it was when the studio read or wrote it: which inode, and what content."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, path: Path) -> FileIdentity:
        """Reads the file; OSError when it cannot."""
        with open_regular(path) as f:  # never a FIFO or a device (it would block the GUI thread)
            st = os.fstat(f.fileno())
            digest = hashlib.sha256(f.read()).hexdigest()
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, digest)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> FileIdentity | None:
        try:
            return cls(int(data["device"]), int(data["inode"]), int(data["size"]), int(data["mtime_ns"]),
                       str(data["sha256"]))
        except (TypeError, KeyError, ValueError):
            return None


def project_text(project: Project, folder: Path | None = None) -> str:
    """The file's text; paths in it (recorded takes) are stored relative to ``folder``, the
    project file's folder, so a moved project folder keeps them."""
    return json.dumps(project_to_dict(project, folder), indent=2, ensure_ascii=False) + "\n"


def save_target(path: Path, current: Path | None, confirmed: bool = True) -> OutputFile:
    """Where a save of the document goes, by the rule of every output (engine/output_paths.py).

    ``current``: the document's own file; saving to it again follows a link to it wherever
    it leads. Any other path comes from the Save As dialog: ``confirmed`` when it is the
    name the dialog asked "replace it?" about (the explicit overwrite), not when the
    extension was added after it. A device, a FIFO, a folder or a link out of its folder
    is refused either way. Raises OutputPathError (one line)."""
    if current is not None and Path(path).absolute() == Path(current).absolute():
        return in_place(path)
    return output_file(path, PROJECT, overwrite=confirmed)


def write_project(project: Project, path: Path, current: Path | None = None, confirmed: bool = True
                  ) -> FileIdentity:
    """Atomic save (QSaveFile: temporary file, then rename) to ``path`` checked by
    :func:`save_target`; OSError says why it failed (OutputPathError, a ValueError, why
    the name may not be written).

    Returns the identity of the file written."""
    target = save_target(path, current, confirmed)
    path = target.path
    data = project_text(project, path.absolute().parent).encode("utf-8")
    out = QSaveFile(str(path))
    if not out.open(QIODevice.OpenModeFlag.WriteOnly):
        raise OSError(f"cannot write {path}: {out.errorString()}")
    if out.write(data) != len(data):
        error = out.errorString()
        out.cancelWriting()
        out.commit()
        raise OSError(f"cannot write {path}: {error}")
    try:
        target.check_again()  # the name may hold a FIFO or a device by now
    except OutputPathError:
        out.cancelWriting()
        out.commit()
        raise
    if not out.commit():
        raise OSError(f"cannot write {path}: {out.errorString()}")
    st = os.stat(path)
    return FileIdentity(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, hashlib.sha256(data).hexdigest())


def read_project(path: Path) -> Project:
    """Raises engine.project.fileformat.ProjectFileError naming the file and the JSON path."""
    return load_project(path)


def with_extension(path: str | Path) -> Path:
    path = Path(path)
    return path if path.suffix == EXTENSION else path.with_name(path.name + EXTENSION)


class RecentFiles:
    """Most recent first, kept in QSettings; missing files drop out when listed."""

    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def paths(self) -> list[Path]:
        return [Path(p) for p in RECENT_FILES.read(self.settings) if Path(p).is_file()]

    def add(self, path: Path) -> None:
        resolved = str(Path(path).resolve())
        paths = [resolved] + [str(p) for p in self.paths() if str(p) != resolved]
        RECENT_FILES.write(self.settings, paths[:MAX_RECENT])

    def clear(self) -> None:
        RECENT_FILES.write(self.settings, [])
