"""Issue 25, the voice catalogue, downloads and sound files: a link planted at a
download's partial name, a trickling server, hostile catalogue JSON, FIFOs,
devices and WAV headers that lie, each one line naming the problem."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.cli import main
from engine.synth.catalogue import parse_catalogue
from engine.synth.download import download_voice, fetch_bytes, load_catalogue, partial_path
from engine.synth.errors import CatalogueError, DownloadError
from engine.synth.sound_library import SoundError, load_sound, probe_sound, read_info
from tests.support.hostile import VOICE_KEY, FileServer, catalogue_mirror, lying_wav

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def mirror(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    return catalogue_mirror(tmp_path / "mirror", tiny_voices["single"])


def test_a_link_planted_at_the_partial_name_is_never_followed(mirror: Path, tmp_path: Path, capsys) -> None:
    server = FileServer(mirror.parent)
    try:
        catalogue = load_catalogue(server.url)
        voice = catalogue.find(VOICE_KEY)
        folder = tmp_path / "voices"
        folder.mkdir()
        victim = tmp_path / "victim.txt"
        victim.write_text("precious\n")
        for file in voice.files:
            partial_path(folder, file).symlink_to(victim)
        os.environ["RADIOPLAY_VOICE_DIR"] = str(folder)
        assert main(["voices", "--catalog", server.url, "--download", VOICE_KEY]) == 0, capsys.readouterr().err
    finally:
        server.close()
        os.environ.pop("RADIOPLAY_VOICE_DIR", None)
    assert victim.read_text() == "precious\n"  # the old code appended the voice to it
    for file in voice.files:
        installed = folder / file.name
        assert not installed.is_symlink() and installed.stat().st_size == file.size
        assert not partial_path(folder, file).exists()


def test_a_trickling_server_is_given_up_on_with_the_partial_file_kept(mirror: Path, tmp_path: Path) -> None:
    server = FileServer(mirror.parent, trickle_s=0.05)  # 20 bytes a second: every socket timeout is met
    try:
        with pytest.raises(DownloadError, match=r"too slow: \d+ bytes in \d+ s, at least 1024 bytes/s are needed "
                                                r"\(kept \d+ of \d+ bytes; run again to resume\)$"):
            catalogue = parse_catalogue(mirror.read_bytes(), server.url)
            download_voice(catalogue, catalogue.find(VOICE_KEY), tmp_path / "voices", window_s=1.0)
        with pytest.raises(DownloadError, match=r"too slow"):  # the catalogue itself too
            fetch_bytes(server.url, window_s=1.0)
    finally:
        server.close()
    assert not [p for p in (tmp_path / "voices").iterdir() if not p.name.startswith(".")]  # nothing installed


@pytest.mark.parametrize(("text", "message"), [
    ('{"v": {"num_speakers": Infinity}}', r"Infinity is not a number JSON allows"),
    ('{"v": {"num_speakers": 1e400}}', r"the number 1e400 is out of range"),
    ("[" * 100_000 + "]" * 100_000, r"nested too deeply"),
    ('{"v": {"language": {"code": ["en"]}, "files": {}}}', r"language\.code: expected text, got list"),
    ('{"v": {"aliases": 7, "files": {"a.onnx": {"size_bytes": 1, "md5_digest": "' + "0" * 32 + '"}, '
     '"a.onnx.json": {"size_bytes": 1, "md5_digest": "' + "0" * 32 + '"}}}}', r"aliases: expected a list"),
    ('{"v": {"files": {"a.onnx": {"size_bytes": 0, "md5_digest": "' + "0" * 32 + '"}}}}',
     r"size_bytes: expected a whole number of bytes from 1 to"),
    ('{"v": {"num_speakers": "many", "files": {"a.onnx": {"size_bytes": 1, "md5_digest": "' + "0" * 32 + '"}, '
     '"a.onnx.json": {"size_bytes": 1, "md5_digest": "' + "0" * 32 + '"}}}}', r"num_speakers / speaker_id_map"),
])
def test_hostile_catalogue_json_is_one_line_naming_the_source(tmp_path: Path, text: str, message: str, capsys) -> None:
    path = tmp_path / "voices.json"
    path.write_text(text)
    with pytest.raises(CatalogueError, match=rf"^{path}: .*{message}"):
        load_catalogue(str(path))
    assert main(["voices", "--catalog", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"radioplay: error: {path}: ") and len(err.splitlines()) == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_catalogue_that_is_a_fifo_or_a_device_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "voices.json"
    os.mkfifo(fifo)
    for name, kind in ((fifo, "a named pipe (FIFO), not a regular file"), ("/dev/zero", "a device, not a regular file")):
        done = subprocess.run([sys.executable, "-m", "engine.cli", "voices", "--catalog", str(name)], cwd=REPO,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 1
        assert done.stderr.strip() == f"radioplay: error: {name}: cannot read the voice catalogue: {kind}"


def _noise(path: Path, rate: int = 48_000, seconds: float = 0.5) -> Path:
    sf.write(str(path), np.random.default_rng(1).normal(0, 0.1, int(rate * seconds)).astype(np.float32), rate)
    return path


@pytest.mark.parametrize(("make", "problem"), [
    (lambda p: lying_wav(p, rate=1, seconds_claimed=10), r"the header claims 1 Hz; a sound file must be 4000-768000 Hz"),
    (lambda p: lying_wav(p, rate=48_000, seconds_claimed=2**32 / 96_000 - 1),  # a sparse 4 GB file
     r"\d+\.\d minutes long; at most 60 minutes are read"),
    (lambda p: (os.mkfifo(p), p)[1], r"a named pipe \(FIFO\), not a regular file"),
])
def test_sound_files_that_lie_block_or_never_end_are_refused_by_name(tmp_path: Path, make, problem) -> None:
    path = make(tmp_path / "bad.wav")
    for read in (probe_sound, read_info, lambda p: load_sound(p, 48_000)):
        with pytest.raises(SoundError, match=rf"^{path}: cannot read this sound file \({problem}\)$"):
            read(path)
    assert read_info(_noise(tmp_path / "good.wav")).channels == 1  # the checks pass a real file


def test_a_sound_path_with_a_nul_byte_or_naming_a_device_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SoundError, match=r"a\\x00b.wav': cannot read this sound file \(the path contains a NUL byte\)$"):
        probe_sound(Path(str(tmp_path / "a\0b.wav")))
    with pytest.raises(SoundError, match=r"^/dev/zero: cannot read this sound file \(a device, not a regular file\)$"):
        load_sound(Path("/dev/zero"), 48_000)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_in_a_sounds_folder_does_not_hang_the_render(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    """A project whose clip is a FIFO beside good sounds: the render ends, naming it."""
    from engine.project.fileformat import save_project
    from engine.project.sound import SoundClip, SoundLane
    from tests.support.hostile import tiny_project

    sounds = tmp_path / "sounds"
    sounds.mkdir()
    _noise(sounds / "rain.wav")
    os.mkfifo(sounds / "thunder.wav")
    project = tiny_project(tiny_voices["single"])
    project.sound_lanes = [SoundLane("FX")]
    project.sounds = [SoundClip("X1", "FX", cue="thunder", file=str(sounds / "thunder.wav"), anchor="line_start",
                                line="L1"),
                      SoundClip("X2", "FX", cue="rain", file=str(sounds / "rain.wav"), anchor="line_start", line="L2")]
    path = tmp_path / "fifo.radioplay"
    save_project(project, path)
    done = subprocess.run([sys.executable, "-m", "engine.cli", "render", str(path), "-o", str(tmp_path / "out")],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "thunder.wav for cue 'thunder' (FX lane, clip X1): cannot read this sound file (a named pipe (FIFO), " \
           "not a regular file)" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    script = tmp_path / "cues.fountain"
    script.write_text("INT. A ROOM\n\nSFX: RAIN\n\nANNA\nIt is raining.\n\nSFX: THUNDER\n\nBEN\nAnd thunder.\n")
    imported = subprocess.run([sys.executable, "-m", "engine.cli", "import", str(script), "-o",
                               str(tmp_path / "cues.radioplay"), "--sounds", str(sounds)], cwd=REPO,
                              capture_output=True, text=True, timeout=300)
    assert imported.returncode == 0, imported.stderr[-2000:]
    clips = json.loads((tmp_path / "cues.radioplay").read_text())["sounds"]
    files = {Path(c["file"]).name for c in clips if c["file"]}
    assert "rain.wav" in files and "thunder.wav" not in files  # the FIFO is skipped, not read


def test_a_recorded_take_that_is_a_device_is_named_as_one_not_as_missing(tmp_path: Path) -> None:
    from engine.synth.recording import RecordingError, load_recording

    with pytest.raises(RecordingError, match=r"^recorded take /dev/zero: a device, not a regular file$"):
        load_recording("/dev/zero", 48_000)  # the old message said "file not found"
    with pytest.raises(RecordingError, match=r"gone\.wav: file not found$"):
        load_recording(str(tmp_path / "gone.wav"), 48_000)
    with pytest.raises(RecordingError, match=r"one\.wav: the header claims 1 Hz"):
        load_recording(str(lying_wav(tmp_path / "one.wav", rate=1, seconds_claimed=100_000)), 48_000)
