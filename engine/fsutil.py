"""Atomic file writing: the one home for "never leave a half-written file".

Every document, cache entry and export goes through here, so a crash or a
cancelled render leaves either the old file or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def temp_path_for(final: Path) -> Path:
    """A unique temporary name in the same folder (rename is atomic only there).

    mkstemp creates files 0600; the temp file gets the permissions the final
    file has (or would get from the umask), so a save never makes a shared
    project unreadable to its other users.
    """
    fd, name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".part", dir=final.parent)
    try:
        os.fchmod(fd, _mode_for(final))
    finally:
        os.close(fd)
    return Path(name)


def _mode_for(final: Path) -> int:
    try:
        return final.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def fsync_dir(folder: Path) -> None:
    """Persist a rename: without this a power cut can forget the new entry."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def commit(temp: Path, final: Path) -> None:
    """Flush ``temp`` to disk and move it over ``final`` atomically."""
    with open(temp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(temp, final)
    fsync_dir(final.parent)


@contextlib.contextmanager
def atomic_open(final: Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary sibling of ``final``; rename it into place on success.

    On an exception the temporary file is removed and ``final`` is untouched.
    """
    final = Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    temp = temp_path_for(final)
    try:
        binary = "b" in mode
        with open(temp, mode, encoding=None if binary else encoding, newline=None if binary else "\n") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, final)
        fsync_dir(final.parent)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise


def atomic_write_text(final: Path, text: str) -> None:
    with atomic_open(final, "w") as f:
        f.write(text)


def atomic_write_bytes(final: Path, data: bytes) -> None:
    with atomic_open(final, "wb", encoding=None) as f:
        f.write(data)


class NotRegularFileError(OSError):
    """A path names a FIFO, device, socket or folder where a document was expected."""


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def read_regular_bytes(path: Path) -> bytes:
    """The bytes of a user's document, refusing anything but a regular file.

    Opened without blocking and checked on the open descriptor (no race
    between a check and the open): a FIFO would otherwise wait forever for a
    writer, and a device like /dev/zero would be read until memory runs out.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise NotRegularFileError(f"{kind}, not a regular file")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as f:
            fd = -1  # the file object owns it now
            return f.read()
    finally:
        if fd >= 0:
            os.close(fd)
