"""Atomic file writing: the one home for "never leave a half-written file".

Every document, cache entry and export goes through here, so a crash or a
cancelled render leaves either the old file or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO


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
def atomic_open(final: Path, mode: str = "w", encoding: str | None = "utf-8",
                guard: Callable[[], None] | None = None) -> Iterator[IO[Any]]:
    """Open a temporary sibling of ``final``; rename it into place on success.

    On an exception the temporary file is removed and ``final`` is untouched.
    ``guard`` runs once the temporary file is complete, just before the rename:
    what it raises leaves ``final`` as it was (engine/output_paths.py checks
    there again that the name still holds what may be replaced).
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
        if guard is not None:
            guard()
        os.replace(temp, final)
        fsync_dir(final.parent)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise


def atomic_write_text(final: Path, text: str, guard: Callable[[], None] | None = None) -> None:
    with atomic_open(final, "w", guard=guard) as f:
        f.write(text)


def atomic_write_bytes(final: Path, data: bytes, guard: Callable[[], None] | None = None) -> None:
    with atomic_open(final, "wb", encoding=None, guard=guard) as f:
        f.write(data)


class NotRegularFileError(OSError):
    """A path names a FIFO, device, socket or folder where a document was expected."""


class FileTooLargeError(OSError):
    """A regular file larger than what is read of that kind (an endless or sparse file)."""


# What a document a user names (project, script, lexicon, catalogue, cover) may weigh
# at most when no caller gives its own cap: far above any real one, far below memory.
DEFAULT_MAX_BYTES = 256 << 20

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def describe_mode(mode: int) -> str:
    """What a file of this mode is, as a message says it ("a named pipe (FIFO)")."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def describe_size(n: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n} bytes"


def open_regular(path: Path | str, max_bytes: int = DEFAULT_MAX_BYTES) -> BinaryIO:
    """Open a file a user named for reading, refusing anything but a regular
    file of at most ``max_bytes``: the one checked way in for every file read by name.

    Opened without blocking and checked on the open descriptor (no race
    between a check and the open): a FIFO would otherwise wait forever for a
    writer, a device like /dev/zero would be read until memory runs out, and
    a sparse or growing file is refused by its size before a byte is read.
    The messages (NotRegularFileError, FileTooLargeError) say what the path is.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"{describe_mode(st.st_mode)}, not a regular file")
        if st.st_size > max_bytes:
            raise FileTooLargeError(f"{describe_size(st.st_size)}, larger than the {describe_size(max_bytes)} "
                                    "read at most")
        os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return f


def read_regular_bytes(path: Path | str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of a user's document through :func:`open_regular`; at most
    ``max_bytes`` are read even if the file grows while it is read."""
    with open_regular(path, max_bytes) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLargeError(f"grew past the {describe_size(max_bytes)} read at most")
    return data


def create_exclusive(path: Path, mode: int = 0o644) -> BinaryIO:
    """A new file at ``path`` for writing, created here and now (O_EXCL) and
    never through a symbolic link (O_NOFOLLOW): a name planted in a shared
    folder can neither redirect the write nor be appended to."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), mode)
    return os.fdopen(fd, "wb", buffering=0)


def open_own_for_append(path: Path) -> BinaryIO | None:
    """An existing partial file of ours to append to (a resumed download), or
    None when what is at ``path`` is not a plain regular file with one name
    (a link, a FIFO, a hard link to another file): the caller removes it and
    starts over with :func:`create_exclusive`."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "ab", buffering=0)
