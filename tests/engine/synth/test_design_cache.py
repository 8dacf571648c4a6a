"""The voice design is part of the clip cache key; the neutral design keys as before designs."""

from __future__ import annotations

import hashlib
import json

from engine import ENGINE_VERSION
from engine.project.design import VoiceDesign
from engine.project.model import VoiceParams
from engine.synth.cache import clip_key

UNITS = ("Hello there.",)


def key(params: VoiceParams) -> str:
    return clip_key(UNITS, (), "en_US-joe-medium:sha256:abcd", params, None, 48000, seed=3)


def test_the_neutral_design_keys_exactly_as_before_designs() -> None:
    """The payload clip_key hashed before designs existed, written out: caches made then stay valid."""
    params = VoiceParams(speed=1.1)
    payload = {"engine": ENGINE_VERSION, "text": list(UNITS), "lexicon": [], "voice": "en_US-joe-medium:sha256:abcd",
               "backend": params.backend, "speaker": None, "speed": 1.1, "variation": round(params.variation, 6),
               "pitch": 0.0, "rate": 48000, "seed": 3}
    before = hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]
    assert key(params) == before


def test_every_design_field_changes_the_key() -> None:
    plain = key(VoiceParams())
    keys = {plain}
    for field, value in [("f0_shift", 3.0), ("f0_range", 1.5), ("f0_slope", -2.0), ("formant", 1.1),
                         ("breathiness", 0.3), ("jitter", 0.02), ("tilt", 2.0), ("rate", 1.2), ("gain", 3.0)]:
        keys.add(key(VoiceParams(design=VoiceDesign().with_changes(**{field: value}))))
    assert len(keys) == 10


def test_the_same_design_keys_the_same() -> None:
    a = VoiceParams(design=VoiceDesign(f0_shift=10.0, formant=1.17))
    b = VoiceParams(design=VoiceDesign.from_dict({"formant": 1.17, "f0_shift": 10}))
    assert key(a) == key(b)


def test_a_pitch_shift_is_not_the_clip_it_was_before_the_design_path() -> None:
    """Pitch now goes through the design's WORLD path (up shifts were Rubber Band): new samples, new key."""
    payload = {"engine": ENGINE_VERSION, "text": list(UNITS), "lexicon": [], "voice": "en_US-joe-medium:sha256:abcd",
               "backend": "piper", "speaker": None, "speed": 1.0, "variation": round(VoiceParams().variation, 6),
               "pitch": 2.0, "rate": 48000, "seed": 3}
    before = hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]
    assert key(VoiceParams(pitch=2.0)) != before
