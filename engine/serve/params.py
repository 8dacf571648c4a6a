"""What a request to the service may say: its fields, their types and ranges, its body.

Everything a client sends is checked here before any engine object sees
it; each refusal is an :class:`ApiError` naming the field, which the
middleware in :mod:`engine.serve.app` turns into a JSON error response.

A line's text is checked for what it asks, not only for its characters: its
directions against the bounds every line meets (engine/project/bounds.py;
422, as a project would refuse it), then the audio it comes to and the work it
takes against :class:`RequestBudget` (413). Both come from the parsed line,
before anything is synthesized: 998 characters of ``(60s, 60s, ...)`` are four
hours of silence, and 250 ``*a*`` 250 phrases each inferred and shaped apart.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from engine.jsontext import JSONTextError, loads_untrusted
from engine.project.bounds import directed_overstep, planned_size
from engine.project.defaults import VOICE_RANGES
from engine.project.direction import parse_line as parse_directions
from engine.project.model import Role, Timing, VoiceParams
from engine.project.timeline import CHARS_PER_SECOND

FIELDS = ("role", "text", "speed", "pitch", "variation")
JSON_TYPE = "application/json"


class ApiError(Exception):
    """A request the service refuses; becomes a JSON error response."""

    def __init__(self, status: int, message: str, field: str | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field = status, message, field
        self.headers = dict(headers or {})


# Phrases one request may ask for (each delivery, pause or emphasized word starts one):
# a line directed at every sentence has a few.
REQUEST_PHRASES = 32
# What a phrase costs beyond its words, in characters of plain speech: its own inference
# call and its own shaping pass, measured at up to 7 on the bundled voice (bench/phrase_cost.py;
# docs/dev/benchmarks.md, "What a line may ask for").
PHRASE_COST_CHARS = 10
# Silence one request may ask for beyond its words (the bounds of a line allow more).
REQUEST_SILENCE_S = 30.0


@dataclass(frozen=True)
class RequestBudget:
    """What one request may come to, from ``--max-chars``: the audio of that many
    characters at the slowest voice (memory: each stage of synthesis holds arrays of the
    clip's length) and their work with ``REQUEST_PHRASES`` phrases (CPU)."""

    seconds: float
    cost_chars: float

    @classmethod
    def for_max_chars(cls, max_chars: int) -> RequestBudget:
        slowest = VOICE_RANGES["speed"][0]
        return cls(max_chars / (CHARS_PER_SECOND * slowest) + REQUEST_SILENCE_S,
                   max_chars + REQUEST_PHRASES * PHRASE_COST_CHARS)


def check_asks(text: str, params: VoiceParams, timing: Timing, budget: RequestBudget) -> None:
    """ApiError (422 or 413, field "text") when ``text`` asks for more than a request may.
    Its characters are ``--max-chars``' to bound (checked before this), not a project line's."""
    directed = parse_directions(text, "", timing)
    if (overstep := directed_overstep(directed, text, "", timing)) is not None:
        raise ApiError(422, f"text: {overstep}", "text")
    size = planned_size(directed, params.speed * params.effective_design.rate)
    if size.silence_s > REQUEST_SILENCE_S:
        raise ApiError(413, f"text asks for {size.silence_s:.0f} s of silence; at most {REQUEST_SILENCE_S:g} s "
                            f"in one request", "text")
    if size.seconds > budget.seconds:
        raise ApiError(413, f"text comes to about {size.seconds:.0f} s of audio; at most {budget.seconds:.0f} s "
                            f"in one request", "text")
    if size.phrases > REQUEST_PHRASES:
        raise ApiError(413, f"text asks for {size.phrases} separately performed phrases ({len(directed.directions)} "
                            f"directions, {len(directed.emphases)} emphasized words); at most {REQUEST_PHRASES} "
                            f"in one request", "text")
    cost = size.said_chars + size.phrases * PHRASE_COST_CHARS
    if cost > budget.cost_chars:
        raise ApiError(413, f"text is about {cost:,.0f} characters' worth of synthesis; at most "
                            f"{budget.cost_chars:,.0f} in one request", "text")


@dataclass(frozen=True)
class LineSpec:
    role: Role
    text: str
    params: VoiceParams


def _number(name: str, value: object, from_query: bool) -> float:
    if isinstance(value, str) and from_query:
        try:
            value = float(value)
        except ValueError:
            raise ApiError(422, f"{name} must be a number", name) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ApiError(422, f"{name} must be a number", name)
    lo, hi = VOICE_RANGES[name]
    # Compared before any float(): a JSON integer past 1e308 cannot become a float (OverflowError).
    if (isinstance(value, float) and not math.isfinite(value)) or not lo <= value <= hi:
        raise ApiError(422, f"{name} must be between {lo:g} and {hi:g}", name)
    return float(value)


def parse_line(data: Mapping[str, object], max_chars: int, find_role: Callable[[str], Role],
               from_query: bool = False, timing: Timing | None = None) -> LineSpec:
    """Validate a /tts or /renders body (JSON object, where numbers must be JSON
    numbers) or query parameters (strings, parsed); ``timing``: the project's pause lengths."""
    unknown = sorted(k for k in data if k not in FIELDS)
    if unknown:
        raise ApiError(422, f"unknown field {unknown[0]!r} (allowed: {', '.join(FIELDS)})", unknown[0])
    strings: dict[str, str] = {}
    for name in ("role", "text"):
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise ApiError(422, f"{name} must be a string", name)
        if value is None or not value.strip():
            raise ApiError(400, f"{name} is empty" if value is not None else f"{name} is required", name)
        strings[name] = value
    text = strings["text"]
    if len(text) > max_chars:
        raise ApiError(413, f"text is {len(text)} characters; the limit is {max_chars}", "text")
    overrides = {k: _number(k, data[k], from_query) for k in VOICE_RANGES if data.get(k) is not None}
    role = find_role(strings["role"].strip())
    params = role.voice.with_changes(**overrides)
    check_asks(text, params, timing or Timing(), RequestBudget.for_max_chars(max_chars))
    return LineSpec(role, text, params)


def query(request: web.Request) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in request.query:
        values = request.query.getall(key)
        if len(values) > 1:
            raise ApiError(422, f"{key} is given more than once", key)
        out[key] = values[0]
    return out


CLOSE = {"Connection": "close"}  # the rest of the body is not read: the connection cannot carry another request


async def json_body(request: web.Request, timeout_s: float) -> dict[str, Any]:
    """The body as a JSON object, read within ``timeout_s``.

    ``Content-Type: application/json`` is required: a browser sends a
    cross-site form or ``text/plain`` post without asking first, but never
    ``application/json`` (that needs a CORS preflight this service never
    grants). A declared length over the limit is refused before waiting for
    a byte of it.
    """
    if request.content_type != JSON_TYPE:
        got = request.headers.get("Content-Type", "none")
        raise ApiError(415, f"send the body as Content-Type: {JSON_TYPE} (got {got[:100]})", "Content-Type")
    limit = request.client_max_size
    if request.content_length is not None and request.content_length > limit:
        raise ApiError(413, f"request body too large ({request.content_length} bytes; the limit is {limit})",
                       "body", CLOSE)
    try:
        raw = await asyncio.wait_for(request.read(), timeout_s)
    except web.HTTPRequestEntityTooLarge:
        raise ApiError(413, f"request body too large (the limit is {limit} bytes)", "body", CLOSE) from None
    except TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {timeout_s:g} s", "body", CLOSE) from None
    try:
        body = loads_untrusted(raw)
    except JSONTextError as exc:  # also nesting too deep and non-finite numbers: never a 500
        raise ApiError(422, f"the body must be a JSON object ({exc})", "body") from None
    if not isinstance(body, dict):
        raise ApiError(422, "the body must be a JSON object", "body")
    return body
