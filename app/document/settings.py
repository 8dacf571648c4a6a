"""Every setting the studio remembers between runs, declared once: key, type, default.

The studio keeps them in QSettings (organisation "Radioplay", application
"Radioplay Studio": app/main.py); code reads and writes them only through the
:class:`Setting` objects below, so a key is spelled in one place and a value
read back is always of the declared type (QSettings hands back strings, a
lone string for a one-item list, or whatever an older version stored).
The keys are what existing users' settings files hold: never rename one.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings

T = TypeVar("T")


@dataclass(frozen=True)
class Setting(Generic[T]):
    key: str
    default: T
    convert: Callable[[object], T | None]  # a stored value -> T, or None where it is not one
    doc: str

    def read(self, settings: QSettings) -> T:
        value = settings.value(self.key)
        converted = None if value is None else self.convert(value)
        return copy.copy(self.default) if converted is None else converted  # a caller may change a list

    def write(self, settings: QSettings, value: T) -> None:
        settings.setValue(self.key, value)


def _text(value: object) -> str | None:
    return str(value) if isinstance(value, str) and value else None


def _text_list(value: object) -> list[str] | None:
    if isinstance(value, str):  # QSettings returns a lone string for a one-item list
        value = [value]
    return [str(v) for v in value if v] if isinstance(value, list) else None


def _count(value: object) -> int | None:
    try:
        return int(str(value)) if not isinstance(value, bool) else None
    except ValueError:
        return None


def _bytes(value: object) -> QByteArray | None:
    return QByteArray(value) if isinstance(value, QByteArray | bytes) else None


SYNTH_DEVICE: Setting[str] = Setting(
    "synthesis/device", "auto", _text, "where the studio synthesizes (Transport > Synthesis Device: auto, cpu, "
    "cuda, cuda:N; --device overrides it for a run)")
OUTPUT_DEVICE: Setting[str | None] = Setting(
    "audio/output", None, _text, "sound device chosen in Transport > Sound Output (None: the system's default)")
RECENT_FILES: Setting[list[str]] = Setting(
    "files/recent", [], _text_list, "project files opened last, most recent first (app/document/files.py keeps 8)")
EXPORT_FOLDER: Setting[str | None] = Setting(
    "export/folder", None, _text, "the folder of the last export, offered for an unsaved project")
EXPORT_PROJECT: Setting[str | None] = Setting(
    "export/project", None, _text, "the project file the last export was of (its folder is offered for it again)")
EXPORT_PRESET: Setting[str | None] = Setting(
    "export/preset", None, _text, "the delivery preset chosen in the last export (--preset's name)")
EXPORT_FORMAT: Setting[str | None] = Setting(
    "export/format", None, _text, "the mix format of the last custom export (wav24, wav32f)")
EXPORT_DAW: Setting[str | None] = Setting(
    "export/daw", None, _text, "the DAW hand-off of the last export (reaper, audacity, otio; None: none)")
EXPORT_STEMS: Setting[str | None] = Setting(
    "export/stems", None, _text, "whether the last export wrote a stem per role (yes, no)")
RAY_CLUSTER: Setting[str | None] = Setting(
    "export/ray", None, _text, "Ray cluster exports synthesize on: auto, HOST:PORT or ray://HOST:PORT (None: here)")
WINDOW_GEOMETRY: Setting[QByteArray | None] = Setting(
    "window/geometry", None, _bytes, "the main window's size and position (QMainWindow.saveGeometry)")
WINDOW_STATE: Setting[QByteArray | None] = Setting(
    "window/state", None, _bytes, "where the docks and toolbars are (QMainWindow.saveState)")
FIX_TAKES: Setting[int] = Setting(
    "check/takes", 3, _count, "new takes per flagged line that Edit > Fix Flagged Lines makes at most")
