"""The scheduler on a synthesis device (tests/support/device.py: the CPU here, the GPU under
make gpu-check): every line's clip crosses from the device pool to the host once, the pools'
use, fragmentation and high-water mark and where synthesis runs reach the metrics hub and its
Prometheus text, and a GPU's batch size is measured on its first batch."""

from __future__ import annotations

import numpy as np
import pytest

from engine.metrics.hub import MetricsHub
from engine.metrics.prometheus import exposition
from engine.project.model import VoiceParams
from engine.sched.batching import DEVICE_CANDIDATES, BatchSizer
from engine.sched.policy import RolePriorityPolicy
from engine.sched.request import Origin, request_for
from engine.sched.scheduler import Scheduler
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.synth_device import CPU, SynthDevice
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.device import device_under_test, on_cpu

ROLES = {"ANNE": VoiceParams(voice="en_US-joe-medium", pitch=2.0), "BEN": VoiceParams(voice="en_US-joe-medium",
                                                                                      speed=1.1)}
LINES = [("ANNE", "I heard it first. Then the lights went out."), ("BEN", "Where were you standing?"),
         ("ANNE", "By the door. It was cold there, and dark."), ("BEN", "Did you see who it was? Tell me."),
         ("ANNE", "No."), ("BEN", "Then we wait for morning.")]


@pytest.mark.device
@pytest.mark.integration
def test_each_line_crosses_to_the_host_once_and_the_pools_are_in_the_metrics() -> None:
    device = device_under_test()
    library = VoiceLibrary()
    synth = ClipSynthesizer(library, 48_000, ClipCache(), SessionLayout(2, 1), device=device)
    hub = MetricsHub()
    with Scheduler(synth, RolePriorityPolicy(), metrics=hub) as scheduler:
        futures = [scheduler.submit(request_for(synth, text, role, ROLES[role], origin=Origin.EXPORT))
                   for role, text in LINES]
        clips = [future.result(timeout=600) for future in futures]
        scheduler.publish_metrics()
    assert synth.device_pool is not None
    traffic = synth.device_pool.traffic()
    assert traffic.clips == traffic.host_copies == len(LINES)  # no clip crossed twice, none was left out
    if on_cpu():
        plain = ClipSynthesizer(library, 48_000, ClipCache(), SessionLayout(2, 1))  # the same threads per session
        for (role, text), clip in zip(LINES, clips, strict=True):
            np.testing.assert_array_equal(clip, plain.synthesize(text, ROLES[role]))
    snap = hub.snapshot()
    assert (snap.synthesis_device.name, snap.synthesis_device.reason) == (device.name, device.reason)
    pool = snap.pools[f"device:{device.name}"]
    assert pool.used_bytes == 0 < pool.high_water_bytes <= pool.free_bytes  # all given back; its peak kept
    assert snap.pools["host"].high_water_bytes >= snap.pools["host"].used_bytes > 0
    assert snap.device_traffic.host_copies == len(LINES)
    text = exposition(hub).decode()
    assert f'radioplay_pool_bytes{{pool="device:{device.name}",state="high_water"}} {pool.high_water_bytes:.1f}' \
        in text
    assert f"radioplay_device_pool_host_copies_total {len(LINES):.1f}" in text
    assert f'radioplay_synthesis_device_info{{asked="{device.asked}",device="{device.name}",' in text


def test_the_cpu_runs_one_line_at_a_time_and_a_gpu_measures_its_first_batch(tiny_voices, tmp_path) -> None:
    assert BatchSizer.for_device(CPU).fixed and BatchSizer.for_device(None).size == 1
    sizer = BatchSizer.for_device(SynthDevice("cuda"))
    assert sizer.candidates == list(DEVICE_CANDIDATES) and sizer.unmeasured
    # The measurement itself on a voice that batches (a tiny one, plainly on the CPU: what is
    # measured is the sizer's part, not the device).
    synth = ClipSynthesizer(VoiceLibrary(base_dir=tmp_path), 48_000, ClipCache())
    params = VoiceParams(voice=str(tiny_voices["single"]))
    with Scheduler(synth, RolePriorityPolicy(), batch=sizer) as scheduler:
        futures = [scheduler.submit(request_for(synth, f"Line {i} of the batch test.", "R", params))
                   for i in range(3)]
        for future in futures:
            future.result(timeout=120)
    assert not sizer.unmeasured and set(sizer.measured) == set(DEVICE_CANDIDATES)
    assert sizer.size in DEVICE_CANDIDATES
