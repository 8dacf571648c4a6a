"""A real HTTP server on 127.0.0.1 serving a voice catalogue laid out like the
official Piper voices repository, built from the suite's tiny generated voices.

``CatalogueServer`` serves a folder with ``http.server`` on a thread and
understands ``Range: bytes=N-`` (206 + Content-Range) so resumes are real. A
test can make it misbehave the way networks do: close the connection after
some bytes of a file (``cut_after``), send slowly (``chunk_size`` bytes, then ``delay_per_chunk`` seconds),
or hold back the last chunk of the file whose path ends with ``hold_last_chunk`` until
``release_last_chunk`` is set, so a client is certainly mid-download however loaded the machine is.
Every request is logged as (path, range header).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

VOICES_JSON = Path(__file__).parent / "voices" / "voices.json"  # excerpt in the official format
SINGLE_KEY = "en_US-tiny-x_low"
MULTI_KEY = "en_GB-tinytrio-x_low"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
        pass

    def do_GET(self) -> None:  # noqa: N802
        path = unquote(urlsplit(self.path).path).lstrip("/")
        self.server.log.append((path, self.headers.get("Range")))
        target = (self.server.root / path).resolve()
        if not target.is_relative_to(self.server.root) or not target.is_file():
            self.send_error(404, "Not Found")
            return
        data = target.read_bytes()
        start = 0
        wanted = self.headers.get("Range")
        if wanted and wanted.startswith("bytes=") and not self.server.ignore_range:
            start = int(wanted.removeprefix("bytes=").split("-", 1)[0])
            if start >= len(data):
                self.send_error(416, "Range Not Satisfiable")
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        cut = self.server.cut_after.pop(path, None)
        if cut is not None:
            body = body[:cut]  # then close: the client sees a short body
        step = self.server.chunk_size
        for i in range(0, len(body), step):
            if self.server.hold_last_chunk and path.endswith(self.server.hold_last_chunk) and i + step >= len(body):
                self.wfile.flush()
                if not self.server.release_last_chunk.wait(120):
                    return  # never released: the client is long gone
            try:
                self.wfile.write(body[i:i + step])
            except (BrokenPipeError, ConnectionResetError):
                return  # the client stopped reading (interrupted): nothing more to send
            self.server.sent[path] = self.server.sent.get(path, 0) + len(body[i:i + step])
            if self.server.delay_per_chunk:
                self.wfile.flush()
                time.sleep(self.server.delay_per_chunk)
        if cut is not None:
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    root: Path
    log: list[tuple[str, str | None]]
    cut_after: dict[str, int]
    ignore_range: bool
    delay_per_chunk: float
    chunk_size: int
    hold_last_chunk: str  # a path's end; empty: hold nothing
    release_last_chunk: threading.Event
    sent: dict[str, int]  # bytes of body sent, by path


class CatalogueServer:
    def __init__(self, root: Path) -> None:
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.root = root.resolve()
        self.httpd.log, self.httpd.cut_after = [], {}
        self.httpd.ignore_range, self.httpd.delay_per_chunk, self.httpd.sent = False, 0.0, {}
        self.httpd.chunk_size = 8192
        self.httpd.hold_last_chunk, self.httpd.release_last_chunk = "", threading.Event()
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="test-catalogue-http", daemon=True)
        self.thread.start()

    @property
    def root(self) -> Path:
        return self.httpd.root

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/voices.json"

    def close(self) -> None:
        self.httpd.release_last_chunk.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


def _entry(key: str, name: str, code: str, country: str, speakers: dict[str, int],
           files: dict[str, Path], root: Path) -> dict[str, Any]:
    """A catalogue entry for real files, copied under their official-style paths."""
    listed = {}
    for rel, source in files.items():
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
        data = dest.read_bytes()
        listed[rel] = {"size_bytes": len(data), "md5_digest": hashlib.md5(data).hexdigest()}
    family, region = code.split("_")
    return {"key": key, "name": name,
            "language": {"code": code, "family": family, "region": region, "name_native": "English",
                         "name_english": "English", "country_english": country},
            "quality": "x_low", "num_speakers": max(1, len(speakers)), "speaker_id_map": speakers,
            "files": listed, "aliases": []}


def build_catalogue(root: Path, tiny_voices: dict[str, Path], sample: Path | None = None) -> Path:
    """``root/voices.json``: the realistic excerpt plus two voices whose files
    really exist (the tiny generated voices, named like official ones)."""
    root.mkdir(parents=True, exist_ok=True)
    catalogue = json.loads(VOICES_JSON.read_text(encoding="utf-8"))
    card = root / "MODEL_CARD.src"
    card.write_text("# Model card\nA tiny generated test voice.\n", encoding="utf-8")
    for key, voice, country in ((SINGLE_KEY, tiny_voices["single"], "United States"),
                                (MULTI_KEY, tiny_voices["multi"], "Great Britain")):
        code, name, quality = key.split("-")
        folder = f"{code.split('_')[0]}/{code}/{name}/{quality}"
        files = {f"{folder}/{key}.onnx": voice, f"{folder}/{key}.onnx.json": Path(f"{voice}.json"),
                 f"{folder}/MODEL_CARD": card}
        if sample is not None and key == MULTI_KEY:
            files[f"{folder}/samples/speaker_1.wav"] = sample
        config = json.loads(Path(f"{voice}.json").read_text(encoding="utf-8"))
        catalogue[key] = _entry(key, name, code, country, config.get("speaker_id_map") or {}, files, root)
    path = root / "voices.json"
    path.write_text(json.dumps(catalogue, indent=4, ensure_ascii=False), encoding="utf-8")
    return path
