"""Issue 57, the service: a request whose directions ask for more than a line may is
refused before synthesis, against a real ``radioplay serve`` on 127.0.0.1 with a token.

One authenticated 998-character POST /tts of ``(60s, 60s, ...)`` took 69 s of CPU, grew
the server from 570 MB to 5.8 GB (kept afterwards) and answered 500 with a traceback;
``"*a* "`` x 250 cost 25.6 s of CPU."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode

import pytest

from engine.serve.server import ServerHandle
from tests.support.hostile import project_file, serving
from tests.support.serve import Reply, http, wav

TOKEN = "t0ken-of-issue-57"
LONG_PAUSES = "Hi (60s, " + "60s, " * 197 + "60s)"  # 998 characters, 199 minutes of silence
assert len(LONG_PAUSES) == 998


@pytest.fixture
def server(tmp_path: Path, tiny_voices: dict[str, Path]) -> ServerHandle:
    token = tmp_path / "token"
    token.write_text(TOKEN)
    with serving(project_file(tmp_path, tiny_voices["single"]), token_file=token) as handle:
        yield handle


def post(server: ServerHandle, path: str, text: str, role: str = "ANNA", **extra: object) -> Reply:
    return http("POST", f"{server.url}{path}", {"role": role, "text": text, **extra},
                headers={"Authorization": f"Bearer {TOKEN}"})


def _rss_bytes() -> int:
    """This process's resident memory (the server runs on a thread of it)."""
    fields = Path("/proc/self/status").read_text().split("VmRSS:")[1].split()
    return int(fields[0]) * 1024


@pytest.mark.parametrize(("text", "status", "error"), [
    (LONG_PAUSES, 422, "text: its pauses add up to more than 120 s by '(60s, 60s, 60s, 60s, 60s, 60s, 60s, 60s…' at "
                       "column 4 of the line; a longer silence goes before the next line, as its pause"),
    ("Hello. " + "[pause 60] " * 90, 422, "text: its pauses add up to more than 120 s by '[pause 60]' at column 30"),
    ("*a* " * 250, 422, "text: it emphasizes more than 100 words by '*a*' at column 401 of the line"),
    ("*a* " * 40, 413, "text asks for 40 separately performed phrases (0 directions, 40 emphasized words); "
                       "at most 32 in one request"),
    ("Wait. [pause 20] [pause 20] Now.", 413, "text asks for 40 s of silence; at most 30 s in one request"),
    ("7" * 900, 413, "text comes to about 386 s of audio; at most 316 s in one request"),
])
def test_a_request_that_asks_too_much_is_refused_before_synthesis(server: ServerHandle, caplog: pytest.LogCaptureFixture,
                                                                  text: str, status: int, error: str) -> None:
    caplog.set_level(logging.INFO)
    before = server.service.synth.synth_calls
    for path in ("/tts", "/renders"):
        reply = post(server, path, text)
        assert reply.status == status, reply.body[:300]
        assert reply.json()["field"] == "text" and reply.json()["error"].startswith(error), reply.json()
    query = http("GET", f"{server.url}/tts?{urlencode({'role': 'ANNA', 'text': text})}",
                 headers={"Authorization": f"Bearer {TOKEN}"})
    assert (query.status, query.json()) == (status, reply.json())
    assert server.service.synth.synth_calls == before  # nothing reached the voice
    assert not list(server.service.renders_dir.glob("*.wav"))  # no render written
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_a_directed_request_within_the_budget_is_voiced(server: ServerHandle) -> None:
    audio, rate = wav(post(server, "/tts", "Tickets, please. (beat) Both of you. (quietly) Now. [pause 5] *Go*."))
    assert audio.size > 5 * rate  # the five seconds of silence are in it


def test_a_burst_of_long_pause_requests_leaves_memory_and_other_roles_as_they_were(server: ServerHandle) -> None:
    wav(post(server, "/tts", "Warm the voice.", role="BEN"))
    before = _rss_bytes()
    with ThreadPoolExecutor(max_workers=16) as pool:
        refused = pool.map(lambda _: post(server, "/tts", LONG_PAUSES).status, range(100))
        served = [pool.submit(post, server, "/tts", f"Still here, number {k}.", "BEN") for k in range(8)]
        statuses = list(refused)
    assert statuses == [422] * 100
    for reply in served:
        wav(reply.result())  # another role is voiced beside the burst
    grown = _rss_bytes() - before
    assert grown < 64 << 20, f"the server grew by {grown / 2**20:.0f} MB"  # one such request grew it by 5 GB
