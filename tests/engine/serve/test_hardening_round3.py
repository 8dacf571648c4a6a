"""Issue 25, the service's findings, against a real ``radioplay serve`` on 127.0.0.1:
metrics behind the token, secrets kept out of the log, deep JSON a 422, a
token file that is a FIFO refused at start."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.serve.server import ServeConfig
from tests.support.hostile import project_file, raw_http, serving

TOKEN = "s3cret-token-of-issue-25"
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


def get(port: int, path: str, host: str = "127.0.0.1", extra: str = "") -> tuple[int, bytes]:
    return raw_http(port, f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n".encode())


def test_metrics_need_the_token_when_one_is_set_unless_made_public_on_loopback(tmp_path, tiny_voices, token_file):
    project = project_file(tmp_path, tiny_voices["single"])
    auth = f"Authorization: Bearer {TOKEN}\r\n"
    with serving(project, token_file=token_file) as server:
        for host in ("127.0.0.1", "evil.example"):
            status, body = get(server.metrics_port, "/metrics", host)
            assert status == 401, body[:200]
            assert b"ANNA" not in body  # no role names, no statistics
        status, body = get(server.metrics_port, "/metrics", extra=auth)
        assert status == 200 and b'role="ANNA"' in body
        assert get(server.metrics_port, "/metrics", extra="Authorization: Bearer wrong\r\n")[0] == 401
        out = tmp_path / "probe.txt"
        with open(out, "w") as f:  # radioplay probe --token-file reads them
            done = subprocess.run([sys.executable, "-m", "engine.cli", "probe", "--url", server.metrics_url,
                                   "--mode", "once", "--token-file", str(token_file)], cwd=REPO, stdout=f,
                                  stderr=subprocess.PIPE, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "ANNA" in out.read_text()
    with serving(project, token_file=token_file, public_metrics=True) as server:
        status, body = get(server.metrics_port, "/metrics")
        assert status == 200 and b'role="ANNA"' in body
        assert get(server.metrics_port, "/metrics", "evil.example")[0] == 403  # public, still not to web pages
        assert get(server.port, "/roles")[0] == 401  # the API keeps its token
    with pytest.raises(ValueError, match=r"^--public-metrics .* only on a loopback address; --host is 0\.0\.0\.0$"):
        ServeConfig(project=project, host="0.0.0.0", public_metrics=True).check()


def test_a_malformed_authorization_header_is_400_and_no_token_reaches_the_log(tmp_path, tiny_voices, token_file,
                                                                               caplog):
    project = project_file(tmp_path, tiny_voices["single"])
    caplog.set_level(logging.DEBUG)
    with serving(project, token_file=token_file) as server:
        for header in (f"Authorization: Bearer {TOKEN}\x01\r\n".encode(),
                       f"Authorization: Bearer {TOKEN}\r\n Authorization: x\r\n".encode(),
                       f"Authorization: Bearer {TOKEN}\x7f\r\n".encode()):
            status, _ = raw_http(server.port, b"GET /roles HTTP/1.1\r\nHost: 127.0.0.1\r\n" + header + b"\r\n")
            assert status == 400
        wrong = "Bearer " + TOKEN[:-1] + "X"  # a near miss is a secret too
        assert get(server.port, "/roles", extra=f"Authorization: {wrong}\r\n")[0] == 401
        assert get(server.port, "/roles", extra=f"Authorization: Bearer {TOKEN}\r\n")[0] == 200
    logged = caplog.text + "".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert "Error handling request" in logged  # aiohttp did log the refused requests...
    assert TOKEN not in logged and TOKEN[:-1] not in logged  # ...but not the token
    assert "[redacted]" in logged


def test_deeply_nested_json_to_tts_is_422_with_no_traceback_in_the_log(tmp_path, tiny_voices, caplog):
    project = project_file(tmp_path, tiny_voices["single"])
    caplog.set_level(logging.DEBUG)
    with serving(project) as server:
        for body in (b"[" * 60_000, b'{"role": "ANNA", "text": "hi", "speed": ' + b"[" * 20_000 + b"]" * 20_000
                     + b"}", b'{"role": "ANNA", "text": "hi", "speed": Infinity}'):
            request = (b"POST /tts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
            status, reply = raw_http(server.port, request)
            assert status == 422, reply[:300]
            assert b'"field": "body"' in reply or b"body" in reply
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_token_file_that_is_a_fifo_or_a_device_is_refused_at_start(tmp_path, tiny_voices, capsys):
    project = project_file(tmp_path, tiny_voices["single"])
    fifo = tmp_path / "token.fifo"
    os.mkfifo(fifo)
    for name, kind in ((fifo, "a named pipe (FIFO), not a regular file"), ("/dev/zero", "a device, not a regular file")):
        # In a child with a deadline: the old code blocked on the FIFO for ever.
        done = subprocess.run([sys.executable, "-m", "engine.cli", "serve", str(project), "--port", "0",
                               "--metrics-port", "0", "--token-file", str(name)], cwd=REPO, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 1
        assert done.stderr.strip() == f"radioplay: error: cannot read token file {name}: {kind}"
    big = tmp_path / "big-token"
    big.write_bytes(b"x" * (1 << 20))
    assert main(["serve", str(project), "--port", "0", "--metrics-port", "0", "--token-file", str(big)]) == 1
    assert capsys.readouterr().err.strip() == (f"radioplay: error: cannot read token file {big}: 1 MiB, larger than "
                                               f"the 64 KiB read at most")
