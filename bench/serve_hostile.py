"""Misbehaving clients against ``radioplay serve`` while a normal client keeps asking.

Starts ``radioplay serve`` as its own process on a tiny generated voice,
opens ``--slow`` sockets that send a request header one byte a second and
``--held`` sockets that connect and send nothing, and, from before the first of
them until ``--seconds`` after the last, runs a well-behaved client that
alternates ``GET /tts`` and ``GET /metrics``
(a new connection each time). Prints one JSON object: the normal client's
statuses and latency, how many misbehaving sockets the server closed and
when, the server's open descriptors and the size of its log.

    PYTHONPATH=. python bench/serve_hostile.py [--slow 40] [--held 1000] [--seconds 20]
        [--server-nofile N] [-- EXTRA SERVE OPTIONS]

Traffic goes to 127.0.0.1 only. Every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_project(folder: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from engine.project.fileformat import save_project
    from tests.support.projects import tiny_project
    from tests.support.voices.generate_test_voice import generate_voices

    voices = generate_voices(folder / "voices")
    path = folder / "hostile.radioplay"
    save_project(tiny_project(voices["single"]), path)
    return path


def get(url: str, timeout: float = 10.0) -> tuple[int | str, float]:
    start = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            status: int | str = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (OSError, urllib.error.URLError) as exc:
        status = type(exc).__name__ if not isinstance(exc, urllib.error.URLError) else f"URLError:{exc.reason}"
    return status, time.monotonic() - start


class Held:
    """Sockets the server may close; polled without blocking."""

    def __init__(self) -> None:
        self.open: list[socket.socket] = []
        self.closed_at: list[float] = []
        self.answered = 0  # closed after the server wrote something (a refusal)
        self.connect_errors = 0

    def connect(self, port: int, first: bytes = b"") -> socket.socket | None:
        s = socket.socket()
        s.settimeout(1)
        try:
            s.connect(("127.0.0.1", port))
            if first:
                s.sendall(first)
        except OSError:
            self.connect_errors += 1
            s.close()
            return None
        s.setblocking(False)
        self.open.append(s)
        return s

    def poll(self, t0: float) -> None:
        still = []
        for s in self.open:
            try:
                data = s.recv(65536)
            except BlockingIOError:
                still.append(s)
                continue
            except OSError:
                data = b""
            if data:
                self.answered += 1
                with contextlib.suppress(OSError):  # read the rest of a refusal, then it closes
                    while s.recv(65536):
                        pass
            self.closed_at.append(time.monotonic() - t0)
            s.close()
        self.open = still


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=40)
    parser.add_argument("--held", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--server-nofile", type=int, default=0,
                        help="the server's descriptor limit (default: inherited); low to reach it quickly")
    parser.add_argument("serve_args", nargs="*")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))  # run the clean-up below under timeout(1)
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp))
        port, metrics_port = free_port(), free_port()
        log_path = Path(tmp) / "server.log"
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        with open(log_path, "wb") as log:
            server = subprocess.Popen(
                [sys.executable, "-m", "engine.cli", "serve", str(project), "--port", str(port),
                 "--metrics-port", str(metrics_port), *args.serve_args],
                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (args.server_nofile, hard)))
                if args.server_nofile else None)
        try:
            return run(args, server, port, metrics_port, log_path)
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def run(args: argparse.Namespace, server: subprocess.Popen[bytes], port: int, metrics_port: int,
        log_path: Path) -> int:
    tts = f"http://127.0.0.1:{port}/tts?role=ROLE0&text=Still+answering."
    metrics = f"http://127.0.0.1:{metrics_port}/metrics"
    end = time.monotonic() + 60
    while get(f"http://127.0.0.1:{port}/roles", 2)[0] != 200:
        if server.poll() is not None or time.monotonic() > end:
            print(log_path.read_text(errors="replace"), file=sys.stderr)
            return 2
        time.sleep(0.2)
    results: list[tuple[str, int | str, float]] = []
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            for name, url in (("tts", tts), ("metrics", metrics)):
                status, took = get(url)
                results.append((name, status, took))

    worker = threading.Thread(target=client, name="normal-client")
    worker.start()  # asking while the sockets are opened too: that is when the server is busiest
    t0 = time.monotonic()
    slow, held = Held(), Held()
    header = b"POST /tts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4000
    for _ in range(args.slow):
        slow.connect(port, b"P")
    for _ in range(args.held):
        if time.monotonic() - t0 > 60:  # the backlog is full and connects time out: enough
            break
        held.connect(port)
    opened_s = time.monotonic() - t0
    peak_fds, step = 0, 1
    while time.monotonic() - t0 < opened_s + args.seconds:
        for s in slow.open:  # one more header byte a second
            with contextlib.suppress(OSError):
                s.send(header[step:step + 1])
        step += 1
        slow.poll(t0)
        held.poll(t0)
        with contextlib.suppress(OSError):
            peak_fds = max(peak_fds, len(os.listdir(f"/proc/{server.pid}/fd")))
        time.sleep(1.0)
    stop.set()
    worker.join(30)
    slow.poll(t0)
    held.poll(t0)
    log_bytes = log_path.stat().st_size
    log_lines = log_path.read_bytes().count(b"\n")
    emfile = log_path.read_bytes().count(os.strerror(errno.EMFILE).encode())
    with open(log_path, "rb") as f:
        head = [line.decode(errors="replace").rstrip() for line, _ in zip(f, range(12), strict=False)]
    report = {
        "slow_sockets": args.slow, "held_sockets": args.held, "seconds": args.seconds,
        "opened_in_s": round(opened_s, 2),
        "connect_errors": slow.connect_errors + held.connect_errors,
        "slow_closed_by_server": len(slow.closed_at),
        "slow_first_closed_s": round(min(slow.closed_at), 2) if slow.closed_at else None,
        "slow_last_closed_s": round(max(slow.closed_at), 2) if slow.closed_at else None,
        "held_closed_by_server": len(held.closed_at),
        "held_refused_with_response": held.answered,
        "held_still_open": len(held.open),
        "normal": {name: summary([r for r in results if r[0] == name]) for name in ("tts", "metrics")},
        "server_peak_fds": peak_fds,
        "server_log_lines": log_lines, "server_log_bytes": log_bytes, "log_too_many_open_files": emfile,
        "server_log_head": head,
        "server_alive": server.poll() is None,
    }
    for s in slow.open + held.open:
        s.close()
    print(json.dumps(report, indent=1))
    return 0


def summary(rows: list[tuple[str, int | str, float]]) -> dict[str, object]:
    statuses: dict[str, int] = {}
    for _, status, _ in rows:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    times = sorted(t for _, s, t in rows if s == 200)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))] if times else None
    return {"requests": len(rows), "statuses": statuses,
            "p95_ms_of_200s": round(p95 * 1000, 1) if p95 is not None else None,
            "max_ms": round(max((t for _, _, t in rows), default=0) * 1000, 1)}


if __name__ == "__main__":
    sys.exit(main())
