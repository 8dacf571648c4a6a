"""Fetching the catalogue and installing a voice's files, verified first.

Each file streams to a hidden partial name beside its final one
(``.en_GB-alba-medium.onnx.part``), is checked against the catalogue's size
and MD5, and only then renamed, configs before the model (the voice library
lists a voice by its ``.onnx``), after every file of the voice has passed.
So an interrupted, cancelled or failed download never leaves a file under a
final name; an interrupted one resumes from its partial file with an HTTP
Range request.

The standard library's urllib rather than aiohttp (also a dependency, for
``radioplay serve``): a download is one sequential stream on a thread that
may block (the command line, or a studio worker through run_task). urllib is
blocking, speaks http, https and file URLs and Range requests, and needs no
event loop per download thread.
"""

from __future__ import annotations

import errno
import hashlib
import http.client
import socket
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO
from urllib.error import HTTPError, URLError
from urllib.parse import urlsplit
from urllib.request import Request, urlopen

import numpy as np

from engine.fsutil import commit, create_exclusive, open_own_for_append, read_regular_bytes
from engine.synth.catalogue import (
    DEFAULT_CATALOGUE_URL,
    Catalogue,
    CatalogueFile,
    CatalogueVoice,
    is_url,
    parse_catalogue,
)
from engine.synth.errors import CatalogueError, DownloadError

CHUNK = 1 << 16
# A server that trickles (one byte every 20 s keeps every socket timeout from firing)
# is given up on when less than MIN_RATE_BPS arrived over a window of RATE_WINDOW_S.
MIN_RATE_BPS = 1024.0
RATE_WINDOW_S = 30.0
MAX_CATALOGUE_BYTES = 64 << 20  # the official voices.json is well under 1 MB
USER_AGENT = "radioplay-voice-download"

# progress(file name, bytes done over the whole voice, bytes of the whole voice)
Progress = Callable[[str, int, int], None]


class DownloadCancelled(DownloadError):
    """The producer cancelled; the partial file stays for a later resume."""


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, socket.gaierror):
        return f"{reason.strerror or reason} (is this machine online?)"
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return "timed out"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason)


def _open(url: str, timeout: float, offset: int = 0):  # type: ignore[no-untyped-def]
    """urlopen with one-line errors: HTTP status, or why the host cannot be reached."""
    headers = {"User-Agent": USER_AGENT}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    try:
        return urlopen(Request(url, headers=headers), timeout=timeout)  # noqa: S310 - http(s)/file by design
    except HTTPError as exc:
        raise DownloadError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (URLError, OSError, http.client.HTTPException) as exc:
        host = urlsplit(url).netloc or url
        raise DownloadError(f"cannot reach {host}: {_reason(exc)}") from None


class RateGuard:
    """Refuses a transfer slower than ``min_bps`` over any ``window_s``."""

    def __init__(self, url: str, min_bps: float = MIN_RATE_BPS, window_s: float = RATE_WINDOW_S) -> None:
        self.url, self.min_bps, self.window_s = url, min_bps, window_s
        self._start = time.monotonic()
        self._bytes = 0

    def got(self, n: int, done: str = "") -> None:
        self._bytes += n
        now = time.monotonic()
        if now - self._start < self.window_s:
            return
        if self._bytes < self.min_bps * (now - self._start):
            raise DownloadError(f"{self.url}: too slow: {self._bytes} bytes in {now - self._start:.0f} s, at "
                                f"least {self.min_bps:g} bytes/s are needed{done}")
        self._start, self._bytes = now, 0


def _read_some(response, size: int) -> bytes:  # type: ignore[no-untyped-def]
    """At most ``size`` bytes from what the next receive brings (read(n) waits for
    all n, one trickled byte at a time, with every socket timeout reset)."""
    read1 = getattr(response, "read1", None)
    return bytes(read1(size) if read1 is not None else response.read(size))


def fetch_bytes(url: str, timeout: float = 20.0, what: str = "the file", min_bps: float = MIN_RATE_BPS,
                window_s: float = RATE_WINDOW_S) -> bytes:
    """A small file in memory (the catalogue); errors name what was being fetched."""
    try:
        with _open(url, timeout) as response:
            guard = RateGuard(url, min_bps, window_s)
            parts: list[bytes] = []
            size = 0
            while size <= MAX_CATALOGUE_BYTES:
                chunk = _read_some(response, min(CHUNK, MAX_CATALOGUE_BYTES + 1 - size))
                if not chunk:
                    break
                parts.append(chunk)
                size += len(chunk)
                guard.got(len(chunk))
            data = b"".join(parts)
    except DownloadError as exc:
        raise DownloadError(f"cannot download {what}: {exc}") from None
    except (OSError, http.client.HTTPException) as exc:
        raise DownloadError(f"cannot download {what} from {url}: {_reason(exc)}") from None
    if len(data) > MAX_CATALOGUE_BYTES:
        raise DownloadError(f"{url}: larger than {MAX_CATALOGUE_BYTES >> 20} MB; not a voice catalogue")
    return bytes(data)


def partial_path(folder: Path, file: CatalogueFile) -> Path:
    return folder / f".{file.name}.part"


def download_voice(catalogue: Catalogue, voice: CatalogueVoice, folder: Path, progress: Progress | None = None,
                   cancelled: Callable[[], bool] = lambda: False, timeout: float = 30.0,
                   min_bps: float = MIN_RATE_BPS, window_s: float = RATE_WINDOW_S) -> list[Path]:
    """Install ``voice`` into ``folder``; returns the installed files, model first.

    Raises DownloadError (one line naming the file and the problem; nothing
    installed) or DownloadCancelled. A file already installed with the right
    size and MD5 is not fetched again.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"cannot create the voice folder {folder}: {exc.strerror or exc}") from None
    total = voice.size
    done = 0
    ready: list[tuple[Path, Path]] = []
    for file in voice.files:
        final = folder / file.name
        if _matches(final, file):
            done += file.size
            continue

        def report(got: int, base: int = done, name: str = file.name) -> None:
            if progress is not None:
                progress(name, base + got, total)

        guard = RateGuard(catalogue.url_of(file), min_bps, window_s)
        ready.append((_fetch(catalogue.url_of(file), file, partial_path(folder, file), report, cancelled, timeout,
                             guard), final))
        done += file.size
    if progress is not None:
        progress(voice.files[0].name, total, total)
    for part, final in sorted(ready, key=lambda pf: pf[1].name.endswith(".onnx")):  # the model last
        try:
            commit(part, final)
        except OSError as exc:
            raise DownloadError(f"cannot install {final}: {exc.strerror or exc}") from None
    return [folder / f.name for f in voice.files]


def _matches(path: Path, file: CatalogueFile) -> bool:
    try:
        return path.stat().st_size == file.size and _md5_of(path) == file.md5
    except OSError:
        return False


def _md5_of(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _fetch(url: str, file: CatalogueFile, part: Path, report: Callable[[int], None],
           cancelled: Callable[[], bool], timeout: float, guard: RateGuard) -> Path:
    """Stream ``url`` into ``part`` (resuming what is there), then check size and MD5."""
    have = _resumable(part)
    if have > file.size:
        part.unlink()
        have = 0
    if have < file.size:
        have = _stream(url, file, part, have, report, cancelled, timeout, guard)
    if have != file.size:
        part.unlink(missing_ok=True)
        raise DownloadError(f"{url}: size mismatch: the server sent {have} bytes, the catalogue says "
                            f"{file.size}; nothing installed")
    md5 = _md5_of(part)
    if md5 != file.md5:
        part.unlink(missing_ok=True)
        raise DownloadError(f"{url}: MD5 mismatch (got {md5}, the catalogue says {file.md5}): the file is not "
                            f"the one the catalogue lists; nothing installed")
    return part


def _resumable(part: Path) -> int:
    """Bytes of a partial file to resume from; anything at the partial name
    that is not our own plain file (a planted link, a FIFO, a hard link) is
    removed, never followed: the download then starts over."""
    try:
        st = part.lstat()
    except FileNotFoundError:
        return 0
    except OSError as exc:
        raise DownloadError(f"cannot use {part}: {exc.strerror or exc}") from None
    if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
        return st.st_size
    try:
        part.unlink()
    except OSError as exc:
        raise DownloadError(f"{part} is not a partial download of ours and cannot be removed: "
                            f"{exc.strerror or exc}") from None
    return 0


def _open_partial(part: Path, have: int) -> BinaryIO:
    """The partial file to write: ours to append to, or a new one made here
    (exclusively, never through a link)."""
    if have:
        out = open_own_for_append(part)
        if out is not None:
            return out
        raise DownloadError(f"{part} changed while resuming; run again")
    part.unlink(missing_ok=True)
    return create_exclusive(part)


def _stream(url: str, file: CatalogueFile, part: Path, have: int, report: Callable[[int], None],
            cancelled: Callable[[], bool], timeout: float, guard: RateGuard) -> int:
    """Append the rest of the file to ``part``; returns the bytes it now holds.
    A connection lost midway keeps the partial file, so the next run resumes."""
    with _open(url, timeout, offset=have) as response:
        status = getattr(response, "status", None)
        if have and status != 206:  # the server ignored the Range: start over
            have = 0
        elif status == 206 and not str(response.headers.get("Content-Range", "")).startswith(f"bytes {have}-"):
            raise DownloadError(f"{url}: the server resumed at the wrong place "
                                f"({response.headers.get('Content-Range')!r}, asked for byte {have})")
        report(have)
        try:
            # Unbuffered: a full disk fails in write() below, never later in close().
            out = _open_partial(part, have)
        except OSError as exc:
            raise DownloadError(f"cannot write {part}: {exc.strerror or exc}") from None
        with out:
            while True:
                if cancelled():
                    raise DownloadCancelled(f"download of {file.name} cancelled after {have} of {file.size} "
                                            f"bytes (kept to resume)")
                try:
                    chunk = _read_some(response, CHUNK)
                except (OSError, http.client.HTTPException) as exc:
                    raise DownloadError(f"{url}: the connection was lost after {have} of {file.size} bytes "
                                        f"({_reason(exc) or type(exc).__name__}); run again to resume") from None
                if not chunk:
                    # http.client's read(n) ends quietly on an early close; what the
                    # server promised (Content-Length) and did not send tells them apart.
                    if getattr(response, "length", None):
                        raise DownloadError(f"{url}: the connection was lost after {have} of {file.size} bytes; "
                                            f"run again to resume")
                    return have
                if have + len(chunk) > file.size:
                    out.close()
                    part.unlink(missing_ok=True)
                    raise DownloadError(f"{url}: size mismatch: the server sends more than the "
                                        f"{file.size} bytes the catalogue says; nothing installed")
                try:
                    view = memoryview(chunk)
                    while view:
                        view = view[out.write(view) or 0:]
                except OSError as exc:
                    out.close()
                    part.unlink(missing_ok=True)
                    if exc.errno == errno.ENOSPC:
                        raise DownloadError(f"disk full writing {part.parent} ({file.name} needs {file.size} "
                                            f"bytes); nothing installed") from None
                    raise DownloadError(f"cannot write {part}: {exc.strerror or exc}") from None
                have += len(chunk)
                report(have)
                guard.got(len(chunk), f" (kept {have} of {file.size} bytes; run again to resume)")



def fetch_recording(url: str, timeout: float = 20.0) -> tuple[np.ndarray, int]:
    """A catalogue's voice sample as mono float32 audio and its rate (wav, flac,
    ogg; mp3 where libsndfile reads it). Raises DownloadError."""
    import io

    import soundfile as sf

    data = fetch_bytes(url, timeout, what="the voice sample")
    try:
        audio, rate = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
    except (RuntimeError, sf.LibsndfileError) as exc:
        raise DownloadError(f"{url}: cannot decode the voice sample ({exc})") from None
    return np.ascontiguousarray(audio.mean(axis=1), dtype=np.float32), int(rate)


def load_catalogue(location: str | None = None, timeout: float = 20.0) -> Catalogue:
    """Read a catalogue from a URL (http, https, file) or a local path; the
    official Piper catalogue by default. Raises CatalogueError or DownloadError."""
    location = location or DEFAULT_CATALOGUE_URL
    if is_url(location):
        return parse_catalogue(fetch_bytes(location, timeout, what="the voice catalogue"), location)
    path = Path(location).expanduser()
    try:
        data = read_regular_bytes(path, MAX_CATALOGUE_BYTES)
    except FileNotFoundError:
        raise CatalogueError(f"{path}: cannot read the voice catalogue: file not found") from None
    except OSError as exc:  # a FIFO, a device, an endless file: refused before a byte is read
        raise CatalogueError(f"{path}: cannot read the voice catalogue: {exc.strerror or exc}") from None
    except ValueError:
        raise CatalogueError(f"{location!r}: cannot read the voice catalogue: the path contains a NUL byte") from None
    return parse_catalogue(data, str(path))
