"""A real radioplay serve on 127.0.0.1 for the service tests: the serve fixture and HTTP helpers (a plugin of tests/conftest.py)."""

from __future__ import annotations

import contextlib
import io
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from engine.project.fileformat import save_project
from engine.project.model import Project
from engine.serve.server import ServeConfig, ServerHandle, start_in_thread
from tests.support.projects import tiny_project


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes = field(repr=False)

    def json(self) -> Any:
        return json.loads(self.body)


def http(method: str, url: str, payload: Any = None, headers: dict[str, str] | None = None,
         raw: bytes | None = None, timeout_s: float = 60.0) -> Reply:
    data = raw if raw is not None else (json.dumps(payload).encode() if payload is not None else None)
    headers = dict(headers or {})
    if data is not None:  # the service takes JSON bodies only as application/json (415 otherwise)
        headers.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return Reply(response.status, dict(response.headers.items()), response.read())
    except urllib.error.HTTPError as exc:
        return Reply(exc.code, dict(exc.headers.items()), exc.read())


def wav(reply: Reply) -> tuple[np.ndarray, int]:
    """Decode a reply as a complete 16-bit mono WAV; raises on anything else."""
    assert reply.status == 200, reply.body[:200]
    assert reply.headers["Content-Type"] == "audio/wav"
    info = sf.info(io.BytesIO(reply.body))
    assert (info.channels, info.subtype) == (1, "PCM_16")
    assert len(reply.body) == 44 + 2 * info.frames  # nothing truncated
    audio, rate = sf.read(io.BytesIO(reply.body), dtype="float32")
    return audio, rate


def wait_for(condition: Callable[[], bool], what: str, limit_s: float = 30.0) -> None:
    """Poll a condition (a safety net against hangs, not a timing assertion)."""
    end = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.fixture(name="project_file")  # named apart so test_serve_guard.py can import it
def project_file_fixture(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    project: Project = tiny_project(tiny_voices["single"])
    project.cast[2].gain_db = 24.0  # drives ROLE2 into clipping: proves gain and clip are applied
    path = tmp_path / "tiny.radioplay"
    save_project(project, path)
    return path


@pytest.fixture(name="serve")
def serve_fixture(project_file: Path) -> Iterator[Callable[..., ServerHandle]]:
    handles: list[ServerHandle] = []

    def start(**options: Any) -> ServerHandle:
        handle = start_in_thread(ServeConfig(project=project_file, port=0, metrics_port=0, **options))
        handles.append(handle)
        return handle

    yield start
    for handle in handles:
        handle.stop()
        assert not handle.thread.is_alive()


@contextlib.contextmanager
def workers_held(server: ServerHandle) -> Iterator[Callable[[], None]]:
    """The server's synthesis workers held (its scheduler's ``one_change``: no worker
    starts a job meanwhile), so requests stay in flight however fast synthesis is;
    yields ``release``, which lets them go (and is called on leaving, if not before)."""
    change = server.scheduler.one_change()
    change.__enter__()
    held = [True]

    def release() -> None:
        if held[0]:
            held[0] = False
            change.__exit__(None, None, None)

    try:
        yield release
    finally:
        release()


def tts(server: ServerHandle, role: str, text: str, timeout_s: float = 60.0, **extra: Any) -> Reply:
    return http("POST", f"{server.url}/tts", {"role": role, "text": text, **extra}, timeout_s=timeout_s)
