"""A synthesizer over a project's own voices, as radioplay render makes it."""

from __future__ import annotations

from pathlib import Path

from engine.synth.cache import ClipCache, cache_dir_for
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer


def synth_for(project_path: Path, rate: int = 48_000) -> ClipSynthesizer:
    return ClipSynthesizer(VoiceLibrary(base_dir=project_path.parent), rate, ClipCache(cache_dir_for(project_path)))
