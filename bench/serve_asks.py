"""Requests whose directions ask too much against ``radioplay serve``, while another role is voiced.

Starts ``radioplay serve`` as its own process (two roles on the bundled voice,
a bearer token), measures a normal client's latency on one role (unique texts,
so every one is synthesized), the server's resident memory, then sends one
authenticated 998-character ``POST /tts`` of ``(60s, 60s, ...)`` and a burst
of ``--burst`` of them from 16 threads, kept up while the normal client keeps asking,
and measures again. Prints one JSON object: the long request's status and
time, the burst's statuses, the normal client's p50/p95 before and during the
burst (and their ratio), the server's memory before and after, and whether
its log holds a traceback (issue 57).

    PYTHONPATH=. python bench/serve_asks.py [--burst 100] [--keep-up N] [--normal 20] [--server-as-gb 6]

``--server-as-gb`` caps the server's address space, so that running this
against a tree without the checks cannot take the machine's memory. Traffic
goes to 127.0.0.1 only; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token-of-issue-57"
RUN = os.getpid()  # in every normal text: each is synthesized, never a cached clip
LONG_PAUSES = "Hi (60s, " + "60s, " * 197 + "60s)"  # 998 characters, 199 minutes of silence


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_project(folder: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from engine.project.fileformat import save_project
    from engine.project.model import Line, Project, Role

    path = folder / "asks.radioplay"
    save_project(Project(title="Asks", cast=[Role("ANNA"), Role("BEN")],
                         lines=[Line("L1", "ANNA", "Hello."), Line("L2", "BEN", "Hello yourself.")]), path)
    return path


def post(port: int, role: str, text: str, timeout: float = 120.0) -> tuple[int | str, float]:
    body = json.dumps({"role": role, "text": text}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/tts", data=body, method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"})
    start = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()
            status: int | str = response.status
    except urllib.error.HTTPError as exc:
        exc.read()
        status = exc.code
    except OSError as exc:
        status = type(exc).__name__
    return status, time.monotonic() - start


def rss_mb(pid: int) -> float:
    fields = Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()
    return round(int(fields[0]) / 1024, 1)


def percentiles(times: list[float]) -> dict[str, float | None]:
    ordered = sorted(times)
    if not ordered:
        return {"p50_ms": None, "p95_ms": None}
    return {"p50_ms": round(ordered[len(ordered) // 2] * 1000, 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 1)}


def normal_client(port: int, count: int, tag: str) -> tuple[list[float], dict[str, int]]:
    times, statuses = [], {}
    for k in range(count):
        status, took = post(port, "BEN", f"Still here, {tag} number {k} of run {RUN}, and listening.")
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        if status == 200:
            times.append(took)
    return times, statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=100)
    parser.add_argument("--keep-up", type=int, default=0, metavar="N",
                        help="after the burst, keep sending them while the normal client asks (at most N in all)")
    parser.add_argument("--normal", type=int, default=20)
    parser.add_argument("--server-as-gb", type=float, default=6.0)
    args = parser.parse_args()
    cap = int(args.server_as_gb * 2**30)
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp))
        token = Path(tmp) / "token"
        token.write_text(TOKEN)
        port, metrics_port = free_port(), free_port()
        log_path = Path(tmp) / "server.log"
        with open(log_path, "wb") as log:
            server = subprocess.Popen(
                [sys.executable, "-m", "engine.cli", "serve", str(project), "--port", str(port),
                 "--metrics-port", str(metrics_port), "--token-file", str(token)],
                stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                env=dict(os.environ, PYTHONPATH=str(ROOT), RADIOPLAY_CACHE_DIR=str(Path(tmp) / "cache")),
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
        try:
            return run(args, server, port, log_path)
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def run(args: argparse.Namespace, server: subprocess.Popen[bytes], port: int, log_path: Path) -> int:
    end = time.monotonic() + 120
    while post(port, "ANNA", "Warm the voice.", 30)[0] != 200:  # ready, the voice loaded
        if server.poll() is not None or time.monotonic() > end:
            print(log_path.read_text(errors="replace"), file=sys.stderr)
            return 2
        time.sleep(0.5)
    before_times, before_statuses = normal_client(port, args.normal, "before")
    rss_before = rss_mb(server.pid)
    cpu_before = time.clock_gettime(time.CLOCK_MONOTONIC)
    status, took = post(port, "ANNA", LONG_PAUSES)
    report: dict[str, object] = {
        "long_request": {"status": status, "seconds": round(took, 3), "server_alive": server.poll() is None},
        "rss_mb_before": rss_before,
    }
    if server.poll() is None:
        report["rss_mb_after_one"] = rss_mb(server.pid)
    burst_statuses: dict[str, int] = {}
    during: list[float] = []
    during_statuses: dict[str, int] = {}
    if args.burst and server.poll() is None:
        # The burst as the normal client starts; with --keep-up, more of the same for as long as
        # it asks (at most N in all), so that every normal request meets them.
        result: list[tuple[list[float], dict[str, int]]] = []
        client = threading.Thread(target=lambda: result.append(normal_client(port, args.normal, "during")))
        sent = iter(range(max(args.burst, args.keep_up)))
        lock = threading.Lock()

        def flood() -> None:
            while True:
                with lock:
                    k = next(sent, None)
                if k is None or (k >= args.burst and not client.is_alive()):
                    return
                got, _ = post(port, "ANNA", LONG_PAUSES)
                with lock:
                    burst_statuses[str(got)] = burst_statuses.get(str(got), 0) + 1

        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=16) as pool:
            client.start()
            for _ in pool.map(lambda _: flood(), range(16)):
                pass
        burst_s = time.monotonic() - start
        client.join(300)
        during, during_statuses = result[0] if result else ([], {})
        report["burst"] = {"requests": sum(burst_statuses.values()), "statuses": burst_statuses,
                           "seconds": round(burst_s, 2)}
    before_p, during_p = percentiles(before_times), percentiles(during)
    report["normal_before"] = {**before_p, "statuses": before_statuses}
    if args.burst:
        report["normal_during_burst"] = {**during_p, "statuses": during_statuses}
        if before_p["p50_ms"] and during_p["p50_ms"]:
            report["p50_ratio_during_over_before"] = round(during_p["p50_ms"] / before_p["p50_ms"], 2)
            report["p95_ratio_during_over_before"] = round((during_p["p95_ms"] or 0) / (before_p["p95_ms"] or 1), 2)
    if server.poll() is None:
        report["rss_mb_after"] = rss_mb(server.pid)
    log = log_path.read_text(errors="replace")
    report["server_log_tracebacks"] = log.count("Traceback")
    report["server_log_lines"] = log.count("\n")
    report["wall_s"] = round(time.clock_gettime(time.CLOCK_MONOTONIC) - cpu_before, 1)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
