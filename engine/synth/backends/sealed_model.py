"""Model files this program wrote into the user's cache, read back only as they were written.

A prepared Piper voice (engine/synth/backends/piper/prepared_voice.py) and the bundled Kokoro model joined
from its packages (engine/synth/backends/kokoro/voices.py) are files in the user's cache that a
voice's sessions are made from. Whatever else sits under such a name (the voice's own
unpatched graph copied over it, a copy altered on disk, a link to a model elsewhere) would
load without a word, voice different samples, and leave those clips in the clip cache under
the genuine voice's keys. So each such file is written with a seal beside it
(``NAME.seal``: the SHA-256 and size of the bytes written) and loaded only through
:func:`sealed_source`: opened without following a link, a regular file, its bytes compared
with the seal.

The digest is not computed on every load: the seal also records the file's identity when its
bytes were last hashed (device, inode, size, modification and change times). A file with the
same identity has not been written since (every write and every ``touch`` moves the change
time, which no user can set back), so it is loaded by its path, unread here; a copy, a
restore or an edit is hashed again, and the bytes hashed are the bytes loaded. What each
costs against making a session: docs/dev/hardening.md (round 4) and bench/sealed_load.py.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
from pathlib import Path

from engine.fsutil import atomic_write_bytes, atomic_write_text
from engine.jsontext import JSONTextError, loads_untrusted

SEAL_SUFFIX = ".seal"
MAX_MODEL_BYTES = 4 << 30  # far above any voice (Piper 60-120 MB, Kokoro 90-330 MB)
_MAX_SEAL_BYTES = 4096
_CHUNK = 8 << 20


class SealError(Exception):
    """The file is not the one that was sealed; the message says how (no path: the caller adds it)."""


class Unsealed(SealError):
    """No seal (a file from a version that wrote none, or a crash between the file and its
    seal): not a sign of tampering, so made again without a warning."""


def seal_path(path: Path) -> Path:
    return path.with_name(path.name + SEAL_SUFFIX)


def write_sealed(path: Path, data: bytes) -> None:
    """``data`` at ``path`` (atomically; a link there is replaced, never followed), then its seal.
    A crash between the two leaves a file whose seal is missing or another's: read as unsealed
    or mismatched, and made again."""
    atomic_write_bytes(path, data)
    _write_seal(path, {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})


def seal_existing(path: Path, sha256: str, size: int) -> None:
    """Seal a file just written by other means (the joined Kokoro model) with its known digest."""
    _write_seal(path, {"sha256": sha256, "size": size})


def sealed_source(path: Path, expected_sha256: str | None = None) -> str | bytes:
    """What to make sessions from, when ``path`` is the sealed file (or, with
    ``expected_sha256``, the file that digest names, which then decides over the seal): its
    path while its identity is the one the seal records (nothing read: ONNX Runtime reads
    it), else its bytes, hashed and found right (the seal then records the new identity).
    Raises :class:`SealError` (:class:`Unsealed` when there is no seal and nothing
    expected) for any other file, FileNotFoundError when there is none, and the OSError of
    a file that cannot be read (PermissionError: another user's file).

    Handing over the path of a file whose identity was just checked leaves a moment in which
    a rename could put another file there; only something racing on purpose could use it, and
    whatever can write into the folder can as well write a seal: the seal guards against files
    that are wrong, not against an adversary who owns the cache."""
    source = _sealed(path, expected_sha256, keep=True)
    return str(path) if source is None else source


def check_sealed(path: Path, expected_sha256: str | None = None) -> None:
    """:func:`sealed_source` without keeping anything: the same checks and errors."""
    _sealed(path, expected_sha256, keep=False)


def _sealed(path: Path, expected_sha256: str | None, keep: bool) -> bytes | None:
    """None when the file's identity is the one the seal records; else, with ``keep``, its
    bytes (hashed and found right), without, None after hashing it."""
    seal = _read_seal(path)
    wanted = expected_sha256 or (seal or {}).get("sha256")
    if not isinstance(wanted, str):
        raise Unsealed("it has no seal")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SealError("it is a symbolic link, not the file that was prepared") from None
        raise
    with os.fdopen(fd, "rb") as f:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise SealError("it is not a regular file")
        if before.st_size > MAX_MODEL_BYTES:
            raise SealError(f"it is {before.st_size} bytes, more than a model is")
        sealed = seal is not None and seal.get("sha256") == wanted
        if sealed and seal is not None and seal.get("size") != before.st_size:
            raise SealError(f"it is {before.st_size} bytes, {seal.get('size')} were written")
        identity = _identity(before)
        if sealed and seal is not None and seal.get("verified") == identity:
            return None
        os.set_blocking(fd, True)
        digest = hashlib.sha256()
        data = None
        if keep:  # one read, one buffer: the bytes handed on are the bytes hashed
            data = f.read(MAX_MODEL_BYTES + 1)
            digest.update(data)
        else:
            for chunk in iter(lambda: f.read(_CHUNK), b""):
                digest.update(chunk)
        after = os.fstat(fd)
    if digest.hexdigest() != wanted:
        raise SealError("its SHA-256 is not the one recorded when it was made")
    if _identity(after) == identity:  # not written while it was read: the identity is the one hashed
        with contextlib.suppress(OSError):
            _write_seal(path, {"sha256": wanted, "size": before.st_size, "verified": identity})
    return data


def remove_sealed(path: Path) -> None:
    """The file and its seal (a version no longer read)."""
    path.unlink(missing_ok=True)
    seal_path(path).unlink(missing_ok=True)


def _identity(st: os.stat_result) -> list[int]:
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _read_seal(path: Path) -> dict[str, object] | None:
    """The seal, or None when there is none or it is damaged. Read without following a link;
    a seal that cannot be read (PermissionError) raises: the file cannot be trusted either."""
    try:
        fd = os.open(seal_path(path), os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None
        raise
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        os.set_blocking(fd, True)
        text = f.read(_MAX_SEAL_BYTES + 1)
    try:
        seal = loads_untrusted(text)
    except JSONTextError:
        return None
    return seal if isinstance(seal, dict) else None


def _write_seal(path: Path, seal: dict[str, object]) -> None:
    atomic_write_text(seal_path(path), json.dumps(seal))
