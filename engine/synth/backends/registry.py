"""Which backend voices an engine: its name (engine/project/engines.py) -> its backend.

One line per engine, in the table's order. A new engine is its folder beside
piper/ and kokoro/ (a VoiceBackend on the base in base.py), its row in the
project floor's table and its line here (docs/dev/voices.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.project.engines import engine_names
from engine.synth.backends.base import BackendCost, VoiceBackend
from engine.synth.backends.kokoro.backend import KokoroBackend
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.piper.backend import PiperBackend
from engine.synth.backends.synth_device import SynthDevice
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.errors import VoiceError

BACKENDS: dict[str, type[VoiceBackend]] = {backend.engine.name: backend for backend in (
    PiperBackend,
    KokoroBackend,
)}


def backend_class(name: str) -> type[VoiceBackend]:
    """The backend of engine ``name``; a VoiceError naming the engines there are if none."""
    try:
        return BACKENDS[name]
    except KeyError:
        raise VoiceError(f"unknown voice backend {name!r} (available: {', '.join(engine_names())})") from None


def make_backends(layout: SessionLayout | None = None, providers: Sequence[Any] | None = None,
                  device: SynthDevice | None = None) -> dict[str, VoiceBackend]:
    """Every engine's backend on one session layout (the scheduler runs one inference
    worker per session of it, whichever engine a line is on), one set of providers and
    one synthesis device (its runs bound there: engine/synth/backends/base.py)."""
    return {name: backend(layout, providers, device) for name, backend in BACKENDS.items()}


def cost_priors() -> dict[str, BackendCost]:
    """What a second of each engine's audio costs before it has run here."""
    return {name: backend.cost for name, backend in BACKENDS.items()}


def native_language(info: VoiceInfo) -> str:
    """The language a voice was made to speak (its accent), as its engine tells it."""
    return backend_class(info.backend).native_language(info)
