"""Who may call the service, how often, and which render links are genuine.

All three are plain objects with no aiohttp in them, so they are tested
with a fake clock and no server. They are called on the event loop thread
(the aiohttp middleware and handlers); the limiter still takes a lock, so
an embedding that calls it from several threads stays correct.

- :class:`TokenAuth`: one shared bearer token from a file, compared in
  constant time (``hmac.compare_digest``) so response timing does not leak
  how much of a guess was right.
- :class:`TokenBucketLimiter`: per client address, ``rate`` requests a second
  with bursts of up to ``burst``. Memory is bounded: at most ``max_clients``
  buckets are kept, the least recently seen client is forgotten first (it
  comes back with a full bucket, which errs on the side of serving).
- :class:`LinkSigner`: ``HMAC-SHA256(secret, "<id>.wav:<exp>")`` over the file
  name and the expiry, so a link cannot be moved to another render or have
  its lifetime extended without the secret.
- :class:`LogRedactor` (one per process, ``LOG_SECRETS``): the token and the
  link secret never reach a log, nor does any ``Authorization`` value, even
  inside a traceback another library logs (aiohttp's parser quotes the raw
  header line of a request it refuses).
- :class:`HostCheck`: without a token, a web page in the user's browser could
  reach a loopback service by DNS rebinding (its own name, re-pointed at
  127.0.0.1). The browser still sends that name in ``Host``, so only the
  names and addresses the service is bound to (and loopback names when it is
  bound to loopback) are accepted, plus names the user allows.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import math
import re
import secrets
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.fsutil import read_regular_bytes

_SIG = re.compile(r"^[0-9a-f]{64}$")
_EXP = re.compile(r"^-?[0-9]{1,20}$")
_HOST = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[^\s:/@\[\]]+))(?::(?P<port>[0-9]{1,5}))?$")
WILDCARDS = ("", "0.0.0.0", "::")


MAX_SECRET_FILE_BYTES = 64 << 10


def read_secret_file(path: Path, what: str) -> str:
    """The file's content without surrounding whitespace; refuses an empty file
    (an empty token or secret would silently make auth or links meaningless),
    and anything but a small regular file (a FIFO would block the start)."""
    try:
        value = read_regular_bytes(Path(path), MAX_SECRET_FILE_BYTES).decode("utf-8").strip()
    except FileNotFoundError:
        raise ValueError(f"cannot read {what} file {path}: file not found") from None
    except OSError as exc:
        raise ValueError(f"cannot read {what} file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"cannot read {what} file {path}: not UTF-8 text") from None
    if not value:
        raise ValueError(f"{what} file {path} is empty")
    return value


class TokenAuth:
    """Checks ``Authorization: Bearer <token>`` against one configured token."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the bearer token must not be empty")
        self._token = token.encode("utf-8")
        self.secret = token

    @classmethod
    def from_file(cls, path: Path) -> TokenAuth:
        return cls(read_secret_file(path, "token"))

    def check(self, header: str | None) -> str | None:
        """None when the header carries the token, else why not (for the 401 body)."""
        if not header:
            return "missing bearer token"
        scheme, _, given = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return "missing bearer token"
        if not hmac.compare_digest(given.strip().encode("utf-8", "surrogateescape"), self._token):
            return "invalid bearer token"
        return None


class TokenBucketLimiter:
    """Per-key token buckets; ``rate <= 0`` turns limiting off."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic,
                 max_clients: int = 10_000) -> None:
        if rate > 0 and burst < 1:
            raise ValueError("the rate-limit burst must be at least 1")
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key -> (tokens, at)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def acquire(self, key: str) -> int:
        """Take one token for ``key``: 0 if allowed, else whole seconds to wait (>= 1)."""
        if not self.enabled:
            return 0
        with self._lock:
            now = self.clock()
            tokens, at = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + max(0.0, now - at) * self.rate)
            allowed = tokens >= 1.0
            if allowed:
                tokens -= 1.0
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        return 0 if allowed else max(1, math.ceil((1.0 - tokens) / self.rate))


class LinkSigner:
    """Signs and verifies ``/renders/<id>.wav?exp=<unix>&sig=<hex>`` links."""

    def __init__(self, secret: bytes | None = None, ttl_s: float = 3600.0,
                 clock: Callable[[], float] = time.time) -> None:
        self._secret = secret if secret else secrets.token_bytes(32)
        self.secret_text = secret.decode("utf-8", "replace") if secret else None  # a random one is never text
        self.ttl_s = ttl_s
        self.clock = clock

    @classmethod
    def from_file(cls, path: Path | None, ttl_s: float, clock: Callable[[], float] = time.time) -> LinkSigner:
        """A signer with the file's secret, or a random per-process one (links
        then die with the process, which is the safe default)."""
        secret = read_secret_file(path, "secret").encode("utf-8") if path is not None else None
        return cls(secret, ttl_s, clock)

    def signature(self, name: str, exp: int) -> str:
        return hmac.new(self._secret, f"{name}:{exp}".encode(), hashlib.sha256).hexdigest()

    def link(self, name: str) -> tuple[str, int]:
        """The signed URL path of the render file ``name`` and its expiry (unix s)."""
        exp = int(math.floor(self.clock() + self.ttl_s))
        return f"/renders/{name}?exp={exp}&sig={self.signature(name, exp)}", exp

    def verify(self, name: str, exp: str | None, sig: str | None) -> bool:
        """True only for an untampered signature whose expiry is still ahead."""
        if exp is None or sig is None or not _EXP.match(exp) or not _SIG.match(sig):
            return False
        expected = self.signature(name, int(exp))
        if not hmac.compare_digest(expected.encode(), sig.encode()):
            return False
        return int(exp) > self.clock()


_AUTH_VALUE = re.compile(r"(?i)(authorization\s*[:=]\s*)[^\r\n'\"]*")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s'\"\\]+")
REDACTED = "[redacted]"


class LogRedactor:
    """Takes secrets out of every log record as it is made (a record factory,
    so records of any library and their tracebacks are covered, whatever
    handler later writes them)."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._lock = threading.Lock()
        self._installed = False

    def keep_out(self, *values: str) -> None:
        """Never log these values (kept for the life of the process)."""
        with self._lock:
            self._secrets.update(v for v in values if len(v) >= 4)
            if not self._installed:
                previous = logging.getLogRecordFactory()

                def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
                    return self.clean(previous(*args, **kwargs))

                logging.setLogRecordFactory(make)
                self._installed = True

    def redact(self, text: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        return _BEARER.sub(lambda m: m.group(1) + REDACTED, _AUTH_VALUE.sub(lambda m: m.group(1) + REDACTED, text))

    def clean(self, record: logging.LogRecord) -> logging.LogRecord:
        """The record with secrets replaced; untouched (template and arguments kept,
        which the log limiter groups by) when it holds none."""
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: logging reports it later, as it would
            return record
        redacted = self.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_info[0] is not None:
            text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            clean_text = self.redact(text)
            if clean_text != text:
                record.exc_text = clean_text
                record.exc_info = None  # the text is the report: a handler must not format it again in clear
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return record


LOG_SECRETS = LogRedactor()


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class HostCheck:
    """Which ``Host`` headers a service bound to ``bound_host`` accepts.

    Accepted: ``localhost``; the bound name or address; any loopback address
    when bound to loopback; any IP address when bound to every interface
    (an address cannot be rebound, only a name can); names in ``allowed``.
    A port in the header must be the port the request came in on. A request
    without ``Host`` (HTTP/1.0) passes: browsers always send one.
    """

    def __init__(self, bound_host: str, allowed: tuple[str, ...] = ()) -> None:
        bound = bound_host.strip().lower().strip("[]")
        self.names = {"localhost", bound, *(_normal(name) for name in allowed)}
        bound_ip = _ip(bound)
        self.any_ip = bound in WILDCARDS
        self.loopback = bound == "localhost" or (bound_ip is not None and bound_ip.is_loopback)

    def check(self, header: str | None, port: int) -> str | None:
        """None when ``header`` is acceptable for a request on ``port``, else why not."""
        if header is None:
            return None
        match = _HOST.match(header.strip())
        if match is None:
            return f"Host {header[:100]!r} is not a host name"
        if match.group("port") is not None and int(match.group("port")) != port:
            return f"Host {header[:100]!r} names another port than this service's {port}"
        host = _normal(match.group("v6") or match.group("name"))
        ip = _ip(host)
        if host in self.names or (ip is not None and (self.any_ip or (self.loopback and ip.is_loopback))):
            return None
        return f"Host {host[:100]!r} is not this service's address (start it with --allow-host {host[:100]} to accept it)"


def _normal(host: str) -> str:
    """Lower case, no brackets, no trailing dot (``LOCALHOST.`` is ``localhost``)."""
    return host.strip().lower().strip("[]").rstrip(".")
