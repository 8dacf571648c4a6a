"""The engines' room (engine/synth/backends/): the registry, and what every engine's
backend shares on its base."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.project.engines import engine_names
from engine.project.model import VoiceParams
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.registry import backend_class, make_backends
from engine.synth.cache import ClipCache
from engine.synth.catalogue import parse_catalogue
from engine.synth.errors import CatalogueError, VoiceError
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.voices.generate_test_kokoro import generate_kokoro


def test_an_engine_no_backend_has_is_one_line_naming_those_there_are() -> None:
    with pytest.raises(VoiceError) as caught:
        backend_class("vits")
    assert str(caught.value) == "unknown voice backend 'vits' (available: piper, kokoro)"


def test_every_engine_loads_its_voices_on_the_synthesizers_layout(tmp_path: Path, tiny_voices) -> None:
    """One layout for every engine: the scheduler runs one worker per session of it,
    whichever engine a line is on, so a Kokoro voice has as many sessions as a Piper one."""
    generate_kokoro(tmp_path)
    layout = SessionLayout(2, 1)
    assert [b.layout for b in make_backends(layout).values()] == [layout] * len(engine_names())
    synth = ClipSynthesizer(VoiceLibrary(user_dir=tmp_path), 24_000, ClipCache(), layout)
    piper = synth.plan("Hello.", VoiceParams(voice=str(tiny_voices["single"])))
    kokoro = synth.plan("Hello.", VoiceParams(backend="kokoro", voice="af_alpha"))
    for plan in (piper, kokoro):
        model = synth.warm(plan.voice)
        assert model.layout is layout and len(model._pool.sessions()) == 2
        assert synth.finish(synth.infer(plan)).size > 0  # each runs through the base's sessions
    assert synth.supports(piper).batching and not synth.supports(kokoro).batching


def test_a_catalogue_entry_of_an_engine_this_version_lacks_is_one_line() -> None:
    entry = {"key": "x", "language": {"code": "en_US"}, "backend": "vits",
             "files": {"x.onnx": {"size_bytes": 1, "md5_digest": "0" * 32}}}
    with pytest.raises(CatalogueError) as caught:
        parse_catalogue(json.dumps({"x": entry}), "voices.json")
    assert str(caught.value) == "voices.json: voice 'x': backend: unknown voice engine 'vits' (known: piper, kokoro)"
