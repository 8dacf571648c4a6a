"""A Piper voice is patched by the first process that loads it and read by the next ones
(engine/synth/backends/piper/prepared_voice.py), which then voice the same samples without importing onnx."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from engine.synth.library import VoiceLibrary
from tests.support.paths import REPO

VOICE_A_LINE = """
import json, sys
import numpy as np
from engine.project.model import VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

library = VoiceLibrary()
synth = ClipSynthesizer(library, 48_000, ClipCache())
clip = synth.synthesize("The lamp is lit, and the harbour is quiet.", VoiceParams(voice=sys.argv[1]))
np.save(sys.argv[2], clip)
print(json.dumps({"onnx_imported": "onnx" in sys.modules}))
"""


def _voice_a_line(cache_home: Path, voice: str, out: Path) -> bool:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run([sys.executable, "-c", VOICE_A_LINE, voice, str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return bool(json.loads(done.stdout.splitlines()[-1])["onnx_imported"])


def test_the_second_process_reads_the_patched_voice_and_voices_the_same_samples(tmp_path: Path) -> None:
    joe = VoiceLibrary().bundled()[0]
    home = tmp_path / "cache-home"
    # A file an earlier patch version (or piper-tts) prepared is never read again: the first
    # voice prepared anew deletes it (64 MB each, left forever before).
    stale = home / "radioplay" / "prepared-voices" / f"{joe.model_path.stem}.0123abcd.p0-piper0.1.onnx"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"an older patch's graph")
    assert _voice_a_line(home, str(joe.model_path), tmp_path / "first.npy")  # it patched the voice
    prepared = list((home / "radioplay" / "prepared-voices").glob("*.onnx"))
    assert [p.name.split(".")[0] for p in prepared] == [joe.model_path.stem] and not stale.exists()
    assert not _voice_a_line(home, str(joe.model_path), tmp_path / "second.npy")  # it read the patched file
    first, second = np.load(tmp_path / "first.npy"), np.load(tmp_path / "second.npy")
    assert first.size > 24_000 and np.array_equal(first, second)  # the seeded noise, sample for sample
    # A prepared file damaged on disk is patched again, not a voice that fails to load.
    whole = prepared[0].read_bytes()
    prepared[0].write_bytes(whole[: len(whole) // 2])
    assert _voice_a_line(home, str(joe.model_path), tmp_path / "repaired.npy")
    assert prepared[0].read_bytes() == whole
    assert np.array_equal(np.load(tmp_path / "repaired.npy"), first)
    # Another voice file (here joe's graph with one unknown protobuf field more, which every
    # reader skips) is patched for itself, though its name is the same.
    other = tmp_path / "voices" / joe.model_path.name
    other.parent.mkdir()
    shutil.copy(joe.config_path, other.with_name(other.name + ".json"))
    other.write_bytes(joe.model_path.read_bytes() + b"\x98\x06\x01")  # field 99, varint 1
    assert _voice_a_line(home, str(other), tmp_path / "third.npy")
    assert len(list((home / "radioplay" / "prepared-voices").glob("*.onnx"))) == 2
    assert np.array_equal(np.load(tmp_path / "third.npy"), first)
