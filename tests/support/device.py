"""The synthesis device the device tests (``pytest -m device``) run on: RADIOPLAY_TEST_DEVICE,
``cpu`` unless set. ``make gpu-check`` (bench/device_check.py) sets it to the GPU and runs them
there; everywhere else they run the same binding path on the CPU provider."""

from __future__ import annotations

import os

from engine.synth.backends.synth_device import SynthDevice, choose_device

DEVICE_ENV = "RADIOPLAY_TEST_DEVICE"


def asked_device() -> str:
    """``--device`` as the device tests ask for it: ``cpu``, ``cuda``, ``cuda:1``."""
    return os.environ.get(DEVICE_ENV, "cpu")


def device_under_test() -> SynthDevice:
    """The device the device tests bind their runs on (a name that is not here fails, in one line)."""
    return choose_device(asked_device())


def on_cpu() -> bool:
    """Whether the device under test is the CPU: there a bound run is sample-identical to a plain one."""
    return device_under_test().kind == "cpu"
