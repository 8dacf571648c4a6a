"""Start-up and graceful shutdown of ``radioplay serve``.

:func:`run` blocks the calling thread (the CLI's main thread becomes the
event loop thread and SIGINT/SIGTERM stop it); :func:`start_in_thread`
runs the same loop on a thread named ``radioplay-serve-loop`` and returns
a handle, for tests and for embedding in the studio.

Each port's connections are admitted by a
:class:`~engine.serve.limits.ConnectionGuard` under a limit derived from
the descriptor limit; ``header_timeout`` bounds how long a connection may
take to send a request header (and how long it may idle between requests),
``body_timeout`` how long a body may take.

Shutdown order, so no client gets a torn response and nothing is half
written: stop listening; let requests in flight finish (the scheduler is
still running, so they can), for up to ``shutdown_timeout`` seconds, after
which still-queued requests are cancelled and answered 503; stop the
metrics port; close the scheduler (its threads finish running work and
exit); shut down the io executor. Renders are written with atomic renames,
so an interrupted one leaves no file at all.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ipaddress
import logging
import math
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from engine.metrics.hub import MetricsHub
from engine.project.fileformat import load_project
from engine.sched.policy import make_policy
from engine.sched.scheduler import Scheduler
from engine.serve.app import Service, make_app
from engine.serve.limits import Budget, ConnectionGuard, LogLimiter, connection_budget
from engine.serve.renders import RenderStore
from engine.serve.security import LOG_SECRETS, HostCheck, LinkSigner, TokenAuth, TokenBucketLimiter
from engine.synth.backends.synth_device import choose_device, parse_device
from engine.synth.errors import VoiceError

log = logging.getLogger("radioplay.serve")
GRACE_S = 10.0
MAX_LINK_TTL_S = 366 * 86400.0  # a year: beyond it the expiry no longer fits a signed link
MAX_CHARS = 100_000
REPORT_S = 10.0  # at most one summary log line per kind this often
ACTORS_READY_S = 60.0  # serve --ray: how long the start waits for the Ray actors to run


@dataclass
class ServeConfig:
    project: Path
    host: str = "127.0.0.1"
    port: int = 8080  # 0: pick a free port (reported by the handle)
    metrics_port: int = 9090
    policy: str = "role-priority"
    token_file: Path | None = None
    rate: float = 0.0  # requests per second per client address; 0 = no limit
    burst: int = 20
    queue: int = 512  # scheduler capacity (lines pending at once)
    max_chars: int = 1000
    secret_file: Path | None = None  # None: a random per-process link secret
    link_ttl: float = 3600.0
    render_quota_mb: float = 512.0  # total size of render files kept at once
    header_timeout: float = 10.0  # to send a complete request header; also the keep-alive idle time
    body_timeout: float = 30.0  # to send a request body
    max_connections: int = 0  # API connections held at once; 0: derived from the descriptor limit
    allow_hosts: tuple[str, ...] = ()  # Host names accepted besides the bound address (no token only)
    public_metrics: bool = False  # --public-metrics: /metrics without the token (loopback only)
    submit_timeout: float = 0.25  # how long a request may wait for queue room before 503
    shutdown_timeout: float = 30.0
    io_threads: int = 16
    ray: str | None = None  # --ray auto|ADDRESS: this process routes, Ray actors synthesize (engine/farm)
    device: str = "auto"  # --device auto|cpu|cuda[:N]: where synthesis runs (engine/synth/backends/synth_device.py)

    def check(self) -> Budget | None:
        """Raise ValueError naming the first option that cannot work; the descriptor
        budget the connection limits come from. Runs before anything is loaded or written."""
        def positive(value: float, option: str, most: float, most_text: str = "") -> None:
            if not (math.isfinite(value) and 0 < value <= most):  # also false for nan
                raise ValueError(f"{option} must be a positive number, at most {most_text or f'{most:g}'}; "
                                 f"got {value:g}")

        if not (math.isfinite(self.rate) and self.rate >= 0):
            raise ValueError(f"--rate must be 0 (no limit) or a finite number of requests per second; "
                             f"got {self.rate:g}")
        if self.rate > 0 and self.burst < 1:
            raise ValueError(f"--burst must be at least 1 when --rate is on, got {self.burst}")
        positive(self.link_ttl, "--link-ttl", MAX_LINK_TTL_S, f"{MAX_LINK_TTL_S:.0f} s (366 days)")
        positive(self.render_quota_mb, "--render-quota-mb", 1e9)
        positive(self.header_timeout, "--header-timeout", 3600)
        positive(self.body_timeout, "--body-timeout", 3600)
        for value, option in ((self.submit_timeout, "the submit timeout"), (self.shutdown_timeout, "the shutdown timeout")):
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{option} must be a finite number of seconds, got {value:g}")
        if self.queue < 1 or self.io_threads < 1:
            raise ValueError("--queue and the io thread count must be at least 1")
        if not 1 <= self.max_chars <= MAX_CHARS:
            raise ValueError(f"--max-chars must be between 1 and {MAX_CHARS}, got {self.max_chars}")
        if self.public_metrics and not _is_loopback(self.host):
            raise ValueError(f"--public-metrics serves metrics without the token, so only on a loopback address; "
                             f"--host is {self.host}")
        if not (0 <= self.port <= 65535 and 0 <= self.metrics_port <= 65535):
            raise ValueError("--port and --metrics-port must be between 0 and 65535")
        parse_device(self.device)
        budget = connection_budget()
        if self.max_connections < 0:
            raise ValueError(f"--max-connections must be at least 1 (0: automatic), got {self.max_connections}")
        if budget is not None and budget.default_api < 8:
            raise ValueError(f"the descriptor limit (ulimit -n = {budget.nofile}) leaves room for "
                             f"{max(0, budget.api)} connections; raise it")
        if budget is not None and self.max_connections > budget.api:
            raise ValueError(f"--max-connections {self.max_connections} does not fit under the descriptor limit "
                             f"(ulimit -n = {budget.nofile}); at most {budget.api}, or raise the limit")
        return budget


def renders_dir_for(project_path: Path) -> Path:
    """``<project>.radioplay-renders`` beside the project file."""
    return project_path.with_name(project_path.stem + ".radioplay-renders")


def build_service(config: ServeConfig) -> Service:
    """Load the project and build the engine objects (raises ValueError or
    ProjectFileError with a message for the user)."""
    from engine.synth.synthesizer import make_synthesizer

    config.check()
    device = choose_device(config.device)  # DeviceUnavailable (a ValueError): one line, before anything is loaded
    cluster = None
    if config.ray:  # reach the cluster before anything is loaded (ClusterError: one line)
        from engine.farm.cluster import ClusterError, connect

        try:
            cluster = connect(config.ray)
        except ClusterError as exc:  # for the user, like this function's other errors
            raise ValueError(str(exc)) from None
    policy = make_policy(config.policy)
    auth = TokenAuth.from_file(config.token_file) if config.token_file is not None else None
    signer = LinkSigner.from_file(config.secret_file, config.link_ttl)
    LOG_SECRETS.keep_out(*(secret for secret in (auth.secret if auth else None, signer.secret_text) if secret))
    limiter = TokenBucketLimiter(config.rate, config.burst)
    project_path = Path(config.project)
    project = load_project(project_path)
    synth = make_synthesizer(project_path, project.sample_rate, device=device)
    for backend, voice in sorted({(r.voice.backend, r.voice.voice) for r in project.cast}):
        try:  # load each voice now: the first request should not pay for it
            synth.warm(synth.library.resolve(voice, backend))
        except VoiceError as exc:
            log.warning("voice %s cannot be loaded; its roles will answer 500: %s", voice, exc)
    renders = RenderStore(renders_dir_for(project_path), config.link_ttl, int(config.render_quota_mb * 1e6))
    renders.scan(links_survive_restart=config.secret_file is not None)
    hub = MetricsHub()
    for role in project.cast:  # every role appears in /metrics, even before its first request
        hub.set_role_priority(role.name, 0.0)
        hub.set_queue_depth(role.name, 0)
    on_close: list[Callable[[], None]] = []
    if cluster is not None:
        # A router in front of Ray actors: this scheduler keeps every request's
        # priority and the one clip cache; its ring sends a role's lines to one
        # actor, and its metrics hub records every actor's work (one /metrics).
        from engine.farm.farm import RayFarm

        farm = RayFarm(cluster, synth, policy, capacity=config.queue, metrics=hub)
        if not farm.wait_ready(ACTORS_READY_S):
            log.warning("some Ray actors are still waiting for a free CPU; the others serve their roles")
        scheduler = farm.scheduler
        on_close += [farm.close, cluster.close]
    else:
        scheduler = Scheduler(synth, policy, capacity=config.queue, metrics=hub)
    executor = concurrent.futures.ThreadPoolExecutor(config.io_threads, thread_name_prefix="radioplay-serve-io")
    hosts = HostCheck(config.host, config.allow_hosts) if auth is None else None
    # Metrics list role names and statistics: the token guards them too, unless
    # they are made public on loopback, where the Host check keeps web pages out.
    metrics_hosts = HostCheck(config.host, config.allow_hosts) if auth is None or config.public_metrics else None
    return Service(project=project, synth=synth, scheduler=scheduler, hub=hub, executor=executor,
                   renders=renders, signer=signer, limiter=limiter, auth=auth, hosts=hosts,
                   metrics_auth=None if config.public_metrics else auth, metrics_hosts=metrics_hosts,
                   max_chars=config.max_chars, submit_timeout=config.submit_timeout,
                   drain_timeout=config.shutdown_timeout, body_timeout=config.body_timeout, on_close=on_close)


async def serve(config: ServeConfig, service: Service, stop: asyncio.Event,
                ready: Callable[[int, int], None]) -> None:
    """Serve until ``stop`` is set, then shut down in order (module docstring)."""
    budget = connection_budget()
    limit = config.max_connections or (budget.default_api if budget else 1024)
    api_guard = ConnectionGuard(limit, "API port")
    metrics_guard = ConnectionGuard(budget.metrics if budget else 64, "metrics port")
    backlog = budget.backlog if budget else 128
    app, metrics_app = make_app(service, api_guard, metrics_guard)
    # A GET /tts URL carries up to max_chars of percent-encoded UTF-8 (up to 12 bytes a character).
    line = max(8190, config.max_chars * 12 + 1024)
    # keepalive_timeout: aiohttp closes a connection that has not sent a complete request header
    # this long after it opened or after its last response (aiohttp has no separate header timeout).
    # lingering_time: how long an unread body is drained after an early answer (413, 408).
    options = {"keepalive_timeout": config.header_timeout, "lingering_time": min(10.0, config.body_timeout),
               "access_log": None}
    # aiohttp's own wait comes after Service.drain (on_shutdown) has waited shutdown_timeout and
    # cancelled what was still queued: a short grace for those handlers to send their 503.
    runner = web.AppRunner(app, shutdown_timeout=GRACE_S)
    metrics_runner = web.AppRunner(metrics_app, shutdown_timeout=5.0)
    logs = LogLimiter(REPORT_S)
    undo_logs = logs.install()
    listening: list[asyncio.Server] = []
    housekeeping = asyncio.create_task(_report(logs, (api_guard, metrics_guard)))
    try:
        await runner.setup()
        await metrics_runner.setup()
        for run_, guard, port, more in ((runner, api_guard, config.port, {"max_line_size": line}),
                                        (metrics_runner, metrics_guard, config.metrics_port, {})):
            assert run_.server is not None
            guard.attach(run_.server, **options, **more)  # the guard makes the connections, with these
            listening.append(await asyncio.get_running_loop().create_server(
                guard, config.host, port, backlog=backlog))
        ready(*(int(server.sockets[0].getsockname()[1]) for server in listening))
        await stop.wait()
    finally:
        for server in listening:
            server.close()  # stop listening; the runners drain and close the connections
        await runner.cleanup()
        await metrics_runner.cleanup()
        for server in listening:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), 5.0)
        housekeeping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await housekeeping
        undo_logs()
        await asyncio.get_running_loop().run_in_executor(None, close_service, service)


async def _report(logs: LogLimiter, guards: tuple[ConnectionGuard, ...]) -> None:
    """Every REPORT_S: one line per kind of suppressed log record and per guard that was at its limit."""
    while True:
        await asyncio.sleep(REPORT_S)
        logs.flush()
        for guard in guards:
            guard.report()


def close_service(service: Service) -> None:
    service.scheduler.close()
    service.executor.shutdown(wait=True)
    for close in service.on_close:  # the Ray actors, then the cluster connection
        close()


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def run(config: ServeConfig) -> int:
    """Serve on the calling thread until SIGINT or SIGTERM; 0 on a clean stop."""
    service = build_service(config)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)

        def ready(port: int, metrics_port: int) -> None:
            roles = ", ".join(service.project.role_names())
            print(f"Serving {config.project} ({roles}) on http://{config.host}:{port}/tts", flush=True)
            print(f"Metrics on http://{config.host}:{metrics_port}/metrics; Ctrl-C stops", flush=True)
            if (device := service.synth.device) is not None:
                print(f"Synthesis on {device.name} ({device.reason})", flush=True)
            if not _is_loopback(config.host) and service.auth is None:
                print("warning: listening beyond loopback without --token-file: anyone who can reach "
                      "this port can use it", file=sys.stderr, flush=True)

        await serve(config, service, stop, ready)

    asyncio.run(main())  # serve() closes the service on every way out
    print("radioplay serve: stopped", flush=True)
    return 0


class ServerHandle:
    """A server running on its own event loop thread (``radioplay-serve-loop``)."""

    def __init__(self, config: ServeConfig, service: Service) -> None:
        self.config = config
        self.service = service
        self.port = 0
        self.metrics_port = 0
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        self._started: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.thread = threading.Thread(target=self._main, name="radioplay-serve-loop", daemon=True)

    @property
    def scheduler(self) -> Scheduler:
        return self.service.scheduler

    @property
    def url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    @property
    def metrics_url(self) -> str:
        return f"http://{self.config.host}:{self.metrics_port}"

    def _ready(self, port: int, metrics_port: int) -> None:
        self.port, self.metrics_port = port, metrics_port
        self._started.set_result(None)

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(serve(self.config, self.service, self._stop, self._ready))
        except BaseException as exc:  # start-up failure (port taken): reported by start()
            if not self._started.done():
                self._started.set_exception(exc)
            else:
                log.exception("radioplay serve loop failed")
        finally:
            self._loop.close()

    def start(self, timeout: float = 60.0) -> ServerHandle:
        self.thread.start()
        self._started.result(timeout)
        return self

    def stop(self, timeout: float = 60.0) -> None:
        """Graceful stop (see the module docstring); returns once the loop thread ended."""
        if self.thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self.thread.join(timeout)


def start_in_thread(config: ServeConfig) -> ServerHandle:
    """Build the service and serve it on a new thread; ports are bound when this returns."""
    return ServerHandle(config, build_service(config)).start()
