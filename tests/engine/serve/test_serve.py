"""``radioplay serve`` and ``radioplay probe`` against real servers on free loopback ports.

Every test starts its own server (``start_in_thread`` with port 0) on a
project of the tiny generated voices, and talks to it with urllib from
worker threads, as any client would. Tests that need requests to stay in
flight hold the server's synthesis workers (``workers_held``, the
scheduler's own ``one_change``): requests wait in the queue until the test
lets them go, so nothing depends on how fast synthesis happens to be.
"""

from __future__ import annotations

import hashlib
import hmac
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import numpy as np
import pytest

from engine.cli import main
from engine.project.fileformat import save_project
from engine.project.model import Project, Role
from engine.serve.probe import histogram_quantile, parse_interval
from engine.serve.security import LinkSigner, TokenAuth, TokenBucketLimiter
from engine.serve.server import ServeConfig, ServerHandle, renders_dir_for, start_in_thread
from tests.support.serve import Reply, http, tts, wait_for, wav, workers_held

ROLES = ["ROLE0", "ROLE1", "ROLE2"]










def recorded(server: ServerHandle, requests: int) -> None:
    """The scheduler records a request in the metrics hub just after resolving
    its future, so a client can hold the WAV a moment before the hub counts it."""
    wait_for(lambda: server.service.hub.snapshot().requests >= requests, "the request to be recorded")








# --- synthesis ------------------------------------------------------------------------


def test_get_and_post_return_wav_voiced_by_the_role_and_cached(serve):
    server = serve()
    query = urllib.parse.urlencode({"role": "role0", "text": "Hello from the service."})
    first = http("GET", f"{server.url}/tts?{query}")
    audio, rate = wav(first)
    assert rate == 48_000 and audio.size > 4800 and np.abs(audio).max() > 0.05
    assert first.headers["X-Radioplay-Cache"] == "miss"
    assert first.headers["X-Radioplay-Role"] == "ROLE0"  # case-insensitive match, canonical name
    second = http("GET", f"{server.url}/tts?{query}")
    assert second.headers["X-Radioplay-Cache"] == "hit" and second.body == first.body
    posted = tts(server, "ROLE0", "Hello from the service.")
    assert posted.headers["X-Radioplay-Cache"] == "hit" and posted.body == first.body
    slower = tts(server, "Role0", "Hello from the service.", speed=0.5, pitch=-3, variation=0)
    assert slower.headers["X-Radioplay-Cache"] == "miss"
    assert wav(slower)[0].size > audio.size  # the overrides reached the voice


def test_role_gain_is_applied_and_clipped(serve):
    server = serve()
    quiet, _ = wav(tts(server, "ROLE1", "The same words, two gains."))
    loud, _ = wav(tts(server, "ROLE2", "The same words, two gains."))
    assert np.abs(quiet).max() < 0.99
    assert np.abs(loud).max() == pytest.approx(32767 / 32768, abs=1e-6)  # clipped at full scale


def test_roles_lists_the_cast(serve):
    reply = http("GET", f"{serve().url}/roles")
    assert reply.status == 200
    roles = reply.json()["roles"]
    assert [r["name"] for r in roles] == ROLES
    assert roles[1]["voice"]["pitch"] == 1.0 and roles[0]["weight"] == 1.0


# --- validation -----------------------------------------------------------------------

BAD_REQUESTS = [
    ("GET", "role=NOBODY&text=Hello", 404, "role"),
    ("GET", "text=Hello", 400, "role"),
    ("GET", "role=ROLE0&text=Hi&speed=fast", 422, "speed"),
    ("GET", "role=ROLE0&text=Hi&speed=nan", 422, "speed"),
    ("GET", "role=ROLE0&text=Hi&voice=%2Fetc%2Fpasswd", 422, "voice"),
    ("GET", "role=ROLE0&role=ROLE1&text=Hi", 422, "role"),
    ("POST", {"role": "ROLE0", "text": "   "}, 400, "text"),
    ("POST", {"role": "ROLE0"}, 400, "text"),
    ("POST", {"role": "ROLE0", "text": "\U0001F600\U0001F389"}, 400, "text"),  # nothing speakable
    ("POST", {"role": "ROLE0", "text": "x" * 1001}, 413, "text"),
    ("POST", {"role": "ROLE0", "text": "Hi", "speed": 4.5}, 422, "speed"),
    ("POST", {"role": "ROLE0", "text": "Hi", "speed": "1.0"}, 422, "speed"),
    ("POST", {"role": "ROLE0", "text": "Hi", "speed": True}, 422, "speed"),
    ("POST", {"role": "ROLE0", "text": "Hi", "pitch": -12.5}, 422, "pitch"),
    ("POST", {"role": "ROLE0", "text": "Hi", "variation": 2.1}, 422, "variation"),
    ("POST", {"role": "ROLE0", "text": "Hi", "voice": "../../secret.onnx"}, 422, "voice"),
    ("POST", {"role": 7, "text": "Hi"}, 422, "role"),
    ("POST", ["ROLE0", "Hi"], 422, "body"),
    ("POST", b"{not json", 422, "body"),
]


def test_every_validation_error_names_its_field(serve):
    server = serve()
    for method, data, status, field_name in BAD_REQUESTS:
        if method == "GET":
            reply = http("GET", f"{server.url}/tts?{data}")
        elif isinstance(data, bytes):
            reply = http("POST", f"{server.url}/tts", raw=data)
        else:
            reply = http("POST", f"{server.url}/tts", data)
        assert (reply.status, reply.json()["field"]) == (status, field_name), (data, reply.body)
        assert reply.json()["error"] and "Traceback" not in reply.body.decode()
    assert http("PUT", f"{server.url}/tts").status == 405
    assert http("GET", f"{server.url}/nowhere").json() == {"error": "not found", "field": None}
    assert server.scheduler.stats().submitted == 0  # nothing invalid reached the scheduler


def test_unexpected_errors_are_500_json_and_the_server_keeps_serving(serve, monkeypatch):
    server = serve()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(server.service.synth, "plan", broken)
    reply = tts(server, "ROLE0", "This will hit the bug.")
    assert reply.status == 500 and reply.json() == {"error": "internal server error", "field": None}
    monkeypatch.undo()
    wav(tts(server, "ROLE0", "And this will not."))


# --- security -------------------------------------------------------------------------


def test_bearer_token_is_required(serve, tmp_path):
    (tmp_path / "token").write_text("s3cret-token\n")
    server = serve(token_file=tmp_path / "token")
    missing = http("GET", f"{server.url}/roles")
    wrong = http("GET", f"{server.url}/roles", headers={"Authorization": "Bearer s3cret-tokem"})
    for reply in (missing, wrong):
        assert reply.status == 401 and reply.headers["WWW-Authenticate"].startswith("Bearer")
        assert reply.json()["error"]
    good = {"Authorization": "Bearer s3cret-token"}
    assert http("GET", f"{server.url}/roles", headers=good).status == 200
    assert http("POST", f"{server.url}/renders", {"role": "ROLE0", "text": "Hi"}).status == 401
    made = http("POST", f"{server.url}/renders", {"role": "ROLE0", "text": "Hi"}, headers=good)
    assert made.status == 201
    wav(http("GET", server.url + made.json()["url"]))  # the signature is the credential


def test_rate_limit_answers_429_with_retry_after(serve):
    server = serve(rate=0.001, burst=3)  # one token per 1000 s: the burst is all there is
    assert [http("GET", f"{server.url}/roles").status for _ in range(3)] == [200, 200, 200]
    limited = http("GET", f"{server.url}/roles")
    assert limited.status == 429 and int(limited.headers["Retry-After"]) >= 1


def test_token_bucket_refills_with_its_clock():
    now = [0.0]
    limiter = TokenBucketLimiter(rate=2.0, burst=2, clock=lambda: now[0], max_clients=2)
    assert [limiter.acquire("a") for _ in range(3)] == [0, 0, 1]
    now[0] = 0.5  # one token back
    assert (limiter.acquire("a"), limiter.acquire("a")) == (0, 1)
    assert limiter.acquire("b") == 0 and limiter.acquire("c") == 0  # "a" is forgotten: bounded memory
    assert limiter.acquire("a") == 0
    assert TokenBucketLimiter(rate=0, burst=0).acquire("x") == 0  # off
    assert TokenAuth("t").check("Bearer t") is None and TokenAuth("t").check("Basic t") is not None


def test_queue_full_answers_503_with_retry_after(serve):
    server = serve(queue=1)  # the first line holds the only slot
    with workers_held(server) as release, ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(tts, server, ROLES[i % 3], f"Flood line number {i}.") for i in range(8)]
        done = []
        for future in as_completed(futures):
            done.append(future.result())
            if len(done) == 7:
                release()  # seven were turned away; let the held one finish
        replies = [f.result() for f in futures]
    statuses = sorted(r.status for r in replies)
    assert statuses == [200] + [503] * 7
    for reply in replies:
        if reply.status == 503:
            assert int(reply.headers["Retry-After"]) >= 1 and "queue" in reply.json()["error"]
        else:
            wav(reply)


# --- signed render links -------------------------------------------------------------


def test_signed_render_links(serve, tmp_path, project_file):
    (tmp_path / "secret").write_text("link-key")
    server = serve(secret_file=tmp_path / "secret", link_ttl=600)
    made = http("POST", f"{server.url}/renders", {"role": "role1", "text": "Keep this one."})
    assert made.status == 201
    body = made.json()
    render_id, url = body["id"], body["url"]
    assert url == f"/renders/{render_id}.wav?exp={body['expires']}&sig={url.rsplit('=', 1)[1]}"
    audio, _ = wav(http("GET", server.url + url))
    assert audio.size > 0
    folder = renders_dir_for(project_file)
    assert sorted(p.name for p in folder.iterdir()) == [f"{render_id}.wav"]  # no temp files left

    def signed(name: str, exp: int) -> str:
        sig = hmac.new(b"link-key", f"{name}:{exp}".encode(), hashlib.sha256).hexdigest()
        return f"{server.url}/renders/{name}?exp={exp}&sig={sig}"

    sig = url.rsplit("=", 1)[1]
    tampered = url[:-1] + ("0" if sig[-1] != "0" else "1")
    past = int(time.time()) - 10
    forbidden = [server.url + tampered, signed(f"{render_id}.wav", past),
                 server.url + url.replace(f"exp={body['expires']}", f"exp={body['expires'] + 1000}"),
                 f"{server.url}/renders/{render_id}.wav", f"{server.url}/renders/{render_id}.wav?exp=x&sig={sig}"]
    for link in forbidden:
        reply = http("GET", link)
        assert (reply.status, reply.json()["field"]) == (403, "sig"), link
    for name in ("ABC.wav", f"{render_id[:-1]}.wav", f"{render_id}.mp3", "..%2Ftiny.radioplay"):
        assert http("GET", signed(name, past + 10_000)).status == 404, name
    assert http("GET", signed("f" * 32 + ".wav", past + 10_000)).status == 404  # well signed, never made


def test_link_signer_expiry_uses_its_clock():
    now = [1000.0]
    signer = LinkSigner(b"k", ttl_s=60, clock=lambda: now[0])
    url, exp = signer.link("a.wav")
    sig = url.rsplit("=", 1)[1]
    assert exp == 1060 and signer.verify("a.wav", "1060", sig)
    assert not signer.verify("b.wav", "1060", sig)
    now[0] = 1060.0
    assert not signer.verify("a.wav", "1060", sig)


# --- metrics and probe ---------------------------------------------------------------


def test_metrics_list_every_role_and_the_request_histogram(serve):
    server = serve()
    idle = http("GET", f"{server.metrics_url}/metrics")
    assert idle.status == 200 and idle.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    lines = idle.body.decode().splitlines()
    priority = sorted(line.split("{")[1].split("}")[0] for line in lines if line.startswith("radioplay_role_priority{"))
    assert priority == [f'role="{r}"' for r in ROLES]
    assert not any(line.startswith("radioplay_request_latency_seconds_bucket") for line in lines)
    wav(tts(server, "ROLE2", "Something to measure."))
    recorded(server, 1)
    assert http("GET", f"{server.url}/tts?role=NOBODY&text=x").status == 404
    text = http("GET", f"{server.metrics_url}/metrics").body.decode()
    assert 'radioplay_request_latency_seconds_bucket{le="+Inf",policy="role-priority",role="ROLE2"} 1.0' in text
    assert 'radioplay_http_responses_total{code="200"}' in text
    assert 'radioplay_http_responses_total{code="404"} 1.0' in text


def test_probe_once_prints_every_role(serve, capsys):
    server = serve()
    wav(tts(server, "ROLE0", "Probe me."))
    recorded(server, 1)
    assert main(["probe", "--url", server.metrics_url, "--mode", "once"]) == 0
    out = capsys.readouterr().out
    header, *rows = out.splitlines()
    assert header.split() == ["ROLE", "PRIORITY", "QUEUE", "P95", "MS", "REQUESTS"]
    assert [row.split()[0] for row in rows[:3]] == ROLES
    assert rows[0].split()[-1] == "1" and rows[1].split()[-1] == "0"
    assert "anomalies: 0" in out


def test_probe_once_exits_1_when_unreachable(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    assert main(["probe", "--url", f"http://127.0.0.1:{port}", "--mode", "once"]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_probe_helpers():
    assert [parse_interval(t) for t in ("100ms", "0.5s", "2")] == [0.1, 0.5, 2.0]
    for bad in ("", "0", "fast", "-1s", "5m"):
        with pytest.raises(ValueError):
            parse_interval(bad)
    buckets = {0.1: 50.0, 0.2: 90.0, 0.4: 100.0, float("inf"): 100.0}
    assert histogram_quantile(0.95, buckets) == pytest.approx(0.3)
    assert histogram_quantile(0.5, buckets) == pytest.approx(0.1)
    assert histogram_quantile(0.95, {1.0: 0.0, float("inf"): 0.0}) is None
    assert histogram_quantile(0.99, {0.1: 1.0, float("inf"): 100.0}) == 0.1  # in the +Inf bucket


# --- graceful shutdown ----------------------------------------------------------------


def _in_flight_then_stop(server: ServerHandle, count: int, release: Callable[[], None]) -> list[Reply]:
    with ThreadPoolExecutor(count + 1) as pool:
        futures = [pool.submit(tts, server, ROLES[i % 3], f"In flight at shutdown, number {i}.")
                   for i in range(count)]
        wait_for(lambda: server.scheduler.stats().submitted == count, "every request to be queued")
        stopping = pool.submit(server.stop)
        wait_for(lambda: server.service.draining, "the drain to begin")
        release()
        stopping.result()
        return [f.result() for f in futures]


def test_shutdown_lets_requests_in_flight_finish(serve):
    server = serve()
    with workers_held(server) as release:
        replies = _in_flight_then_stop(server, 20, release)
    for reply in replies:
        audio, _ = wav(reply)  # complete and valid, every one
        assert np.abs(audio).max() > 0.05
    assert not server.thread.is_alive()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{server.url}/roles", timeout=5)  # no longer listening


def test_shutdown_timeout_answers_queued_requests_503(serve):
    server = serve(shutdown_timeout=0.2)
    with workers_held(server):
        replies = _in_flight_then_stop(server, 5, lambda: None)  # the workers never run them
    for reply in replies:
        assert reply.status == 503 and int(reply.headers["Retry-After"]) >= 1
        assert "shutting down" in reply.json()["error"]


# --- the real voice -------------------------------------------------------------------


@pytest.mark.integration
def test_real_voice_over_http(tmp_path):
    project = Project(title="Real", cast=[Role(name="Narrator")])
    path = tmp_path / "real.radioplay"
    save_project(project, path)
    server = start_in_thread(ServeConfig(project=path, port=0, metrics_port=0))
    try:
        audio, rate = wav(tts(server, "narrator", "Good evening, and welcome to the broadcast."))
        assert rate == 48_000 and audio.size > rate and np.abs(audio).max() > 0.1
    finally:
        server.stop()
