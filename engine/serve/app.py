"""The HTTP API: ``/tts``, ``/roles`` and ``/renders`` on one port, ``/metrics`` on another.

Why aiohttp: a mature asyncio HTTP server and client in one package, run
in-process (no separate ASGI server), so ``radioplay serve``, its tests and
``radioplay probe``'s tests share one dependency and one event loop model.

Threads:

- the event loop thread runs every handler and the middleware; it never
  waits on synthesis or disk;
- ``radioplay-serve-io-N`` (:attr:`Service.executor`): planning a line (text
  frontend, voice lookup), ``Scheduler.submit`` (which blocks while the
  bounded queue is full, up to ``submit_timeout``), WAV encoding and the
  atomic writes of renders;
- the scheduler's own threads (``radioplay-sched``, ``radioplay-infer-N``,
  ``radioplay-post``) synthesize; their futures are awaited on the loop with
  ``asyncio.wrap_future``.

Every error is JSON, ``{"error": ..., "field": ...}``, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import struct
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from aiohttp import web
from aiohttp.typedefs import Handler

from engine.fsutil import atomic_write_bytes
from engine.metrics.hub import MetricsHub
from engine.project.model import Project, Role
from engine.sched.request import LineRequest, Origin, QueueFull, request_for
from engine.sched.scheduler import Scheduler
from engine.serve.limits import ConnectionGuard
from engine.serve.params import ApiError, LineSpec, json_body, parse_line, query
from engine.serve.renders import RENDER_NAME, QuotaFull, RenderStore
from engine.serve.security import HostCheck, LinkSigner, TokenAuth, TokenBucketLimiter
from engine.synth.errors import TextError, VoiceError
from engine.synth.synthesizer import ClipSynthesizer

log = logging.getLogger("radioplay.serve")
METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass
class Service:
    """Everything the handlers share; built by :func:`engine.serve.server.build_service`."""

    project: Project
    synth: ClipSynthesizer
    scheduler: Scheduler
    hub: MetricsHub
    executor: ThreadPoolExecutor
    renders: RenderStore
    signer: LinkSigner
    limiter: TokenBucketLimiter
    auth: TokenAuth | None = None
    hosts: HostCheck | None = None  # None: any Host (a bearer token guards the service instead)
    metrics_auth: TokenAuth | None = None  # the token /metrics asks for (None: --public-metrics or no token)
    metrics_hosts: HostCheck | None = None  # the Host check of the metrics port (None: the token guards it)
    max_chars: int = 1000
    submit_timeout: float = 0.25
    drain_timeout: float = 30.0
    body_timeout: float = 30.0
    on_close: list[Callable[[], None]] = field(default_factory=list)  # after the scheduler (Ray farm)
    statuses: Counter[int] = field(default_factory=Counter)
    draining: bool = field(default=False, init=False)
    in_flight: int = field(default=0, init=False)  # requests inside a handler (event loop thread only)
    _idle: asyncio.Event = field(default_factory=asyncio.Event, init=False)
    _waiting: set[LineRequest] = field(default_factory=set, init=False)  # submitted, not yet answered
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        self._idle.set()
        exact = {r.name: r for r in self.project.cast}
        folded: dict[str, Role] = {}
        for role in self.project.cast:
            folded.setdefault(role.name.casefold(), role)
        self._roles, self._folded = exact, folded

    @property
    def renders_dir(self) -> Path:
        return self.renders.folder

    def find_role(self, name: str) -> Role:
        role = self._roles.get(name) or self._folded.get(name.casefold())
        if role is None:
            raise ApiError(404, f"unknown role {name!r} (GET /roles lists the cast)", "role")
        return role

    # --- synthesis (the io executor and the scheduler threads do the work) ----------

    def _submit(self, spec: LineSpec) -> tuple[Future[np.ndarray], LineRequest, bool]:
        """On an io thread: plan, look in the cache, queue. The returned future
        holds a private copy of the clip: cached clips are views into the
        cache's arena, which a later clip may reuse once this one is evicted."""
        request = request_for(self.synth, spec.text, spec.role.name, spec.params, lexicon=self.project.lexicon_for(spec.role.name),
                              origin=Origin.SERVICE, weight=spec.role.priority)
        hit = request.key in self.synth.cache
        out: Future[np.ndarray] = Future()

        def relay(done: Future[np.ndarray]) -> None:  # on whichever thread resolved it
            if done.cancelled():
                out.cancel()
            elif (exc := done.exception()) is not None:
                out.set_exception(exc)
            else:
                out.set_result(np.array(done.result(), dtype=np.float32, copy=True))

        with self._lock:
            self._waiting.add(request)
        try:
            self.scheduler.submit(request, timeout=self.submit_timeout).add_done_callback(relay)
        except BaseException:
            with self._lock:
                self._waiting.discard(request)
            raise
        return out, request, hit

    async def synthesize(self, spec: LineSpec) -> tuple[bytes, bool]:
        """The line as WAV bytes, and whether it came from the clip cache."""
        loop = asyncio.get_running_loop()
        try:
            future, request, hit = await loop.run_in_executor(self.executor, self._submit, spec)
        except TextError as exc:
            raise ApiError(400, f"text cannot be spoken: {exc}", "text") from exc
        except VoiceError as exc:
            log.error("role %s: %s", spec.role.name, exc)
            raise ApiError(500, f"the voice of role {spec.role.name!r} cannot be used (see the server log)",
                           "role") from exc
        except QueueFull as exc:
            raise ApiError(503, "the synthesis queue is full; try again shortly", None, {"Retry-After": "1"}) from exc
        try:
            clip = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if future.cancelled() and not (task is not None and task.cancelling()):
                raise ApiError(503, "the service is shutting down", None, {"Retry-After": "1"}) from None
            request.future.cancel()  # this handler is being cancelled: do not synthesize for nobody
            raise
        finally:
            with self._lock:
                self._waiting.discard(request)
        data = await loop.run_in_executor(self.executor, wav_bytes, clip, self.synth.sample_rate,
                                          spec.role.gain_db)
        return data, hit

    async def drain(self, app: web.Application | None = None) -> None:
        """``on_shutdown``: new requests get 503; wait for the ones in flight; when
        the drain timeout passes, cancel what still waits in the queue so those
        callers get a clean 503 rather than a cut connection."""
        self.draining = True
        try:
            await asyncio.wait_for(self._idle.wait(), self.drain_timeout)
        except TimeoutError:
            with self._lock:
                doomed = list(self._waiting)
            log.warning("shutdown: %d request(s) still queued after %g s; cancelling", len(doomed),
                        self.drain_timeout)
            for request in doomed:
                request.future.cancel()

    def enter(self) -> None:
        self.in_flight += 1
        self._idle.clear()

    def leave(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            self._idle.set()


def wav_bytes(clip: np.ndarray, rate: int, gain_db: float = 0.0) -> bytes:
    """16-bit PCM mono WAV of a float clip, with the role's gain, clipped to full scale."""
    audio = np.clip(np.asarray(clip, dtype=np.float32) * np.float32(10.0 ** (gain_db / 20.0)), -1.0, 1.0)
    pcm: bytes = np.round(audio * 32767.0).astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16, 1, 1, rate,
                         rate * 2, 2, 16, b"data", len(pcm))
    return header + pcm


def _error(status: int, message: str, field: str | None = None,
           headers: Mapping[str, str] | None = None) -> web.Response:
    response = web.json_response({"error": message, "field": field}, status=status, headers=headers)
    if headers is not None and headers.get("Connection") == "close":
        response.force_close()  # the header alone does not stop aiohttp reading another request
    return response


def make_app(service: Service, api_guard: ConnectionGuard,
             metrics_guard: ConnectionGuard) -> tuple[web.Application, web.Application]:
    """The API application and the metrics application (served on its own port)."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await _guarded(service, request, handler)
        service.statuses[response.status] += 1
        return response

    @web.middleware
    async def metrics_guard_hosts(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            _check_host(service.metrics_hosts, request)
            _check_token(service.metrics_auth, request)
        except ApiError as exc:
            return _error(exc.status, exc.message, exc.field, exc.headers)
        return await handler(request)

    def line(data: Mapping[str, object], from_query: bool = False) -> LineSpec:
        return parse_line(data, service.max_chars, service.find_role, from_query, service.project.timing)

    async def tts(request: web.Request) -> web.StreamResponse:
        if request.method == "GET":
            spec = line(query(request), from_query=True)
        else:
            spec = line(await json_body(request, service.body_timeout))
        wav, hit = await service.synthesize(spec)
        return web.Response(body=wav, content_type="audio/wav",
                            headers={"X-Radioplay-Cache": "hit" if hit else "miss", "X-Radioplay-Role": spec.role.name})

    async def roles(request: web.Request) -> web.StreamResponse:
        return web.json_response({"roles": [_role_json(r) for r in service.project.cast]})

    async def create_render(request: web.Request) -> web.StreamResponse:
        spec = line(await json_body(request, service.body_timeout))
        store, loop = service.renders, asyncio.get_running_loop()
        await make_room(1, reserve=False)  # full already: refuse before synthesizing
        wav, _ = await service.synthesize(spec)
        await make_room(len(wav), reserve=True)
        render_id = secrets.token_hex(16)
        path = store.folder / f"{render_id}.wav"
        url, exp = service.signer.link(path.name)  # first: a file is never written without its link
        try:
            await loop.run_in_executor(service.executor, atomic_write_bytes, path, wav)
        except BaseException:
            store.release(len(wav))
            raise
        store.add(path.name, len(wav), exp)
        return web.json_response({"id": render_id, "url": url, "expires": exp}, status=201)

    async def make_room(size: int, reserve: bool) -> None:
        """Room for ``size`` bytes of render, removing expired ones first if needed, or 507."""
        store = service.renders
        for attempt in range(2):
            try:
                if reserve:
                    store.reserve(size)
                else:
                    store.check(size)
                return
            except QuotaFull as exc:
                if attempt:
                    raise ApiError(507, str(exc), None, {"Retry-After": str(exc.retry_after)}) from None
            await asyncio.get_running_loop().run_in_executor(service.executor, store.sweep)

    async def sweeper(app: web.Application) -> AsyncIterator[None]:
        """Removes renders whose links have expired, for as long as the app runs."""

        async def sweep() -> None:
            while True:
                await asyncio.sleep(service.renders.sweep_interval())
                try:
                    await asyncio.get_running_loop().run_in_executor(service.executor, service.renders.sweep)
                except RuntimeError:  # the executor is shut down: the service is stopping
                    return

        task = asyncio.create_task(sweep())
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def get_render(request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if not RENDER_NAME.match(name):
            raise ApiError(404, "no such render", "id")
        if not service.signer.verify(name, request.query.get("exp"), request.query.get("sig")):
            raise ApiError(403, "the link is invalid or has expired", "sig")
        path = service.renders_dir / name
        if not path.is_file():
            raise ApiError(404, "no such render", "id")
        return web.FileResponse(path, headers={"Content-Type": "audio/wav"})

    async def metrics(request: web.Request) -> web.StreamResponse:
        statuses = dict(service.statuses)  # copied here: only the event loop thread writes it
        body = await asyncio.get_running_loop().run_in_executor(service.executor, _exposition, service.hub, statuses)
        return web.Response(body=body, headers={"Content-Type": METRICS_TYPE})

    app = web.Application(middlewares=[api_guard.middleware, guard],
                          client_max_size=max(64 << 10, service.max_chars * 8 + 4096))
    app.router.add_get("/tts", tts)
    app.router.add_post("/tts", tts)
    app.router.add_get("/roles", roles)
    app.router.add_post("/renders", create_render)
    app.router.add_get("/renders/{name}", get_render)
    app.on_shutdown.append(service.drain)
    app.cleanup_ctx.append(sweeper)
    metrics_app = web.Application(middlewares=[metrics_guard.middleware, metrics_guard_hosts])
    metrics_app.router.add_get("/metrics", metrics)
    return app, metrics_app


async def _guarded(service: Service, request: web.Request, handler: Handler) -> web.StreamResponse:
    """Rate limit, auth, draining, and every error as JSON (tracebacks go to the log only)."""
    try:
        if service.draining:
            raise ApiError(503, "the service is shutting down", None, {"Retry-After": "1", "Connection": "close"})
        wait = service.limiter.acquire(request.remote or "unknown")
        if wait:
            raise ApiError(429, "too many requests", None, {"Retry-After": str(wait)})
        _check_host(service.hosts, request)
        signed = request.method == "GET" and request.path.startswith("/renders/")
        if not signed:
            _check_token(service.auth, request)
        service.enter()
        try:
            return await handler(request)
        finally:
            service.leave()
    except ApiError as exc:
        return _error(exc.status, exc.message, exc.field, exc.headers)
    except web.HTTPException as exc:  # routing: unknown path, wrong method
        headers = {k: v for k, v in exc.headers.items() if k.lower() == "allow"}
        return _error(exc.status, exc.reason.lower(), None, headers)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unexpected error serving %s %s", request.method, request.path)
        return _error(500, "internal server error")


def _check_host(hosts: HostCheck | None, request: web.Request) -> None:
    """Without a token, refuse a ``Host`` that is not this service (DNS rebinding; see HostCheck)."""
    if hosts is None:
        return
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    port = int(sockname[1]) if sockname else -1
    problem = hosts.check(request.headers.get("Host"), port)
    if problem is not None:
        raise ApiError(403, problem, "Host")


def _check_token(auth: TokenAuth | None, request: web.Request) -> None:
    """401 unless the request carries the bearer token (no check without one)."""
    if auth is None:
        return
    problem = auth.check(request.headers.get("Authorization"))
    if problem is not None:
        code = "invalid_request" if problem.startswith("missing") else "invalid_token"
        raise ApiError(401, problem, None, {"WWW-Authenticate": f'Bearer realm="radioplay", error="{code}"'})


def _role_json(role: Role) -> dict[str, object]:
    v = role.voice
    voice: dict[str, object] = {"voice": v.voice, "speaker": v.speaker, "speed": v.speed, "pitch": v.pitch,
                                "variation": v.variation}
    if not v.design.is_neutral:  # the fields that differ from neutral, as the project file stores them
        voice["design"] = v.design.to_dict()
    return {"name": role.name, "weight": role.priority, "gain_db": role.gain_db, "voice": voice}


class _StatusCollector:
    def __init__(self, statuses: dict[int, int]) -> None:
        self.statuses = statuses

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily

        family = CounterMetricFamily("radioplay_http_responses", "HTTP responses by status code.", labels=["code"])
        for code, n in sorted(self.statuses.items()):
            family.add_metric([str(code)], n)
        yield family


def _exposition(hub: MetricsHub, statuses: dict[int, int]) -> bytes:
    """The hub's metrics plus HTTP status counts (on an io thread: the hub takes its lock)."""
    from prometheus_client import CollectorRegistry, generate_latest

    from engine.metrics.prometheus import exposition

    registry = CollectorRegistry()
    registry.register(_StatusCollector(statuses))
    return exposition(hub) + generate_latest(registry)
