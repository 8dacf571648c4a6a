"""Where synthesis runs: the --device names, ``auto`` here, a GPU asked for that is not here,
and the binding path on the device under test (tests/support/device.py: the CPU here, the GPU
under make gpu-check): each clip's model output gathered in the device pool, in room the
length predictor sized, and copied to the host once, into the host pool's room for the clip."""

from __future__ import annotations

import numpy as np
import pytest

from engine.project.model import VoiceParams
from engine.synth.backends.synth_device import (
    CPU,
    DeviceUnavailable,
    SynthDevice,
    choose_device,
    cuda_offered,
    parse_device,
    preferred_device,
)
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer, RawAudio
from tests.support.device import device_under_test, on_cpu

PIPER = VoiceParams(voice="en_US-joe-medium")
KOKORO = VoiceParams(backend="kokoro", voice="jf_nezumi")
no_gpu_here = pytest.mark.skipif(cuda_offered(), reason="ONNX Runtime offers CUDA here: make gpu-check covers it")


def test_device_names_and_what_a_bad_one_says() -> None:
    assert [parse_device(t) for t in ("auto", "CPU", "cuda", "cuda:1", " cuda:12 ")] == [
        ("auto", None), ("cpu", None), ("cuda", None), ("cuda", 1), ("cuda", 12)]
    for bad in ("gpu", "cpu:0", "cuda:", "cuda:x", "", "cuda:1:2"):
        with pytest.raises(ValueError, match=r"expected auto, cpu, cuda or cuda:N"):
            parse_device(bad)
    assert CPU.providers == ["CPUExecutionProvider"] and CPU.name == "cpu"
    gpu = SynthDevice("cuda", 1)
    assert gpu.name == "cuda:1" and gpu.providers[0] == ("CUDAExecutionProvider", {
        "device_id": 1, "cudnn_conv_algo_search": "HEURISTIC"}) and gpu.providers[-1] == "CPUExecutionProvider"


@no_gpu_here
def test_auto_takes_the_cpu_here_and_says_why() -> None:
    import onnxruntime as ort

    device = choose_device("auto")
    assert (device.kind, device.asked) == ("cpu", "auto")
    assert device.reason == (f"auto: onnxruntime {ort.__version__} here offers no CUDA provider, only "
                             + " and ".join(", ".join(p.removesuffix("ExecutionProvider")
                                                      for p in ort.get_available_providers()).rsplit(", ", 1)))
    assert choose_device("cpu") == SynthDevice(asked="cpu", reason="asked for")


@no_gpu_here
@pytest.mark.parametrize("asked", ["cuda", "cuda:1"])
def test_a_gpu_that_is_not_here_is_one_line_naming_what_to_install(asked: str) -> None:
    with pytest.raises(DeviceUnavailable) as caught:
        choose_device(asked)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"--device {asked}: onnxruntime ")
    assert "no CUDA provider" in message and "pip install 'radioplay[gpu]'" in message and "onnxruntime-gpu" in message


@no_gpu_here
def test_a_remembered_gpu_no_longer_here_is_said_and_auto_taken() -> None:
    device = preferred_device("cuda")
    assert device.kind == "cpu" and device.asked == "auto"
    assert device.reason.startswith("the preferred cuda is not here; auto: onnxruntime ")
    assert preferred_device("warp-drive").reason.startswith("the preferred warp-drive is no device name; auto")


@pytest.mark.device
@pytest.mark.integration
@pytest.mark.parametrize("voice", [PIPER, KOKORO], ids=["piper", "kokoro"])
def test_a_bound_run_lands_each_clip_once_and_matches_the_plain_run(voice: VoiceParams) -> None:
    library = VoiceLibrary()
    plain = ClipSynthesizer(library, 48_000, ClipCache())
    bound = ClipSynthesizer(library, 48_000, ClipCache(), device=device_under_test())
    texts = ["Two sentences in this line. And a question after them?", "One more line."]
    for text in texts:
        want, got = plain.synthesize(text, voice), bound.synthesize(text, voice)
        if on_cpu():  # the same kernels on the same samples: the same clip, to the bit
            np.testing.assert_array_equal(got, want)
        else:  # a GPU's kernels round differently: the same line, near enough in length and level
            assert abs(got.shape[0] - want.shape[0]) <= 0.1 * want.shape[0] and np.isfinite(got).all()
            assert np.sqrt(np.mean(got ** 2)) > 0.3 * np.sqrt(np.mean(want ** 2))
    assert bound.device_pool is not None and plain.device_pool is None
    traffic = bound.device_pool.traffic()
    assert (traffic.clips, traffic.host_copies) == (2, 2)  # the first line's two sentences crossed in one copy
    assert bound.device_pool.stats().used_bytes == 0  # every room given back


@pytest.mark.device
@pytest.mark.integration
def test_room_is_reserved_from_the_predictor_and_the_clip_lands_in_the_host_pool() -> None:
    library = VoiceLibrary()
    synth = ClipSynthesizer(library, 48_000, ClipCache(), device=device_under_test())
    plain = ClipSynthesizer(library, 48_000, ClipCache())
    pool, host = synth.device_pool, synth.cache.store.arena.buffer
    assert pool is not None
    texts = ["The first of a few lines teaches the predictor.", "The second is longer than the first, and it "
             "has a clause in it.", "Third."]
    for text in texts:
        plan = synth.plan(text, PIPER)
        units = synth.phonemize(plan)
        phonemes = sum(len(u.ids) for u in units)
        frames = synth.raw_lengths.reserve_size(synth.length_key(plan), phonemes, plan.settings.length_scale)
        reservation = synth.reserve(plan, units)
        assert reservation is not None
        assert pool.reserved(plan.key) == pool.arena.blocks_for(frames) * pool.arena.block_frames
        model = synth.voice(plan.voice)
        pieces = synth.land(plan, units, synth.infer_units(model, plan, units), reservation)
        assert all(isinstance(p, np.ndarray) and p.dtype == np.float32 for p in pieces)
        assert all(np.shares_memory(p, host) for p in pieces)  # in the host pool: the room reserved for the clip
        assert pool.reserved(plan.key) is None
        clip = synth.finish(RawAudio(plan, pieces, [u.pause_after for u in units], model.sample_rate, phonemes,
                                     reservation))
        assert np.shares_memory(clip, host)  # the finished clip written over its raw audio, in the same room
        if on_cpu():
            np.testing.assert_array_equal(clip, plain.synthesize(text, PIPER))
    assert synth.raw_lengths.report().observations == len(texts)
    assert pool.traffic().host_copies == len(texts)
