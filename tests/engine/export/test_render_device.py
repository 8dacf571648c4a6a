"""``radioplay render --device``: ``cpu`` and ``auto`` (the CPU here) write the same files, byte
for byte, as a render on plain CPU sessions (the path before synthesis devices); each clip
crosses from the device pool to the host once; ``cuda`` where there is none is one line, and
nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main
from engine.export.render import render_project
from engine.project.fileformat import save_project
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.synth.backends.synth_device import choose_device, cuda_offered
from engine.synth.synthesizer import make_synthesizer

pytestmark = pytest.mark.integration


def short_play() -> Project:
    """Both engines, a line of two sentences on each: a few seconds of each to voice."""
    project = Project(title="Device", sample_rate=48_000, scenes=[Scene("S1", "A kitchen")])
    project.cast += [Role(name="ANNE", voice=VoiceParams(voice="en_US-joe-medium", pitch=1.5)),
                     Role(name="NARRATOR", voice=VoiceParams(backend="kokoro", voice="jf_nezumi"))]
    texts = [("NARRATOR", "The kettle was still warm. Someone had been here."),
             ("ANNE", "Who left the door open? It was locked when I went out."),
             ("NARRATOR", "Nobody answered.")]
    project.lines += [Line(id=f"L{i}", role=role, scene="S1", text=text) for i, (role, text) in enumerate(texts, 1)]
    return project


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def play(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """The play saved, and its render on plain CPU sessions (no device: no binding, no pool)."""
    folder = tmp_path_factory.mktemp("device-render")
    path = folder / "device.radioplay"
    project = short_play()
    save_project(project, path)
    synth = make_synthesizer(path, project.sample_rate, use_cache=False)
    assert synth.device_pool is None
    render_project(project, synth, folder / "plain")
    return path, files(folder / "plain")


@pytest.mark.parametrize("device", ["cpu", "auto"])
def test_render_on_the_cpu_device_writes_the_same_files(play, tmp_path, capsys, device) -> None:
    if device == "auto" and cuda_offered():
        pytest.skip("auto takes the GPU here, whose kernels round differently")
    path, plain = play
    assert main(["render", str(path), "-o", str(tmp_path / "out"), "--no-cache", "--device", device]) == 0
    out = capsys.readouterr().out
    assert "Synthesis on cpu (" + ("asked for)" if device == "cpu" else "auto: ") in out
    written = files(tmp_path / "out")
    assert sorted(written) == sorted(plain) and "mix.wav" in written and "stems/ANNE.wav" in written
    for name, data in plain.items():
        assert written[name] == data, f"{name} differs from the plain CPU render"


def test_a_render_crosses_each_clip_to_the_host_once(play, tmp_path) -> None:
    path, plain = play
    project = short_play()
    synth = make_synthesizer(path, project.sample_rate, use_cache=False, device=choose_device("cpu"))
    report = render_project(project, synth, tmp_path / "out")
    assert synth.device_pool is not None and report.synthesized == 3
    traffic = synth.device_pool.traffic()
    assert traffic.clips == traffic.host_copies == 3
    assert synth.device_pool.stats().used_bytes == 0 and synth.device_pool.stats().high_water_bytes > 0
    assert (tmp_path / "out" / "mix.wav").read_bytes() == plain["mix.wav"]


@pytest.mark.skipif(cuda_offered(), reason="ONNX Runtime offers CUDA here")
def test_asking_for_a_gpu_that_is_not_here_writes_nothing(play, tmp_path, capsys) -> None:
    path, _ = play
    out = tmp_path / "out"
    assert main(["render", str(path), "-o", str(out), "--device", "cuda"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("radioplay: error: --device cuda: onnxruntime ")
    assert "pip install 'radioplay[gpu]'" in err
    assert not out.exists()
