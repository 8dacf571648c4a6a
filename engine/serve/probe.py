"""``radioplay probe``: a running service's scheduler, per role, in the terminal.

Scrapes ``/metrics`` with urllib (stdlib: the probe must work where only the
engine is installed) and parses it with ``prometheus_client.parser``, so it
reads exactly what Prometheus would. p95 latency is estimated from the
``radioplay_request_latency_seconds`` histogram buckets by linear
interpolation within the bucket, as PromQL's ``histogram_quantile`` does;
policies are summed per role. Everything runs on the calling thread.
"""

from __future__ import annotations

import contextlib
import http.client
import math
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TextIO

_INTERVAL = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s)?\s*$")
CLEAR = "\x1b[H\x1b[2J"


def parse_interval(text: str) -> float:
    """``100ms``, ``0.5s`` or ``2`` (seconds) -> seconds; raises ValueError."""
    match = _INTERVAL.match(text)
    if not match:
        raise ValueError(f"bad interval {text!r} (examples: 100ms, 0.5s, 2)")
    value = float(match.group(1)) / (1000.0 if match.group(2) == "ms" else 1.0)
    if value <= 0:
        raise ValueError(f"the interval must be positive, got {text!r}")
    return value


def metrics_url(url: str) -> str:
    """The scrape URL: a bare ``http://host:port`` gets ``/metrics``."""
    parts = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"unsupported URL scheme in {url!r}")
    path = parts.path if parts.path not in ("", "/") else "/metrics"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


@dataclass
class RoleRow:
    role: str
    priority: float = 0.0
    queue_depth: float = 0.0
    p95_s: float | None = None
    requests: float = 0.0


@dataclass
class Scrape:
    roles: list[RoleRow] = field(default_factory=list)
    anomalies: float = 0.0


def histogram_quantile(q: float, buckets: dict[float, float]) -> float | None:
    """Quantile ``q`` (0..1) from cumulative ``{le: count}`` buckets; None when empty."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] <= 0:
        return None
    rank = q * buckets[bounds[-1]]
    prev_le, prev_count = 0.0, 0.0
    for le in bounds:
        count = buckets[le]
        if count >= rank:
            if math.isinf(le):
                return prev_le  # beyond the last finite bucket: its bound is all we know
            if count == prev_count:
                return le
            return prev_le + (le - prev_le) * (rank - prev_count) / (count - prev_count)
        prev_le, prev_count = le, count
    return prev_le


def parse(text: str) -> Scrape:
    """The per-role table from a Prometheus text exposition."""
    from prometheus_client.parser import text_string_to_metric_families

    order: dict[str, RoleRow] = {}
    buckets: defaultdict[str, defaultdict[float, float]] = defaultdict(lambda: defaultdict(float))
    anomalies = 0.0

    def row(role: str) -> RoleRow:
        return order.setdefault(role, RoleRow(role))

    for family in text_string_to_metric_families(text):
        for s in family.samples:
            role = s.labels.get("role")
            if family.name == "radioplay_role_priority" and role is not None:
                row(role).priority = s.value
            elif family.name == "radioplay_queue_depth" and role is not None:
                row(role).queue_depth = s.value
            elif family.name == "radioplay_request_latency_seconds" and role is not None and s.name.endswith("_bucket"):
                row(role)
                buckets[role][float(s.labels["le"])] += s.value
            elif family.name == "radioplay_requests" and role is not None and s.name.endswith("_total"):
                row(role).requests += s.value
            elif family.name == "radioplay_anomalies" and s.name.endswith("_total"):
                anomalies += s.value
    for role, b in buckets.items():
        order[role].p95_s = histogram_quantile(0.95, b)
    return Scrape(list(order.values()), anomalies)


def fetch(url: str, timeout: float, token: str | None = None) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(metrics_url(url), headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) only
        body: bytes = response.read()
    return body.decode("utf-8")


def format_table(scrape: Scrape, source: str) -> str:
    width = max([4] + [len(r.role) for r in scrape.roles])
    lines = [f"{'ROLE':<{width}}  {'PRIORITY':>10}  {'QUEUE':>6}  {'P95 MS':>9}  {'REQUESTS':>9}"]
    for r in scrape.roles:
        p95 = "-" if r.p95_s is None else f"{r.p95_s * 1000:.1f}"
        lines.append(f"{r.role:<{width}}  {r.priority:>10.3g}  {int(r.queue_depth):>6}  {p95:>9}  {int(r.requests):>9}")
    if not scrape.roles:
        lines.append("(no roles reported yet)")
    lines.append(f"anomalies: {int(scrape.anomalies)}    source: {source}    at {time.strftime('%H:%M:%S')}")
    return "\n".join(lines)


_ERRORS = (urllib.error.URLError, OSError, http.client.HTTPException, ValueError, UnicodeDecodeError)


def probe(url: str, interval_s: float, mode: str, token: str | None = None, out: TextIO | None = None) -> int:
    """``once``: one table, 0; 1 with a message when unreachable. ``live``: refresh every
    ``interval_s`` until Ctrl-C (in place on a terminal, successive tables otherwise)."""
    out = out if out is not None else sys.stdout
    source = metrics_url(url)
    timeout = max(1.0, min(5.0, interval_s))
    if mode == "once":
        try:
            print(format_table(parse(fetch(url, timeout, token)), source), file=out)
        except _ERRORS as exc:
            print(f"radioplay probe: cannot read {source}: {_reason(exc)}", file=sys.stderr)
            return 1
        return 0
    if mode != "live":
        raise ValueError(f"unknown mode {mode!r} (live or once)")
    tty = out.isatty()
    try:
        while True:
            try:
                text = format_table(parse(fetch(url, timeout, token)), source)
            except _ERRORS as exc:
                text = f"cannot read {source}: {_reason(exc)} (retrying every {interval_s:g} s)"
            print((CLEAR + text) if tty else text + "\n", file=out, flush=True)
            time.sleep(interval_s)
    except KeyboardInterrupt:
        return 0
    except BrokenPipeError:  # piped into head or less that quit: a normal way to stop
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the exit flush quiet
        return 0


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return str(exc.reason)
    return str(exc) or type(exc).__name__
