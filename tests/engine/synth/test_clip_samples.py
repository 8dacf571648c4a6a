"""Issue 57: a clip read back from the cache that is empty or not finite is removed and the
line voiced again; a model that makes samples that are not finite fails its line, and such
a clip is never stored."""

from __future__ import annotations

import numpy as np
import pytest

from engine.project.model import VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.clipfolder import ClipFolder, usable_samples
from engine.synth.errors import VoiceError
from engine.synth.synthesizer import ClipSynthesizer

TEXT = "The lamp is lit."


def _spoiled(clip: np.ndarray, kind: str) -> np.ndarray:
    """The hostile clips the cache may hold (a torn write by another program, a disk error,
    a hand-made file): generated here, never checked in."""
    if kind == "empty":
        return np.zeros(0, dtype=np.float32)
    spoiled = np.array(clip, dtype=np.float32)
    if kind == "nan":
        spoiled[spoiled.size // 2:] = np.nan
    elif kind == "one-nan":
        spoiled[spoiled.size // 3] = np.nan
    elif kind == "inf":
        spoiled[7] = -np.inf
    return spoiled


KINDS = ["empty", "nan", "one-nan", "inf"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_spoiled_clip_on_disk_is_removed_and_voiced_again(tiny_synth: ClipSynthesizer, tiny_voices, kind: str
                                                            ) -> None:
    params = VoiceParams(voice=str(tiny_voices["single"]))
    genuine = np.array(tiny_synth.synthesize(TEXT, params))
    plan = tiny_synth.plan(TEXT, params)
    folder = tiny_synth.cache.disk
    assert folder is not None
    folder.save(plan.key, _spoiled(genuine, kind))
    # A new process over the same folder: nothing in memory, the spoiled file on disk.
    fresh = ClipSynthesizer(tiny_synth.library, 48_000, ClipCache(folder.directory))
    assert fresh.cache.get(plan.key) is None  # never served: the old code served it, and mixed it
    assert not folder.path(plan.key).exists() and not folder.words_path(plan.key).exists()
    again = fresh.synthesize(TEXT, params)
    assert np.array_equal(again, genuine)
    assert np.array_equal(np.load(folder.path(plan.key)), genuine)  # written anew


@pytest.mark.parametrize("kind", KINDS)
def test_a_spoiled_staged_clip_is_not_served(tmp_path, kind: str) -> None:
    folder = ClipFolder(tmp_path / "clips")
    stereo = np.stack([_spoiled(np.full(4800, 0.25, np.float32), kind)] * 2, axis=1)
    folder.save("staged", np.ascontiguousarray(stereo))
    assert folder.load_staged("staged") is None and not folder.path("staged").exists()


def test_usable_samples_is_every_sample_finite_and_at_least_one() -> None:
    assert usable_samples(np.full(10, 1e38, np.float32))  # huge but finite: the float64 sum does not overflow
    assert not usable_samples(np.zeros(0, np.float32))
    assert not usable_samples(np.array([0.0, np.inf, -np.inf], np.float32))  # inf - inf: still caught


def test_a_model_that_makes_samples_that_are_not_finite_fails_its_line(tiny_synth: ClipSynthesizer, tiny_voices
                                                                        ) -> None:
    plan = tiny_synth.plan(TEXT, VoiceParams(voice=str(tiny_voices["single"])))
    raw = tiny_synth.infer(plan)
    raw.pieces[0][raw.pieces[0].size // 2] = np.nan  # what a damaged model file would give
    with pytest.raises(VoiceError, match=r"made samples that are not finite \(NaN or infinity\)"):
        tiny_synth.finish(raw)
    assert plan.key not in tiny_synth.cache  # never stored, so never mixed
