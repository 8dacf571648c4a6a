"""``radioplay serve --device``: the service synthesizes on the device under test
(tests/support/device.py), says where and why, and its /metrics carry the synthesis device,
the pools' use, fragmentation and high-water mark, and one device-to-host copy per clip."""

from __future__ import annotations

import re

import pytest

from engine.cli import main
from engine.synth.backends.synth_device import cuda_offered
from tests.support.device import asked_device, device_under_test
from tests.support.serve import http, tts, wait_for, wav


@pytest.mark.device
def test_metrics_say_where_synthesis_runs_and_what_the_pools_hold(serve) -> None:
    device = device_under_test()
    server = serve(device=asked_device())
    assert server.service.synth.device == device
    for text in ("One line. Of two sentences.", "Another line, one sentence."):
        wav(tts(server, "ROLE1", text))
    wait_for(lambda: server.service.hub.snapshot().requests >= 2, "the requests to be recorded")

    def scraped() -> str:
        return http("GET", f"{server.metrics_url}/metrics").body.decode()

    pool = f"device:{device.name}"
    wait_for(lambda: "radioplay_device_pool_host_copies_total 2.0" in scraped(), "the tick to publish the pool")
    text = scraped()
    assert re.search(rf'radioplay_synthesis_device_info\{{asked="{device.asked}",device="{device.name}",'
                     rf'reason="[^"]+"\}} 1\.0', text)
    for state in ("used", "free", "largest_free", "high_water"):
        assert f'radioplay_pool_bytes{{pool="{pool}",state="{state}"}}' in text
        assert f'radioplay_pool_bytes{{pool="host",state="{state}"}}' in text
    high = float(re.search(rf'radioplay_pool_bytes\{{pool="{pool}",state="high_water"\}} (\S+)', text).group(1))
    assert high > 0
    assert f'radioplay_pool_fragmentation{{pool="{pool}"}}' in text
    assert "radioplay_device_pool_clips_total 2.0" in text


@pytest.mark.skipif(cuda_offered(), reason="ONNX Runtime offers CUDA here")
def test_serve_on_a_gpu_that_is_not_here_is_one_line(project_file, capsys) -> None:
    assert main(["serve", str(project_file), "--port", "0", "--metrics-port", "0", "--device", "cuda:0"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("radioplay: error: --device cuda:0: onnxruntime ")
