"""The voice catalogue and downloads, against a real HTTP server on 127.0.0.1.

The served catalogue is in the official voices.json format; two of its voices
are the suite's tiny generated voices, so a downloaded voice really loads and
speaks. The other entries are an excerpt of real catalogue entries whose
files the server does not have (their MD5s are stand-ins): asking for one is
a 404.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from engine.cli import main
from engine.project.model import VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.catalogue import format_table, parse_catalogue
from engine.synth.download import download_voice, load_catalogue, partial_path
from engine.synth.errors import CatalogueError, DownloadError
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.paths import REPO
from tests.support.voice_server import MULTI_KEY, SINGLE_KEY, VOICES_JSON, CatalogueServer, build_catalogue


@pytest.fixture
def served(tmp_path: Path, tiny_voices: dict[str, Path]) -> Iterator[CatalogueServer]:
    build_catalogue(tmp_path / "mirror", tiny_voices)
    server = CatalogueServer(tmp_path / "mirror")
    yield server
    server.close()


@pytest.fixture
def voice_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "my voices"
    monkeypatch.setenv("RADIOPLAY_VOICE_DIR", str(folder))
    return folder


def _model_path(server: CatalogueServer, key: str) -> Path:
    code, name, quality = key.split("-")
    return server.root / code.split("_")[0] / code / name / quality / f"{key}.onnx"


def _nothing_installed(folder: Path) -> bool:
    return not folder.exists() or not [p for p in folder.iterdir() if not p.name.startswith(".")]


# ---- the format -----------------------------------------------------------------------------
def test_official_format_is_read_field_by_field() -> None:
    catalogue = parse_catalogue(VOICES_JSON.read_bytes(), "voices.json")
    alba = catalogue.find("en_GB-alba-medium")
    assert (alba.name, alba.language, alba.family, alba.quality) == ("alba", "en_GB", "en", "medium")
    assert alba.language_name == "English (Great Britain)"
    assert [f.name for f in alba.files] == ["en_GB-alba-medium.onnx", "en_GB-alba-medium.onnx.json"]
    assert alba.size == 63201294 + 4888  # the model card is not installed
    vctk = catalogue.find("en_GB-vctk-medium")
    assert vctk.num_speakers == 109 and vctk.speaker_names()[:2] == ["p225", "p226"]
    assert catalogue.find("en-us-amy-low").key == "en_US-amy-low"  # an alias
    assert {v.key for v in catalogue.select(language="en", quality="medium")} == {
        "en_GB-alba-medium", "en_GB-vctk-medium", "en_US-lessac-medium", "en_US-libritts_r-medium"}
    assert [v.key for v in catalogue.select(language="fr_FR")] == ["fr_FR-siwis-low"]
    assert [v.key for v in catalogue.select(search="libri")] == ["en_US-libritts_r-medium"]
    with pytest.raises(CatalogueError, match=r"no voice 'en_US-nobody-low' .*8 voices listed"):
        catalogue.find("en_US-nobody-low")


@pytest.mark.parametrize(("change", "message"), [
    (lambda e: e["files"].update({"../../etc/x.onnx": {"size_bytes": 1, "md5_digest": "0" * 32}}),
     r"files\['../../etc/x.onnx'\]: not a safe relative file path"),
    (lambda e: next(iter(e["files"].values())).update(md5_digest="xyz"), r"md5_digest: expected 32 hex digits"),
    (lambda e: next(iter(e["files"].values())).update(size_bytes="big"), r"size_bytes: expected a whole number"),
    (lambda e: e.update(files={}), r"expected one .onnx model and its .onnx.json config"),
])
def test_a_bad_entry_is_named(change, message) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(VOICES_JSON.read_text(encoding="utf-8"))
    change(data["en_GB-alba-medium"])
    with pytest.raises(CatalogueError, match=r"^mirror.json: voice 'en_GB-alba-medium': .*" + message):
        parse_catalogue(json.dumps(data), "mirror.json")


# ---- listing ---------------------------------------------------------------------------------
def test_cli_lists_a_served_catalogue_and_marks_installed(served: CatalogueServer, voice_dir: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["voices", "--catalog", served.url]) == 0
    out = capsys.readouterr().out
    assert "KEY" in out and "LANGUAGE" in out and "SPEAKERS" in out and "INSTALLED" in out
    row = next(line for line in out.splitlines() if line.startswith(MULTI_KEY)).split()
    assert row[1:4] == ["en_GB", "x_low", "3"] and row[-1] == "no"
    assert "en_GB-vctk-medium" in out and "63.2 MB" in out
    assert "10 of 10 voices" in out

    assert main(["voices", "--catalog", served.url, "--download", SINGLE_KEY]) == 0
    capsys.readouterr()
    assert main(["voices", "--catalog", served.url, "--installed"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line[:2] in ("en", "de", "fr", "es")]
    assert [r.split()[0] for r in rows] == [SINGLE_KEY] and rows[0].endswith("yes")
    assert main(["voices", "--catalog", served.url, "--language", "en", "--quality", "medium"]) == 0
    keys = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("en_")]
    assert keys == ["en_GB-alba-medium", "en_GB-vctk-medium", "en_US-lessac-medium", "en_US-libritts_r-medium"]


def test_a_local_catalogue_file_fetches_beside_itself(tmp_path: Path, tiny_voices: dict[str, Path],
                                                      voice_dir: Path) -> None:
    path = build_catalogue(tmp_path / "folder", tiny_voices)
    catalogue = load_catalogue(str(path))
    download_voice(catalogue, catalogue.find(SINGLE_KEY), voice_dir)
    assert (voice_dir / f"{SINGLE_KEY}.onnx").read_bytes() == tiny_voices["single"].read_bytes()


# ---- downloads -------------------------------------------------------------------------------
def test_download_installs_a_voice_that_speaks(served: CatalogueServer, voice_dir: Path,
                                               capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["voices", "--catalog", served.url, "--download", MULTI_KEY]) == 0
    out = capsys.readouterr().out
    assert f"Installed {MULTI_KEY}" in out and "size and MD5 verified" in out
    assert sorted(p.name for p in voice_dir.iterdir()) == [f"{MULTI_KEY}.onnx", f"{MULTI_KEY}.onnx.json"]
    library = VoiceLibrary()
    assert [v.id for v in library.user()] == [MULTI_KEY]
    synth = ClipSynthesizer(library, 48_000, ClipCache())
    bob = synth.synthesize("Hello there.", VoiceParams(voice=MULTI_KEY, speaker="bob"))
    alice = synth.synthesize("Hello there.", VoiceParams(voice=MULTI_KEY, speaker=0))
    assert bob.size > 4800 and float(np.abs(bob).max()) > 0.05
    assert not np.allclose(bob, alice)  # another speaker, another sound
    # A second download finds the files verified in place and fetches nothing.
    served.httpd.log.clear()
    assert main(["voices", "--catalog", served.url, "--download", MULTI_KEY]) == 0
    assert [p for p, _ in served.httpd.log] == ["voices.json"]


def test_a_tampered_model_is_refused_and_nothing_installed(served: CatalogueServer, voice_dir: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    model = _model_path(served, SINGLE_KEY)
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, one byte changed
    model.write_bytes(bytes(data))
    assert main(["voices", "--catalog", served.url, "--download", SINGLE_KEY]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{SINGLE_KEY}.onnx: MD5 mismatch" in err and "nothing installed" in err
    assert _nothing_installed(voice_dir)
    assert not any(voice_dir.iterdir())  # not even the verified config or a partial file


def test_a_file_of_the_wrong_size_is_refused(served: CatalogueServer, voice_dir: Path) -> None:
    model = _model_path(served, SINGLE_KEY)
    catalogue = load_catalogue(served.url)
    model.write_bytes(model.read_bytes()[:-100])
    with pytest.raises(DownloadError, match=r"size mismatch: the server sent \d+ bytes, the catalogue says \d+"):
        download_voice(catalogue, catalogue.find(SINGLE_KEY), voice_dir)
    model.write_bytes(model.read_bytes() + b"\0" * 200)
    with pytest.raises(DownloadError, match="size mismatch: the server sends more than"):
        download_voice(catalogue, catalogue.find(SINGLE_KEY), voice_dir)
    assert _nothing_installed(voice_dir) and not any(voice_dir.iterdir())


def test_404_names_the_file(served: CatalogueServer, voice_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["voices", "--catalog", served.url, "--download", "en_GB-alba-medium"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("en/en_GB/alba/medium/en_GB-alba-medium.onnx: HTTP 404 Not Found")
    assert len(err.splitlines()) == 1 and _nothing_installed(voice_dir)


def test_unknown_key(served: CatalogueServer, voice_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["voices", "--catalog", served.url, "--download", "en_US-tin"]) == 1
    err = capsys.readouterr().err.strip()
    assert "no voice 'en_US-tin' in the catalogue; did you mean en_US-tiny-x_low?" in err
    assert len(err.splitlines()) == 1 and _nothing_installed(voice_dir)


def test_no_network_is_one_line(voice_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["voices", "--catalog", f"http://127.0.0.1:{port}/voices.json", "--download", SINGLE_KEY]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"radioplay: error: cannot download the voice catalogue: cannot reach 127.0.0.1:{port}: "
                   f"connection refused")
    assert _nothing_installed(voice_dir)


def test_an_unreachable_default_catalogue_says_so(voice_dir: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --catalog the official catalogue is read; where it cannot be reached the error says
    so in one line and how to use a mirror. The test needs no particular network state: the
    default is pointed at a port nobody listens on (the suite never reaches outside 127.0.0.1)."""
    from engine.synth import download

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(download, "DEFAULT_CATALOGUE_URL", f"http://127.0.0.1:{port}/voices.json")
    assert main(["voices", "--catalog"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"radioplay: error: cannot download the voice catalogue: cannot reach 127.0.0.1:{port}")
    assert err.endswith("--catalog takes a mirror's URL or a local voices.json") and len(err.splitlines()) == 1


def test_resume_after_a_partial_file(served: CatalogueServer, voice_dir: Path) -> None:
    catalogue = load_catalogue(served.url)
    voice = catalogue.find(SINGLE_KEY)
    model = voice.files[0]
    voice_dir.mkdir()
    kept = _model_path(served, SINGLE_KEY).read_bytes()[:1000]
    partial_path(voice_dir, model).write_bytes(kept)
    download_voice(catalogue, voice, voice_dir)
    requests = dict(served.httpd.log)
    assert requests[model.path] == "bytes=1000-"
    assert served.httpd.sent[model.path] == model.size - 1000  # only the rest came over the wire
    assert (voice_dir / model.name).read_bytes() == _model_path(served, SINGLE_KEY).read_bytes()
    assert not partial_path(voice_dir, model).exists()


def test_server_closing_mid_stream_keeps_the_partial_and_resumes(served: CatalogueServer, voice_dir: Path) -> None:
    catalogue = load_catalogue(served.url)
    voice = catalogue.find(SINGLE_KEY)
    model = voice.files[0]
    served.httpd.cut_after[model.path] = 1000
    with pytest.raises(DownloadError, match=r"connection was lost after 1000 of \d+ bytes; run again to resume"):
        download_voice(catalogue, voice, voice_dir)
    assert partial_path(voice_dir, model).stat().st_size == 1000
    assert not (voice_dir / model.name).exists()
    download_voice(catalogue, voice, voice_dir)
    assert ("en/en_US/tiny/x_low/en_US-tiny-x_low.onnx", "bytes=1000-") in served.httpd.log
    assert VoiceLibrary().resolve(SINGLE_KEY).num_speakers == 1


def test_a_server_ignoring_range_starts_over(served: CatalogueServer, voice_dir: Path) -> None:
    catalogue = load_catalogue(served.url)
    voice = catalogue.find(SINGLE_KEY)
    voice_dir.mkdir()
    partial_path(voice_dir, voice.files[0]).write_bytes(b"stale bytes from elsewhere")
    served.httpd.ignore_range = True
    download_voice(catalogue, voice, voice_dir)
    assert (voice_dir / voice.files[0].name).read_bytes() == _model_path(served, SINGLE_KEY).read_bytes()


def test_full_disk_is_one_line_and_nothing_installed(served: CatalogueServer, voice_dir: Path) -> None:
    """The voice folder is a one-page tmpfs (mounted in a private mount namespace,
    ``unshare -rm``): the kernel's own "no space left on device". A link planted
    at the partial name is never followed (tests/engine/synth/test_hardening_round3.py)."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-rm", "true"]).returncode != 0:
        pytest.skip("no private mount namespace (unshare -rm) on this system")
    voice_dir.mkdir()
    script = (f'mount -t tmpfs -o size=4k tmpfs "$1" && exec "$2" -m engine.cli voices --catalog "$3" '
              f'--download {SINGLE_KEY} && echo; ls -A "$1" > "$1.listing"; exit 1')
    env = {**os.environ, "RADIOPLAY_VOICE_DIR": str(voice_dir), "PYTHONPATH": str(REPO)}
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", str(voice_dir), sys.executable, served.url],
                          env=env, capture_output=True, text=True, timeout=120)
    err = proc.stderr.strip()
    assert proc.returncode == 1, err
    assert err.startswith(f"radioplay: error: disk full writing {voice_dir} ({SINGLE_KEY}.onnx"), err
    assert err.endswith("nothing installed") and len(err.splitlines()) == 1
    assert _nothing_installed(voice_dir)


def _interruptible() -> None:
    """Ctrl-C as a terminal gives it: a suite started in the background (`make test &`, nohup)
    has SIGINT ignored, a child inherits that, and Python then raises no KeyboardInterrupt
    (the CLI waited out its 30 s socket timeout and failed with exit 1, or, once the held
    chunk was released, finished the download with exit 0: two fresh-clone failures)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_leaves_no_half_file_under_the_final_name(served: CatalogueServer, voice_dir: Path) -> None:
    # The server holds the first file's last chunk until the signal is sent: however loaded the
    # machine, SIGINT lands mid-download (a merely slow server lost that race at load 20).
    catalogue = load_catalogue(served.url)
    first = catalogue.find(SINGLE_KEY).files[0]
    part = partial_path(voice_dir, first)
    served.httpd.chunk_size, served.httpd.hold_last_chunk = 200, first.name
    env = {**os.environ, "RADIOPLAY_VOICE_DIR": str(voice_dir), "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "voices", "--catalog", served.url,
                             "--download", SINGLE_KEY], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_interruptible)
    try:
        # Mid-download is what the server sees: every chunk but the held last one sent (the
        # part file's size is no sign: the client's writes are buffered, and it once grew
        # only when the client gave up waiting and kept what it had).
        held_from = (first.size - 1) // 200 * 200  # where the last 200-byte chunk starts

        def holding() -> bool:
            sent = [n for path, n in served.httpd.sent.items() if path.endswith(first.name)]
            return bool(sent) and max(sent) >= held_from and part.exists()

        deadline = time.monotonic() + 120
        while not holding() and time.monotonic() < deadline:
            assert proc.poll() is None, f"the CLI ended before downloading: {proc.communicate()[1]}"
            time.sleep(0.05)
        assert holding(), f"the download did not reach its held last chunk within 120 s (load {os.getloadavg()})"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        served.httpd.release_last_chunk.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, f"exit {proc.returncode} (load {os.getloadavg()}): {err}"
    assert f"download of {SINGLE_KEY} interrupted; nothing installed" in err
    assert _nothing_installed(voice_dir) and part.exists()


def test_listing_marks_a_voice_installed_by_size(served: CatalogueServer, voice_dir: Path) -> None:
    catalogue = load_catalogue(served.url)
    download_voice(catalogue, catalogue.find(SINGLE_KEY), voice_dir)
    rows = format_table(catalogue.select(search="tiny"), voice_dir)
    assert [r.split()[-1] for r in rows[1:]] == ["no", "yes"]
