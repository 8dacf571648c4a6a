"""Where PortAudio is missing, playback falls back to the null output and
says how to get sound, instead of crashing (run in a child process whose
library lookup cannot find PortAudio)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.support.paths import REPO

CHILD = textwrap.dedent("""
    import ctypes.util
    real = ctypes.util.find_library
    ctypes.util.find_library = lambda name: None if "portaudio" in name else real(name)

    from engine.audio.portaudio import portaudio_error, output_devices
    from engine.audio.sinks import open_sink, NullSink
    from engine.audio.ring import FrameRing

    problem = portaudio_error()
    assert problem is not None and "libportaudio2" in problem, problem
    assert output_devices() == []
    sink, error = open_sink(48000, None)
    assert isinstance(sink, NullSink) and error == problem, (sink, error)
    sink, error = open_sink(48000, "Built-in Audio")
    assert isinstance(sink, NullSink) and "libportaudio2" in error
    assert FrameRing(1024).portaudio_ring is None  # the ring still works, with Python indices
    print("OK", problem)
""")


def test_missing_portaudio_falls_back_to_the_null_output_and_says_how_to_fix_it() -> None:
    result = subprocess.run([sys.executable, "-c", CHILD], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "OK" in result.stdout and "apt-get install libportaudio2" in result.stdout
