"""How many connections the service holds, and how much it logs when pushed.

aiohttp has knobs for idle and header time (``keepalive_timeout``: aiohttp
arms it when a connection opens and re-arms it after each response, and
closes a connection still waiting for a complete request header when it
fires, so it bounds slow headers too) but none for the number of
connections. Without one, a client that opens connections and sends nothing
runs the process out of file descriptors, and then asyncio's accept loop logs
a traceback for every failed ``accept()`` (about two million lines in a
minute) while nobody is served.

- :func:`connection_budget`: how many connections fit under the process's
  descriptor limit, leaving room for the files the service itself opens and
  for connections accepted but not yet admitted.
- :class:`ConnectionGuard`: the protocol factory of a listening socket. At
  its limit it closes the oldest connection that has no request in a handler
  (one idle or still sending its header: the cheapest for a client to
  redo, and what a connection-holding client owns), so holding connections
  cannot lock well-behaved clients out; when every connection is busy the
  new one gets an immediate 503 and is closed.
- :class:`LogLimiter`: at most ``burst`` records of one kind per
  ``interval``; the rest are counted and reported in one summary line.

All of this runs on the event loop thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler
from aiohttp.web_protocol import RequestHandler

from engine.terminal_text import echo

log = logging.getLogger("radioplay.serve")

MAX_DEFAULT_CONNECTIONS = 4096  # beyond this each connection's buffers cost more than they serve


@dataclass(frozen=True)
class Budget:
    """What the descriptor limit leaves for connections (see :func:`connection_budget`)."""

    api: int  # the most API connections that fit
    metrics: int  # the metrics port's share
    backlog: int  # listen() backlog: accepted before admitted, at most this many per port
    nofile: int  # the soft descriptor limit it was computed from

    @property
    def default_api(self) -> int:
        return min(MAX_DEFAULT_CONNECTIONS, self.api)


def connection_budget() -> Budget | None:
    """Connections that fit under ``RLIMIT_NOFILE`` (None where there is no such limit).

    asyncio accepts up to ``backlog`` sockets per wake-up before the guard
    sees them, so two backlogs (API and metrics ports) are kept free, plus a
    sixteenth of what is left for the cache, voices, renders and logs.
    """
    try:
        import resource
    except ImportError:  # Windows: no descriptor limit to stay under
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    try:
        used = len(os.listdir("/proc/self/fd"))
    except OSError:  # not Linux: assume a modest start-up use
        used = 64
    free = soft - used
    backlog = max(8, min(128, free // 8))
    metrics = max(4, min(64, free // 32))
    reserve = 2 * backlog + max(32, free // 16)
    return Budget(api=free - reserve - metrics, metrics=metrics, backlog=backlog, nofile=int(soft))


def _refusal_bytes() -> bytes:
    body = json.dumps({"error": "too many connections; try again shortly", "field": None}).encode()
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
            f"Retry-After: 1\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("ascii") + body


REFUSAL = _refusal_bytes()


class _Connection(RequestHandler):
    """aiohttp's connection handler, admitted by a guard once it is connected."""

    def __init__(self, guard: ConnectionGuard, server: web.Server, **options: Any) -> None:
        super().__init__(server, loop=asyncio.get_running_loop(), **options)
        self.guard = guard

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.guard.admit(self, transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        self.guard.lost(self)
        super().connection_lost(exc)

    def handle_error(self, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """aiohttp's answer to a request it could not parse quotes the offending line back
        (a NUL in an ``Authorization`` header: the token, in the body); the service's says
        what was wrong in a few words and never quotes the request."""
        response = super().handle_error(request, status, exc, message)
        if status == 500:  # aiohttp's own text: no request quoted
            return response
        body = json.dumps({"error": f"malformed request: {parse_problem(exc, message)}", "field": None})
        refusal = web.Response(status=status, text=body, content_type="application/json")
        refusal.force_close()
        return refusal


def parse_problem(exc: BaseException | None, message: str | None) -> str:
    """What aiohttp's parser found wrong, without the bytes it quotes: the first line of
    its message up to any quotation, escaped and capped (engine/terminal_text.py)."""
    text = str(getattr(exc, "message", None) or message or exc or "")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    for mark in ("b'", 'b"', "'", '"'):
        first = first.split(mark, 1)[0]
    return echo(first.strip().rstrip(":").strip(), 80).lower() or "bad request"


class ConnectionGuard:
    """Protocol factory for one listening socket, admitting at most ``limit`` connections."""

    def __init__(self, limit: int, what: str) -> None:
        if limit < 1:
            raise ValueError("the connection limit must be at least 1")
        self.limit = limit
        self.what = what
        self.refused = 0  # new connections answered 503 (every slot busy)
        self.evicted = 0  # idle connections closed to make room
        self._server: web.Server | None = None
        self._options: dict[str, Any] = {}
        self._busy: dict[RequestHandler, int] = {}  # connection -> requests inside a handler
        self._open: dict[RequestHandler, None] = {}  # admitted and not yet closed, oldest first
        self._reported = (0, 0)

    def attach(self, server: web.Server, **options: Any) -> None:
        """Serve with ``server`` (an AppRunner's); ``options`` go to aiohttp's RequestHandler (timeouts, sizes)."""
        self._server, self._options = server, options

    def __call__(self) -> asyncio.BaseProtocol:
        """The protocol factory for ``loop.create_server``."""
        assert self._server is not None, "attach() the runner's server first"
        return _Connection(self, self._server, **self._options)

    def admit(self, connection: RequestHandler, transport: asyncio.BaseTransport) -> None:
        """Just connected: make room, or refuse it with a 503.

        Admission waits for the connection to be made, not for the factory: asyncio
        creates every protocol of an accept batch before connecting any of them."""
        self._open[connection] = None
        while len(self._open) > self.limit:
            victim = next((c for c in self._open if c not in self._busy and c is not connection), None)
            if victim is None:
                self.refused += 1
                del self._open[connection]
                assert isinstance(transport, asyncio.WriteTransport)
                transport.write(REFUSAL)
                connection.force_close()
                return
            self.evicted += 1
            del self._open[victim]
            victim.force_close()

    def lost(self, connection: RequestHandler) -> None:
        self._open.pop(connection, None)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Marks the connection busy while a handler runs (it is then never evicted)."""
        connection = request.protocol
        self._busy[connection] = self._busy.get(connection, 0) + 1
        try:
            return await handler(request)
        finally:
            left = self._busy.pop(connection) - 1
            if left:
                self._busy[connection] = left

    def report(self) -> None:
        """One log line for what happened since the last report, if anything did."""
        refused, evicted = self.refused - self._reported[0], self.evicted - self._reported[1]
        if refused or evicted:
            log.warning("%s: at the limit of %d connections: closed %d idle and refused %d new", self.what,
                        self.limit, evicted, refused)
        self._reported = (self.refused, self.evicted)


class LogLimiter(logging.Filter):
    """Passes ``burst`` records of a kind (logger and message template) per ``interval``."""

    def __init__(self, interval_s: float = 10.0, burst: int = 5,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval_s, self.burst, self.clock = interval_s, burst, clock
        self._windows: dict[tuple[str, str], tuple[float, int]] = {}  # kind -> (window start, seen)
        self._suppressed: dict[tuple[str, str], int] = {}

    def allow(self, kind: tuple[str, str]) -> bool:
        now = self.clock()
        start, seen = self._windows.get(kind, (now, 0))
        if now - start >= self.interval_s:
            start, seen = now, 0
        self._windows[kind] = (start, seen + 1)
        if seen < self.burst:
            return True
        self._suppressed[kind] = self._suppressed.get(kind, 0) + 1
        return False

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "radioplay_summary", False):
            return True
        return self.allow((record.name, str(record.msg)))

    def loop_exception_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """For ``loop.set_exception_handler``: asyncio's own report, rate-limited."""
        if self.allow(("asyncio", str(context.get("message")))):
            loop.default_exception_handler(context)

    def flush(self) -> None:
        """Log one summary line per kind that had records suppressed."""
        suppressed, self._suppressed = self._suppressed, {}
        for (name, message), count in suppressed.items():
            log.warning("%s: %d more like %r suppressed (at most %d per %g s)", name, count, message[:200],
                        self.burst, self.interval_s, extra={"radioplay_summary": True})
        stale = self.clock() - 2 * self.interval_s
        self._windows = {k: v for k, v in self._windows.items() if v[0] >= stale}

    def install(self, loggers: tuple[str, ...] = ("aiohttp.server", "aiohttp.web", "radioplay.serve")) -> Callable[[], None]:
        """Filter those loggers and the running loop's exception reports; returns the undo."""
        loop = asyncio.get_running_loop()
        previous = loop.get_exception_handler()
        loop.set_exception_handler(self.loop_exception_handler)
        for name in loggers:
            logging.getLogger(name).addFilter(self)

        def undo() -> None:
            self.flush()
            loop.set_exception_handler(previous)
            for name in loggers:
                logging.getLogger(name).removeFilter(self)

        return undo
