"""Piper (VITS) voices through ONNX Runtime.

We own the ONNX sessions (engine/synth/backends/base.py: their threads, providers
and binding) and reuse piper-tts only for what it is made for: espeak-ng
phonemization and the phoneme -> id mapping of each voice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.fsutil import read_regular_bytes
from engine.jsontext import loads_untrusted
from engine.project.engines import PIPER
from engine.synth.backends.base import (
    PAUSE_AFTER,
    BackendCost,
    Inference,
    InferenceSettings,
    LoadedVoice,
    PhonemeUnit,
    Supports,
    VoiceBackend,
)
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.piper.noise import OFFSET_INPUT, NoiseInputs
from engine.synth.backends.piper.prepared_voice import prepared_model
from engine.synth.backends.synth_device import SynthDevice
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.errors import VoiceError
from engine.synth.espeak import ESPEAK_LOCK
from engine.synth.wordtimes import unit_words

# Symbols of a Piper id map that sound in no word: pad, sentence start and end,
# punctuation, stress marks.
_SILENT_SYMBOLS = "_^$!'(),-.:;?\"\u00a1\u00bf\u2014\u2026\u00ab\u00bb\u201c\u201d\u02c8\u02cc"


class PiperVoiceModel(LoadedVoice):
    """A loaded Piper voice: its config read now, its sessions made from the voice
    as prepared for Radioplay (engine/synth/backends/piper/prepared_voice.py)."""

    def __init__(self, info: VoiceInfo, layout: SessionLayout | None = None,
                 providers: list[Any] | None = None, device: SynthDevice | None = None) -> None:
        try:
            from piper import PiperVoice
            from piper.config import PiperConfig
        except ImportError as exc:  # pragma: no cover - a hard dependency
            raise VoiceError("piper-tts is not installed: pip install piper-tts") from exc
        try:
            config = PiperConfig.from_dict(loads_untrusted(read_regular_bytes(info.config_path, 16 << 20)))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise VoiceError(f"unreadable voice config {info.config_path}: {exc}") from None
        super().__init__(info, layout, providers, device)
        self._piper = PiperVoice(session=None, config=config)  # phonemizer and id map; we run the sessions
        self._inputs: set[str] = set()
        self._durations_output: str | None = None
        self._word_id_sets: tuple[frozenset[int], frozenset[int]] | None = None

    def model_source(self) -> str | bytes:
        return prepared_model(self.info.model_path)

    def opened(self, session: Any) -> None:
        self._inputs = {i.name for i in session.get_inputs()}
        # The seeded-noise inputs the patch added (engine.synth.backends.piper.noise), in node order.
        offsets = [name for name in self._inputs if name.startswith(OFFSET_INPUT)]
        self._noise = NoiseInputs(tuple(sorted(offsets, key=lambda name: int(name[len(OFFSET_INPUT):]))))
        outputs = [o.name for o in session.get_outputs()]
        # Piper models patched for alignment (and the test voices) expose the
        # per-phoneme durations as a second output.
        self._durations_output = outputs[1] if len(outputs) > 1 else None

    @property
    def sample_rate(self) -> int:
        return self._piper.config.sample_rate

    @property
    def config(self):  # type: ignore[no-untyped-def]
        return self._piper.config

    def phonemize(self, units: list[str], language: str = "") -> list[PhonemeUnit]:
        """``language`` is the voice config's espeak voice (the argument is for Kokoro)."""
        result: list[PhonemeUnit] = []
        for unit in units:
            with ESPEAK_LOCK:  # espeak-ng is one global C library, shared with Kokoro
                sentences = self._piper.phonemize(unit)
            for phonemes in sentences:
                if not phonemes:
                    continue
                ids = self._piper.phonemes_to_ids(phonemes)
                text = "".join(phonemes)
                end = text.rstrip()[-1:] if text.strip() else "."
                result.append(PhonemeUnit(tuple(ids), text, PAUSE_AFTER.get(end, 0.2)))
        return result

    def settings(self, speed: float, variation: float, speaker: int | str | None,
                 style: str = "") -> InferenceSettings:
        c = self._piper.config
        return InferenceSettings(
            length_scale=c.length_scale / speed,
            noise_scale=c.noise_scale * variation,
            noise_w_scale=c.noise_w_scale * variation,
            speaker_id=self.info.speaker_id(speaker),
        )

    def feeds(self, ids: np.ndarray, lengths: np.ndarray, s: InferenceSettings) -> dict[str, np.ndarray]:
        """Model inputs for a (batch, phonemes) id matrix."""
        self.warm()  # the inputs are the sessions'
        feeds = {
            "input": ids,
            "input_lengths": lengths,
            "scales": np.array([s.noise_scale, s.length_scale, s.noise_w_scale], dtype=np.float32),
        }
        if "sid" in self._inputs:
            sid = 0 if s.speaker_id is None else s.speaker_id
            feeds["sid"] = np.full(ids.shape[0], sid, dtype=np.int64)
        feeds.update(self._noise.feeds(ids, lengths, s.seed))
        return feeds

    @property
    def can_batch(self) -> bool:
        """Batching needs the model's per-phoneme durations to trim padded rows."""
        self.warm()
        return self._durations_output is not None

    def infer_batch(self, units: list[PhonemeUnit], settings: InferenceSettings) -> list[np.ndarray]:
        """Run several units in one padded batch; each row is cut to its true
        length from the durations output (padded tails are not silent: VITS
        keeps generating sound past an item's end)."""
        return [audio for audio, _ in self._run(units, settings, batch=True)]

    def infer(self, unit: PhonemeUnit, settings: InferenceSettings) -> np.ndarray:
        return self._run([unit], settings, batch=False)[0][0]

    def infer_timed(self, units: list[PhonemeUnit], settings: InferenceSettings,
                    batch: bool = False) -> list[Inference]:
        """Inference with each unit's words, timed by the model's own durations
        (fetching that output beside the audio costs nothing measurable)."""
        rate, words = self.sample_rate, self._word_ids()
        return [Inference(audio, unit_words(unit.ids, words[0], words[1], samples, rate))
                for unit, (audio, samples) in zip(units, self._run(units, settings, batch), strict=True)]

    def _word_ids(self) -> tuple[frozenset[int], frozenset[int]]:
        """(word separators, ids that sound in no word) of this voice's id map:
        espeak-ng's space between words; pads, sentence marks, punctuation
        and stress marks."""
        if self._word_id_sets is None:
            id_map = self._piper.config.phoneme_id_map
            separators = frozenset(id_map.get(" ", ()))
            silent = frozenset(i for symbol in _SILENT_SYMBOLS for i in id_map.get(symbol, ()))
            self._word_id_sets = (separators, silent - separators)
        return self._word_id_sets

    def _run(self, units: list[PhonemeUnit], settings: InferenceSettings,
             batch: bool) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """(audio, samples per id or None) per unit: one padded batch when
        ``batch`` and the model can, else one inference each."""
        if not (batch and len(units) > 1 and self.can_batch):
            return [self._run_one(u, settings) for u in units]
        lengths = np.array([len(u.ids) for u in units], dtype=np.int64)
        ids = np.zeros((len(units), int(lengths.max())), dtype=np.int64)
        for row, unit in enumerate(units):
            ids[row, : len(unit.ids)] = unit.ids
        feeds = self.feeds(ids, lengths, settings)
        assert self._durations_output is not None  # can_batch: the graph outputs its durations
        audio, durations = self.run(["output", self._durations_output], feeds)
        hop = self._hop()
        audio = audio.reshape(len(units), -1)
        out: list[tuple[np.ndarray, np.ndarray | None]] = []
        for row, length in enumerate(lengths):
            samples = np.asarray(durations[row, :length], dtype=np.float64) * hop
            end = min(int(samples.sum()), audio.shape[1])
            out.append((self.waveform(audio[row, :end]), samples))
        return out

    def _run_one(self, unit: PhonemeUnit, settings: InferenceSettings) -> tuple[np.ndarray, np.ndarray | None]:
        ids = np.asarray(unit.ids, dtype=np.int64)[None, :]
        lengths = np.array([ids.shape[1]], dtype=np.int64)
        feeds = self.feeds(ids, lengths, settings)  # warms the sessions: the outputs' names are theirs
        names = ["output"] if self._durations_output is None else ["output", self._durations_output]
        result = self.run(names, feeds)
        audio = self.waveform(result[0].reshape(-1))
        samples = np.asarray(result[1], dtype=np.float64).reshape(-1) * self._hop() if len(result) > 1 else None
        return audio, samples

    def _hop(self) -> int:
        return int(getattr(self._piper.config, "hop_length", 256) or 256)


class PiperBackend(VoiceBackend):
    engine = PIPER
    supports = Supports.of(PIPER, durations=True, batching=True)
    # The scheduler's prior until the workers have run the engine here
    # (engine/sched/cost.py), as Kokoro's (bench/backends.py; docs/dev/benchmarks.md,
    # "Engine cost priors").
    cost = BackendCost(seconds_per_audio_second=0.08, seconds_per_phoneme=0.05)
    voice_class = PiperVoiceModel
