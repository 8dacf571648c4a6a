"""A voice session's memory must not grow with the number of lines voiced.

ONNX Runtime's memory pattern keeps a plan per input shape seen, and its CPU arena
keeps what its largest run grew to; every line has its own length, so both grew with
a production's length (a 60-minute render peaked at 1.7 GB; bench/memprobe.py
measures it). Sessions keep no memory pattern, and every run gives its arena back
(engine/synth/backends/onnx_sessions.py ``run_options``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.synth.backends.onnx_sessions import make_session
from tests.support.paths import REPO

# Runs in a child, so that nothing else this worker holds moves its heap: the bundled
# voice, loaded as a render loads it (one single-threaded session), voices a short line,
# then lines of 300-400 phonemes and short ones between, as a script's would come; prints
# how far its anonymous memory grew (MiB).
_GROWTH = """
from engine.synth.backends.base import PhonemeUnit
from engine.synth.library import VoiceLibrary
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.piper.backend import PiperBackend

def anonymous_mib():
    with open("/proc/self/status") as status:
        return next(int(row.split()[1]) / 1024 for row in status if row.startswith("RssAnon"))

model = PiperBackend(SessionLayout(1, 1)).load(VoiceLibrary().bundled()[0])
settings = model.settings(1.0, 1.0, None)
def voice(length):
    ids = (1, *((i * 7) % 90 + 5 for i in range(length)), 2)
    assert model.infer(PhonemeUnit(ids, "", 0.0), settings).size > 0
voice(20)
before = anonymous_mib()
for length in (400, 30, 350, 60, 300, 20):
    voice(length)
print(anonymous_mib() - before)
"""


def test_sessions_keep_no_plan_per_input_shape(tiny_voices: dict[str, Path]) -> None:
    # The plans' growth shows over hundreds of lengths (+124 MiB over 200 lines), too
    # many lines to voice here; bench/memprobe.py's `nopattern` variants measure it.
    model = next(p for p in tiny_voices.values() if p.suffix == ".onnx")
    assert make_session(str(model), 1).get_session_options().enable_mem_pattern is False


def test_a_session_gives_its_memory_back_after_long_lines() -> None:
    # Measured: +35-38 MiB with the arena given back after each run, +292 MiB when the
    # arena keeps what its largest run grew to (2026-12-07).
    grown = subprocess.run([sys.executable, "-c", _GROWTH], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert grown.returncode == 0, grown.stderr
    assert float(grown.stdout) < 150, f"a session's memory grew {float(grown.stdout):.0f} MiB over six lines"


def test_a_session_made_from_bytes_does_not_keep_them(tiny_voices: dict[str, Path]) -> None:
    """The patched voice (64 MB for the bundled one) is made in memory; the
    sessions must not hold it for the whole render."""
    model = next(p for p in tiny_voices.values() if p.suffix == ".onnx")
    data = model.read_bytes()
    before = sys.getrefcount(data)
    session = make_session(data, 1)
    assert sys.getrefcount(data) == before
    assert session.get_inputs()[0].name == "input"
