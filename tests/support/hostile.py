"""Helpers of the hostile tests (issue 25): a tiny project on disk, raw HTTP
to a real ``radioplay serve`` on 127.0.0.1, WAV headers that lie, and the
processes a program leaves behind."""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine.project.fileformat import save_project
from engine.project.model import Line, Project, Role, Scene, VoiceParams


def tiny_project(voice: Path, roles: tuple[str, ...] = ("ANNA", "BEN"), lines: int = 2) -> Project:
    project = Project(title="Hostile", sample_rate=48_000, scenes=[Scene("S1", "A room")])
    project.cast = [Role(name, voice=VoiceParams(voice=str(voice))) for name in roles]
    project.lines = [Line(f"L{i + 1}", roles[i % len(roles)], f"Line number {i + 1} of the hostile play.",
                          scene="S1") for i in range(lines)]
    return project


def project_file(folder: Path, voice: Path, **options: Any) -> Path:
    path = folder / "hostile.radioplay"
    save_project(tiny_project(voice, **options), path)
    return path


@contextlib.contextmanager
def serving(project: Path, **options: Any) -> Iterator[Any]:
    """A real ``radioplay serve`` (in a thread of this process) on free loopback ports."""
    from engine.serve.server import ServeConfig, start_in_thread

    handle = start_in_thread(ServeConfig(project=project, port=0, metrics_port=0, **options))
    try:
        yield handle
    finally:
        handle.stop()


def raw_http(port: int, request: bytes, limit_s: float = 20.0) -> tuple[int, bytes]:
    """Send bytes as they are (headers no client library would send); the status and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=limit_s) as sock:
        sock.sendall(request)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def wav_header(rate: int, channels: int = 1, bits: int = 16, data_bytes: int = 0) -> bytes:
    """A PCM WAV header claiming ``rate`` and ``data_bytes`` of samples (which need not follow)."""
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * block, block, bits)
    return (b"RIFF" + struct.pack("<I", 36 + data_bytes) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt
            + b"data" + struct.pack("<I", data_bytes))


def lying_wav(path: Path, rate: int, seconds_claimed: float, seconds_written: float = 0.5) -> Path:
    """A 16-bit mono WAV whose header claims ``seconds_claimed`` at ``rate``; the file
    is sparse past the ``seconds_written`` of noise actually written."""
    claimed = int(seconds_claimed * rate) * 2
    written = min(claimed, int(seconds_written * rate) * 2)
    with open(path, "wb") as f:
        f.write(wav_header(rate, data_bytes=min(claimed, 0xFFFFFFFF - 36)))
        f.write(os.urandom(written))
        f.truncate(44 + claimed)
    return path


def start_time(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def descendants(pid: int) -> dict[int, int]:
    """pid -> start time of every live descendant of ``pid`` (from /proc)."""
    found: dict[int, int] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{parent}/task").iterdir():
                with contextlib.suppress(OSError):
                    for child in (int(c) for c in (task / "children").read_text().split()):
                        started = start_time(child)
                        if started is not None and child not in found:
                            found[child] = started
                            frontier.append(child)
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def alive(processes: dict[int, int]) -> dict[int, str]:
    """Those of ``processes`` (pid -> start time) still running (zombies count as ended)."""
    out = {}
    for pid, started in processes.items():
        if start_time(pid) != started:
            continue
        with contextlib.suppress(OSError):
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z":
                out[pid] = command_line(pid)
    return out


def wait_until(condition: Callable[[], bool], what: str, limit_s: float) -> None:
    """Poll (a safety net against hangs, not a timing assertion)."""
    end = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {limit_s:g} s waiting for {what}")
        time.sleep(0.05)


# ---- a voice catalogue served over HTTP on 127.0.0.1 ----------------------------------------

VOICE_KEY = "en_US-hostile-x_low"


def catalogue_mirror(root: Path, voice: Path) -> Path:
    """A voices.json in the official format listing one voice (the tiny generated
    one), its files laid out as on the official mirror; returns the voices.json."""
    import hashlib
    import json
    import shutil

    rel = Path("en/en_US/hostile/x_low")
    (root / rel).mkdir(parents=True, exist_ok=True)
    files = {}
    for source, name in ((voice, f"{VOICE_KEY}.onnx"), (Path(f"{voice}.json"), f"{VOICE_KEY}.onnx.json")):
        shutil.copy(source, root / rel / name)
        data = (root / rel / name).read_bytes()
        files[f"{rel}/{name}"] = {"size_bytes": len(data), "md5_digest": hashlib.md5(data).hexdigest()}
    entry = {"key": VOICE_KEY, "name": "hostile", "quality": "x_low", "num_speakers": 1, "speaker_id_map": {},
             "language": {"code": "en_US", "family": "en", "name_english": "English",
                          "country_english": "United States"}, "files": files, "aliases": []}
    path = root / "voices.json"
    path.write_text(json.dumps({VOICE_KEY: entry}))
    return path


class FileServer:
    """Serves a folder on 127.0.0.1 (a thread of this process); with ``trickle_s``
    set, every file is sent one byte at a time with that pause between bytes."""

    def __init__(self, root: Path, trickle_s: float | None = None) -> None:
        import http.server
        import threading

        server_root, pause = root, trickle_s

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                path = server_root / self.path.lstrip("/").split("?", 1)[0]
                if not path.is_file():
                    self.send_error(404)
                    return
                data = path.read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if pause is None:
                    self.wfile.write(data)
                    return
                with contextlib.suppress(OSError):  # the client gave up: what the test wants
                    for i in range(len(data)):
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(pause)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/voices.json"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def kill_and_count_survivors(process: Any, watch: Callable[[], bool], what: str, limit_s: float = 600.0,
                             grace_s: float = 10.0) -> tuple[dict[int, str], dict[int, str]]:
    """Record ``process``'s descendants until ``watch()`` says the ones a test
    wants are running, kill -9 the process, and give its descendants
    ``grace_s``; (every descendant seen, pid -> command line; those still alive)."""
    import signal

    seen: dict[int, int] = {}
    named: dict[int, str] = {}  # named while alive: some end at once with the parent

    def look() -> None:
        for pid, started in descendants(process.pid).items():
            seen.setdefault(pid, started)
            name = command_line(pid)  # again each time: a child seen between fork and exec has its parent's
            if name != "?":
                named[pid] = name

    end = time.monotonic() + limit_s
    while not watch():
        assert process.poll() is None, f"{what} ended (status {process.returncode}) before its children were seen"
        assert time.monotonic() < end, f"timed out after {limit_s:g} s waiting for {what}'s children"
        look()
        time.sleep(0.1)
    look()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + grace_s
    while alive(seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    return named, alive(seen)


def end_survivors(survivors: dict[int, str]) -> None:
    """Kill what a failed test left behind (by pid: only what it started)."""
    import signal

    for pid in survivors:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def run_measured(args: list[str], cwd: Path, limit_s: float = 120.0) -> tuple[int, str, str, int]:
    """Run a command; (exit status, stdout, stderr, its peak resident memory in bytes).

    The peak is the child's ``VmHWM`` (Linux), read every few milliseconds until it ends:
    its rusage would not do, as Linux carries the high-water mark of the forked copy of
    this (large) test process across the exec into the child's."""
    import subprocess
    import tempfile

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(args, cwd=cwd, stdout=out, stderr=err, text=True)
        end = time.monotonic() + limit_s
        peak = 0
        while True:
            with contextlib.suppress(OSError, IndexError, ValueError):
                if Path(f"/proc/{process.pid}/cmdline").read_text().split("\0")[:-1] == args:  # past the exec
                    status_text = Path(f"/proc/{process.pid}/status").read_text()
                    peak = max(peak, int(status_text.split("VmHWM:")[1].split()[0]) * 1024)
            pid, status, _ = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > end:  # a safety net against hangs, not a timing assertion
                process.kill()
                os.wait4(process.pid, 0)
                raise AssertionError(f"still running after {limit_s:g} s: {' '.join(args)[:200]}")
            time.sleep(0.005)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return process.returncode, out.read(), err.read(), peak
