"""The contract every voice engine keeps, and the part of it written once for all.

A backend (:class:`VoiceBackend`) is an engine's entry in the registry: its row of
the project floor's table (engine/project/engines.py), what it supports, what a
second of its audio costs, and how it loads a voice. A loaded voice
(:class:`LoadedVoice`) is what the synthesizer, the scheduler and the benchmarks talk
to: its sample rate, ``phonemize`` (text -> id sequences, CPU, cheap) and ``infer``
(ids -> audio, the expensive part), split so the pipeline can overlap them, and a
prior for its output length.

Every engine runs ONNX graphs, so the sessions are the base's: made on first
inference (planning needs only the config), warmed on demand, lent one caller at a
time and run in :meth:`LoadedVoice.run`. Where a session runs (its execution
providers) and how its inputs and outputs are bound are decided there and in
:meth:`LoadedVoice._make_sessions`, once for every engine; an engine says only what
its sessions are made from (:meth:`LoadedVoice.model_source`) and what it reads of a
new one (:meth:`LoadedVoice.opened`), and hands its waveform on through
:meth:`LoadedVoice.waveform`.

A voice loaded for a synthesis device (``device``: engine/synth/backends/synth_device.py)
runs with IO binding: its waveform output bound on that device (CPU or CUDA), handed on
as a view of ONNX Runtime's buffer there, which the synthesizer gathers in its device
pool and copies to the host once per clip (``ClipSynthesizer.land``). Without a device
the session runs plainly and the waveform is a host array, as the benchmarks' bare
sessions and the voices made outside a verb (casting, the speech check) run.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from engine.project.engines import VoiceEngine
from engine.synth.backends.onnx_sessions import (
    SessionLayout,
    SessionPool,
    bound_run,
    make_session,
    run_options,
)
from engine.synth.backends.synth_device import SynthDevice
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.errors import VoiceError
from engine.synth.wordtimes import UnitWords

# Silence inserted after a sentence, by how it ends: a question or an
# exclamation breathes a little longer than a comma-split clause.
PAUSE_AFTER = {".": 0.28, "?": 0.32, "!": 0.30, ",": 0.12, ";": 0.18, ":": 0.18}


@dataclass(frozen=True)
class PhonemeUnit:
    """One sentence worth of model input and how it should be followed."""

    ids: tuple[int, ...]
    phonemes: str
    pause_after: float  # seconds of silence before the next unit
    phrase: int = 0  # which phrase of a directed line it belongs to (engine/synth/performance.py)


@dataclass(frozen=True)
class InferenceSettings:
    """Per-request model settings derived from a role's VoiceParams."""

    length_scale: float
    noise_scale: float
    noise_w_scale: float
    speaker_id: int | None
    style: str = ""  # Kokoro: the style vector (or canonical blend) to speak with
    seed: int = 0  # the take: same seed, same samples (engine.synth.backends.piper.noise)


@dataclass(frozen=True)
class Inference:
    """One unit's raw model audio and where its spoken words lie in it. From a voice
    on a synthesis device, ``audio`` is the device's view of the waveform (numpy on
    the CPU, a torch tensor on CUDA) until the synthesizer lands it on the host."""

    audio: np.ndarray
    words: UnitWords


@dataclass(frozen=True)
class BackendCost:
    """What planning knows of a backend before it has run here.

    ``seconds_per_audio_second``: inference time per second of model audio on
    one single-threaded session of this CPU (the scheduler replaces it with
    what it measures). ``seconds_per_phoneme``: output length per phoneme
    unit, the length predictor's prior.
    """

    seconds_per_audio_second: float
    seconds_per_phoneme: float


@dataclass(frozen=True)
class Supports:
    """What an engine can do. ``speakers`` and ``blends`` are its table row's (what a
    project may write); ``durations``: its graphs output per-phoneme durations (word
    timings exact, not spread); ``batching``: padded batches of several units. A loaded
    voice may still lack what its engine supports (``LoadedVoice.can_batch``)."""

    speakers: bool
    blends: bool
    durations: bool
    batching: bool

    @staticmethod
    def of(engine: VoiceEngine, durations: bool, batching: bool) -> Supports:
        return Supports(engine.speakers, engine.blends, durations, batching)


class LoadedVoice(ABC):
    """A loaded model. Thread-safe: each inference borrows one of the voice's
    sessions, so up to ``layout.sessions`` lines run at once."""

    what = "voice model"  # the load error's name for the model: "cannot load voice model PATH: ..."
    # Whether the voice adds one more session, on every core, lent to the line a listener
    # waits for (onnx_sessions.wide_runs) where the layout asks for one: an engine whose
    # lines cost about as long to voice as to hear on one core. A quick engine keeps up on
    # one core and saves the session's memory.
    wide_session: ClassVar[bool] = False

    def __init__(self, info: VoiceInfo, layout: SessionLayout | None = None,
                 providers: Sequence[Any] | None = None, device: SynthDevice | None = None) -> None:
        self.info = info
        self.layout = layout or SessionLayout()
        self.device = device
        chosen = providers or (device.providers if device is not None else None)
        self.providers = list(chosen) if chosen else None
        wide = self.wide_session and self.layout.wide_threads > 0
        self._pool = SessionPool(self._make_sessions, self._make_wide if wide else None)

    # ---- the sessions: made, warmed, lent and run here alone --------------------------

    def _make_sessions(self) -> list[object]:
        layout = self.layout
        try:
            source = self.model_source()
            sessions = [make_session(source, layout.threads_per_session, self.providers, layout.spin)
                        for _ in range(max(1, layout.sessions))]
        except Exception as exc:  # ORT raises its own exception types
            raise VoiceError(f"cannot load {self.what} {self.info.model_path}: {exc}") from None
        self.opened(sessions[0])
        return list(sessions)

    def _make_wide(self) -> object:
        """The session on every core, for the line a listener waits for."""
        try:
            return make_session(self.model_source(), self.layout.wide_threads, self.providers)
        except Exception as exc:  # ORT raises its own exception types
            raise VoiceError(f"cannot load {self.what} {self.info.model_path}: {exc}") from None

    def warm(self) -> None:
        """Create the inference sessions now (the first line need not wait for them);
        loading a voice reads only what planning needs."""
        self._pool.warm()

    @property
    def session(self) -> Any:
        """The first inference session (created now if it is not yet)."""
        return self._pool.sessions()[0]

    def run(self, outputs: list[str] | None, feeds: dict[str, np.ndarray]) -> list[Any]:
        """One run of the graph on a free session (``outputs`` None: all of them), stoppable
        by whoever made the calling thread's run options so (``run_options``)."""
        with self._pool.borrow() as session:
            if self.device is not None:
                return bound_run(session, outputs, feeds, run_options(), self.device.kind, self.device.index)
            return session.run(outputs, feeds, run_options())  # type: ignore[attr-defined,no-any-return]

    def waveform(self, audio: Any) -> np.ndarray:
        """A unit's audio as the engine hands it on (1-D): a contiguous float32 host array
        from a plain run, the device's view itself from a bound one (no copy here: the
        synthesizer copies each clip to the host once)."""
        if self.device is None:
            return np.ascontiguousarray(audio, dtype=np.float32)
        return audio  # type: ignore[no-any-return]

    @abstractmethod
    def model_source(self) -> str | bytes:
        """What the sessions are made from: a model file's path, or its bytes."""

    @abstractmethod
    def opened(self, session: Any) -> None:
        """Read what inference needs of a new session (its input and output names)."""

    # ---- what the engine does --------------------------------------------------------

    @property
    @abstractmethod
    def sample_rate(self) -> int: ...

    @property
    def can_batch(self) -> bool:
        """Whether :meth:`infer_batch` runs several units as one padded batch."""
        return False

    @abstractmethod
    def phonemize(self, units: list[str], language: str = "") -> list[PhonemeUnit]: ...

    @abstractmethod
    def settings(self, speed: float, variation: float, speaker: int | str | None,
                 style: str = "") -> InferenceSettings: ...

    @abstractmethod
    def infer(self, unit: PhonemeUnit, settings: InferenceSettings) -> np.ndarray: ...

    def infer_batch(self, units: list[PhonemeUnit], settings: InferenceSettings) -> list[np.ndarray]:
        return [self.infer(u, settings) for u in units]

    @abstractmethod
    def infer_timed(self, units: list[PhonemeUnit], settings: InferenceSettings,
                    batch: bool = False) -> list[Inference]:
        """``infer`` (or ``infer_batch`` with ``batch``) with each unit's word
        timings; the synthesis paths use this, so every clip has them."""

    def word_timed(self, units: list[PhonemeUnit], inferred: list[Inference],
                   settings: InferenceSettings) -> list[Inference]:
        """``inferred`` with its words where the model put them, for an engine whose
        ``infer_timed`` only estimates them and that can say more at a cost (a take
        moved onto a producer's read needs them: engine/synth/read_transfer.py); as
        it is by default."""
        return inferred


class VoiceBackend:
    """An engine as the registry holds it. The class says what the engine is (``engine``,
    ``supports``, ``cost``, ``voice_class``); an instance loads voices on one session
    layout and set of execution providers, shared by every voice it loads."""

    engine: ClassVar[VoiceEngine]
    supports: ClassVar[Supports]
    cost: ClassVar[BackendCost]
    voice_class: ClassVar[type[LoadedVoice]]
    # Whether a voice design may shorten its voices' vocal tract (formant above 1) and
    # keep their words; the measured cast never does over an engine that may not.
    tract_may_shorten: ClassVar[bool] = True

    def __init__(self, layout: SessionLayout | None = None, providers: Sequence[Any] | None = None,
                 device: SynthDevice | None = None) -> None:
        self.layout = layout or SessionLayout()
        self.providers = providers
        self.device = device

    @property
    def name(self) -> str:
        return self.engine.name

    def load(self, info: VoiceInfo) -> LoadedVoice:
        return self.voice_class(info, self.layout, self.providers, self.device)

    @staticmethod
    def native_language(info: VoiceInfo) -> str:
        """The language a voice was made to speak (its accent), for casting: its config's."""
        return info.language
