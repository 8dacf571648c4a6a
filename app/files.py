"""Reading and writing project files from the studio, and the recent-files list.

Content comes from engine.project.fileformat (one definition of the file);
the write goes through QSaveFile, so a failed or interrupted save leaves the
previous file untouched.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QIODevice, QSaveFile, QSettings

from app.settings import RECENT_FILES
from engine.project.fileformat import EXTENSION, load_project, project_to_dict
from engine.project.model import Project

FILE_FILTER = f"Radioplay projects (*{EXTENSION});;All files (*)"
SCRIPT_FILTER = "Scripts (*.fountain *.spmd *.txt);;All files (*)"
MAX_RECENT = 8


def project_text(project: Project) -> str:
    return json.dumps(project_to_dict(project), indent=2, ensure_ascii=False) + "\n"


def write_project(project: Project, path: Path) -> None:
    """Atomic save (QSaveFile: temporary file, then rename); OSError says why it failed."""
    data = project_text(project).encode("utf-8")
    out = QSaveFile(str(path))
    if not out.open(QIODevice.OpenModeFlag.WriteOnly):
        raise OSError(f"cannot write {path}: {out.errorString()}")
    if out.write(data) != len(data):
        error = out.errorString()
        out.cancelWriting()
        out.commit()
        raise OSError(f"cannot write {path}: {error}")
    if not out.commit():
        raise OSError(f"cannot write {path}: {out.errorString()}")


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
