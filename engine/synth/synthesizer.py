"""From a line's text and its role's VoiceParams to a finished clip.

One request goes through three stages, which the render pipeline and later
the scheduler run on different threads so they overlap:

1. ``plan``      text frontend + voice lookup + cache key (cheap, may fail early)
2. ``infer``     phonemes -> raw model audio (ONNX; releases the GIL)
3. ``finish``    trim, join, voice design (pitch folded in), level, gain, resample -> clip at the project rate
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.memory.arena import Allocation
from engine.memory.device_pool import DevicePool
from engine.memory.predictor import LengthPredictor
from engine.project.bounds import line_overstep, planned_size
from engine.project.defaults import LINE_BOUNDS
from engine.project.direction import DirectedLine, parse_line
from engine.project.model import Timing, VoiceParams
from engine.synth import performance, read_transfer, shaping
from engine.synth.backends.base import (
    BackendCost,
    Inference,
    InferenceSettings,
    LoadedVoice,
    PhonemeUnit,
    Supports,
    VoiceBackend,
)
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.registry import make_backends
from engine.synth.backends.synth_device import SynthDevice, device_pool, layout_for
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.cache import ClipCache, clip_key
from engine.synth.clipfolder import usable_samples
from engine.synth.errors import TextError, VoiceError
from engine.synth.frontend import PreparedText, prepare
from engine.synth.lexicon_check import used_problem
from engine.synth.library import VoiceLibrary
from engine.synth.wordtimes import ClipWords, UnitWords, clip_words


@dataclass(frozen=True)
class ClipPlan:
    key: str
    prepared: PreparedText
    params: VoiceParams
    voice: VoiceInfo
    settings: InferenceSettings
    # A directed line's phrases, each performed its own way (engine/synth/performance.py);
    # empty for a plain line, which goes through ``settings`` as a whole.
    phrases: tuple[performance.PhrasePlan, ...] = ()
    trailing_pause: float = 0.0  # a timing direction after the last words
    # A take directed by a producer's read (engine/synth/read_transfer.py): the line voiced
    # plainly, then moved onto the read; None for every other take.
    read: read_transfer.ReadDirection | None = None


@dataclass
class RawAudio:
    plan: ClipPlan
    pieces: list[np.ndarray]
    pauses: list[float]
    sample_rate: int
    phonemes: int = 0  # model input length, for the output-length predictor
    reservation: Allocation[np.ndarray] | None = None  # arena room taken before inference
    words: list[UnitWords] | None = None  # per piece, where its spoken words lie (engine.synth.wordtimes)
    phrase_of: list[int] | None = None  # per piece, its phrase of a directed line (PhonemeUnit.phrase)

    @property
    def seconds(self) -> float:
        """Model output length, before trimming: the unit of the ONNX ceiling."""
        return float(sum(p.shape[0] for p in self.pieces)) / self.sample_rate


class ClipSynthesizer:
    """Thread-safe. Loaded voices are shared; ``synth_calls`` counts inferences
    so tests can prove that unchanged lines are never synthesized again.

    With a synthesis ``device`` every run is bound on it (engine/synth/backends/base.py)
    and each clip's model output gathers in :attr:`device_pool`, in room the length
    predictor sized before inference, and crosses to the host once (:meth:`land`)."""

    def __init__(self, library: VoiceLibrary, sample_rate: int, cache: ClipCache | None = None,
                 layout: SessionLayout | None = None, providers: Sequence[Any] | None = None,
                 device: SynthDevice | None = None) -> None:
        self.library = library
        self.sample_rate = sample_rate
        self.cache = cache if cache is not None else ClipCache()
        # Every backend spreads its sessions the same way (the scheduler runs
        # one inference worker per session of that layout), on the same execution
        # providers (ONNX Runtime's; the CPU's when none are named) and device.
        self.layout = layout or SessionLayout()
        self.device = device
        self.backends: dict[str, VoiceBackend] = make_backends(self.layout, providers, device)
        self._voices: dict[str, LoadedVoice] = {}
        self._lock = threading.Lock()
        self.synth_calls = 0
        # Clip length (frames at the project rate) from phoneme count and speed,
        # so a block of the right size is taken before inference.
        self.predictor = LengthPredictor(sample_rate)
        # On a device: the model's output length (its own rate), for the device pool's room.
        self.raw_lengths = LengthPredictor(sample_rate)
        self.device_pool: DevicePool[Any] | None = device_pool(device) if device is not None else None

    @staticmethod
    def length_key(plan: ClipPlan) -> str:
        """Lengths depend on the voice and speaker (Kokoro: style), not on pitch or text."""
        return f"{plan.voice.model_path}#{plan.settings.speaker_id}{plan.settings.style}"

    @staticmethod
    def length_scale(plan: ClipPlan) -> float:
        """How much longer than the model's natural pace the finished clip is:
        the model's own length scale, then the design's rate."""
        return plan.settings.length_scale / plan.params.effective_design.rate

    def cost(self, plan: ClipPlan) -> BackendCost:
        """What a second of this plan's audio costs its backend (scheduler, outlook)."""
        return self.backends[plan.voice.backend].cost

    def supports(self, plan: ClipPlan) -> Supports:
        """What this plan's backend can do (the scheduler batches only where it batches)."""
        return self.backends[plan.voice.backend].supports

    def reserve(self, plan: ClipPlan, units: list[PhonemeUnit]) -> Allocation[np.ndarray] | None:
        """Take arena room for the clip before inference (predicted size plus margin): the
        host pool's for the finished clip (returned) and, on a device, the device pool's
        for the model's output."""
        phonemes = sum(len(u.ids) for u in units)
        if self.device_pool is not None:
            self.device_pool.reserve(plan.key, self.raw_lengths.reserve_size(
                self.length_key(plan), phonemes, plan.settings.length_scale))
        frames = self.predictor.reserve_size(self.length_key(plan), phonemes, self.length_scale(plan))
        return self.cache.reserve(plan.key, frames)

    def release(self, key: str) -> None:
        """Give back the room :meth:`reserve` took for a clip whose synthesis failed or
        was stopped."""
        self.cache.release(key)
        if self.device_pool is not None:
            self.device_pool.release(key)

    def land(self, plan: ClipPlan, units: list[PhonemeUnit], inferred: list[Inference],
             reservation: Allocation[np.ndarray] | None = None) -> list[np.ndarray]:
        """One clip's units' audio on the host. From a plain run it is there already; from a
        device it is gathered in the device pool and copied to the host once, into the host
        pool's room for the clip (``reservation``) when the model's output fits there (the
        finished clip is written over it by ``finish``), else into an array of its own."""
        pieces = [i.audio for i in inferred]
        if self.device_pool is None:
            return pieces
        host = None
        if reservation is not None and reservation.live:
            host = reservation.arena.buffer[reservation.offset:reservation.offset + reservation.capacity]
        landed = self.device_pool.land(plan.key, pieces, host)
        if units:
            self.raw_lengths.observe(self.length_key(plan), sum(len(u.ids) for u in units),
                                     plan.settings.length_scale, sum(p.shape[0] for p in landed))
        return landed

    def voice(self, info: VoiceInfo) -> LoadedVoice:
        """The loaded model (Kokoro: one per model file, shared by its style vectors)."""
        key = f"{info.backend}:{info.model_path}"
        with self._lock:
            model = self._voices.get(key)
        if model is None:
            backend = self.backends.get(info.backend)
            if backend is None:
                raise VoiceError(f"unsupported voice backend {info.backend!r}")
            model = backend.load(info)
            with self._lock:
                model = self._voices.setdefault(key, model)
        return model

    def warm(self, info: VoiceInfo) -> LoadedVoice:
        """The voice loaded with its inference ready, so the first line does
        not wait for it (``voice`` alone loads what planning needs)."""
        model = self.voice(info)
        model.warm()
        return model

    def plan(self, text: str, params: VoiceParams, lexicon: Mapping[str, str] | None = None,
             seed: int = 0, note: str = "", timing: Timing | None = None,
             read: read_transfer.ReadDirection | None = None) -> ClipPlan:
        """Raises TextError / VoiceError naming the problem; the caller adds the line/role.
        ``seed`` is the take: the same seed gives the same samples. ``text`` is
        the line as written: its directions (and the Delivery ``note``) are
        performed, never spoken; ``timing``: the project's pause lengths. A take
        directed by a ``read`` is performed as the read goes instead: its
        directions are the reader's, so the line is voiced plainly first."""
        if params.backend not in self.backends:
            raise VoiceError(f"unknown voice backend {params.backend!r} (available: {', '.join(self.backends)})")
        # The bounds again (engine/project/bounds.py): a line made in code, or changed after
        # the file was checked, must not reach the model with hours of silence in it.
        if (overstep := line_overstep(text, note, timing)) is not None:
            raise TextError(str(overstep))
        directed = parse_line(text, note, timing)
        # And at this voice's pace: a slow voice makes a long line's clip longer still.
        pace = params.speed * params.effective_design.rate
        if (speech := planned_size(directed, pace).speech_s) > LINE_BOUNDS.spoken_s:
            raise TextError(f"its words take about {speech / 60:.0f} minutes to say at this voice's speed; at most "
                            f"{LINE_BOUNDS.spoken_s / 60:g} minutes in one line (split it into several lines)")
        # The voice's language decides how written forms are said (engine.text); a voice
        # that is not there is reported after the text's own problems, as it always was.
        try:
            info: VoiceInfo | None = self.library.resolve(params.voice, params.backend)
            voice_error: VoiceError | None = None
        except VoiceError as error:
            info, voice_error = None, error
        language = info.language if info is not None else "en-us"
        if directed.is_plain or read is not None:
            # Nothing performed: one unit list, keyed as before directions existed.
            prepared = prepare(directed.spoken if directed.directions or "\\" in text else text, lexicon,
                               language=language)
            texts: list[tuple[PreparedText, int, bool]] = []
        else:
            prepared, texts = self._prepare_phrases(directed, lexicon, language, text)
        if prepared.lexicon_used and (problem := used_problem(prepared.lexicon_used)) is not None:
            raise TextError(problem)  # this line only: the others still render
        if info is None:
            raise voice_error or VoiceError(f"no voice {params.voice!r}")
        speaker_id = info.speaker_id(params.speaker)
        model = self.voice(info)
        settings = replace(model.settings(params.speed, params.variation, params.speaker, info.style), seed=seed)
        phrases = tuple(self._phrase_plan(model, params, info, seed, directed, i, ph)
                        for i, ph in enumerate(texts))
        identity = self.library.identity(info)
        if info.style:  # one model and voices file serve many styles: the style is part of the clip
            identity += "/" + info.style
        key = clip_key(prepared.units, prepared.lexicon_used, identity, params, speaker_id, self.sample_rate, seed,
                       [p.key() for p in phrases] + [round(directed.trailing_pause, 4)] if phrases else None,
                       read.key() if read is not None else None)
        plan = ClipPlan(key, prepared, params, info, settings, phrases,
                        directed.trailing_pause if phrases else 0.0, read)
        self.predictor.set_prior(self.length_key(plan), self.cost(plan).seconds_per_phoneme * self.sample_rate)
        if self.device_pool is not None:
            self.raw_lengths.set_prior(self.length_key(plan), self.cost(plan).seconds_per_phoneme * model.sample_rate)
        return plan

    @staticmethod
    def _prepare_phrases(directed: DirectedLine, lexicon: Mapping[str, str] | None, language: str, text: str
                         ) -> tuple[PreparedText, list[tuple[PreparedText, int, bool]]]:
        """Each phrase through the frontend: (its text, the phrase's index, whether
        its words end a clause); a phrase of nothing speakable ("—") is left out."""
        texts = []
        used: dict[str, str] = {}
        for index, phrase in enumerate(directed.phrases):
            try:
                prepared = prepare(phrase.words, lexicon, language=language)
            except TextError:
                continue
            used.update(prepared.lexicon_used)
            texts.append((prepared, index, phrase.words.rstrip()[-1:] in ".,;:!?…—–-"))
        if not texts:
            # The line as written: its spoken part is empty, which would name nothing.
            raise TextError(f"nothing speakable in {text.strip()[:60]!r} (only directions or markup)")
        units = tuple(u for prepared, _, _ in texts for u in prepared.units)
        return PreparedText(units, tuple(sorted(used.items()))), texts

    @staticmethod
    def _phrase_plan(model: LoadedVoice, params: VoiceParams, info: VoiceInfo, seed: int, directed: DirectedLine,
                     position: int, text: tuple[PreparedText, int, bool]) -> performance.PhrasePlan:
        prepared, index, ends_clause = text
        phrase = directed.phrases[index]
        acted = phrase.performance()
        design = params.effective_design.then(acted.design)  # the role's voice, then the direction
        # The rate (the role's and the direction's) is the model's own length control on both
        # backends; noise is Piper's liveliness.
        settings = replace(model.settings(params.speed * design.rate, params.variation * acted.noise, params.speaker,
                                          info.style), seed=seed)
        pause = phrase.pause_before if position > 0 else 0.0  # before the first words: the line's own pause
        return performance.PhrasePlan(len(prepared.units), pause, settings, design.with_changes(rate=1.0),
                                      acted.phrase_pause, ends_clause, acted.breath, acted.sound)

    def phonemize(self, plan: ClipPlan) -> list[PhonemeUnit]:
        model = self.voice(plan.voice)
        if plan.phrases:
            return performance.phonemize_phrases(model, plan.prepared.units, plan.phrases, plan.voice.language)
        return model.phonemize(list(plan.prepared.units), plan.voice.language)

    def infer_units(self, model: LoadedVoice, plan: ClipPlan, units: list[PhonemeUnit],
                    batch: bool = False) -> list[Inference]:
        """The model's audio for a plan's units: a directed line phrase by phrase, each
        with its own settings; a plain line (or a batch of plain lines) in one call."""
        if plan.phrases:
            return performance.infer_phrases(model, units, plan.phrases)
        inferred = model.infer_timed(units, plan.settings, batch=batch)
        if plan.read is not None:  # its words are moved onto the read's: where they lie must be known
            inferred = model.word_timed(units, inferred, plan.settings)
        return inferred

    def infer(self, plan: ClipPlan, units: list[PhonemeUnit] | None = None) -> RawAudio:
        model = self.voice(plan.voice)
        if units is None:
            units = self.phonemize(plan)
        inferred = self.infer_units(model, plan, units)
        self.count_synthesis()
        return RawAudio(plan, self.land(plan, units, inferred), [u.pause_after for u in units], model.sample_rate,
                        sum(len(u.ids) for u in units), words=[i.words for i in inferred],
                        phrase_of=[u.phrase for u in units])

    def count_synthesis(self) -> None:
        """One line went through the model (tests count these to prove caching)."""
        with self._lock:
            self.synth_calls += 1

    def finish(self, raw: RawAudio) -> np.ndarray:
        """Shape raw model audio into the clip, by its own voice parameters alone (a take
        is the same samples in the post stage, an export or a farm actor), and store it
        in the cache."""
        rate = raw.sample_rate
        if not all(usable_samples(piece) for piece in raw.pieces if piece.size):
            raise _not_finite(raw)
        design = raw.plan.params.effective_design
        bounds = [shaping.trim_bounds(p, rate) for p in raw.pieces]
        pieces = [p[lo:hi] for p, (lo, hi) in zip(raw.pieces, bounds, strict=True)]
        words: ClipWords | None
        if raw.plan.read is not None:
            audio, words = read_transfer.directed_clip(pieces, raw.pauses, raw.words, bounds, rate, design,
                                                       raw.plan.read)
        elif raw.plan.phrases:
            # A directed line: its rates are the model's (no time scaling), so the
            # words move only by the trim and the pauses.
            audio, inserted = self._perform(raw, pieces, rate)
            words = clip_words(raw.words, bounds, raw.pauses, rate) if raw.words is not None else None
            words = performance.moved_words(words, inserted, rate)
        else:
            audio = shaping.shape_voice(shaping.join(pieces, raw.pauses, rate), rate, design)
            # The design's rate scales time, resampling keeps seconds: the words
            # move by the trim and the pauses, then by the rate.
            words = None
            if raw.words is not None:
                words = shaping.time_scaled(clip_words(raw.words, bounds, raw.pauses, rate), design.rate)
        audio = shaping.resample(audio, rate, self.sample_rate)
        audio = shaping.fade_edges(np.array(audio, dtype=np.float32), self.sample_rate)
        if audio.size and not usable_samples(audio):
            raise _not_finite(raw)
        if raw.phonemes:
            self.predictor.observe(self.length_key(raw.plan), raw.phonemes, self.length_scale(raw.plan),
                                   audio.shape[0])
        if raw.reservation is not None:
            return self.cache.commit(raw.plan.key, raw.reservation, audio, words)
        return self.cache.put(raw.plan.key, audio, words)

    @staticmethod
    def _perform(raw: RawAudio, pieces: list[np.ndarray], rate: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """A directed line's phrases shaped by their designs and breath, joined with their
        silences, levelled as one line, each phrase then moved by its own level offset and
        given the sound its delivery performs; with where sounds went in (the words move)."""
        phrases = raw.plan.phrases
        phrase_of = raw.phrase_of or [0] * len(pieces)
        # Each sentence of a performed phrase through its design (its rate is the model's
        # already, so lengths, and the words' timings, stay) and its breath.
        pieces = [performance.shaped(piece, rate, phrases[phrase_of[i]]) for i, piece in enumerate(pieces)]
        line = shaping.level_loudness(shaping.join(pieces, raw.pauses, rate), rate)
        spans = performance.phrase_spans(pieces, raw.pauses, phrase_of, rate)
        performance.apply_gains(line, spans, phrases)
        line, inserted = performance.add_sounds(line, spans, phrases, rate)
        if raw.plan.trailing_pause > 0:
            line = np.concatenate([line, shaping.silence(raw.plan.trailing_pause, rate)])
        return line, inserted

    def synthesize(self, text: str, params: VoiceParams, lexicon: Mapping[str, str] | None = None) -> np.ndarray:
        """The whole path for one line, served from the cache when possible."""
        return self.synthesize_plan(self.plan(text, params, lexicon))

    def synthesize_plan(self, plan: ClipPlan) -> np.ndarray:
        """A planned clip, from the cache when it is there."""
        cached = self.cache.get(plan.key)
        if cached is not None:
            return cached
        return self.finish(self.infer(plan))


def make_synthesizer(project_path: Path | None, sample_rate: int, use_cache: bool = True,
                     device: SynthDevice | None = None) -> ClipSynthesizer:
    """The synthesizer every verb and the studio use for a project: the
    user's shared clip cache (also read: the per-project cache folder of
    earlier versions; memory only without ``use_cache``), user voices found
    relative to the project, the sessions for ``device`` (``layout_for``) and their
    runs bound on it (without one, plain CPU runs, as the verbs that do not choose
    a device use). Raises CacheFolderError (one line) when the cache folder is unusable."""
    from engine.synth.cache import cache_dir_for
    from engine.synth.clipfolder import cache_limit_bytes, user_cache_dir

    identities = None
    if use_cache:
        legacy = [cache_dir_for(project_path)] if project_path is not None else []
        cache = ClipCache(user_cache_dir(), disk_limit_bytes=cache_limit_bytes(), legacy=legacy)
        identities = user_cache_dir() / "voice-identities.json"
    else:
        cache = ClipCache()
    base = project_path.parent if project_path is not None else None
    return ClipSynthesizer(VoiceLibrary(base_dir=base, identity_file=identities), sample_rate, cache,
                           layout_for(device), device=device)


def _not_finite(raw: RawAudio) -> VoiceError:
    """A model (a damaged voice file) or a shaping that made NaN or infinite samples fails the
    line: such a clip is never stored, so never mixed."""
    return VoiceError(f"voice {raw.plan.voice.id} made samples that are not finite (NaN or infinity); "
                      f"its model {raw.plan.voice.model_path} may be damaged")
