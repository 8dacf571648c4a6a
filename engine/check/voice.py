"""Does a take sound like its role, and does it sound good?

Besides the words (engine/check/speech.py), a take is heard for two things
a listener notices, as ElevenLabs' auto-regeneration checks voice similarity
and volume: *drift*, a take whose speaker embedding (engine/listen/speaker.py)
is far from its role's voice (the role's voice speaking the casting's
reference sentence, the same measurement the cast was chosen by), and *low
quality*, a DNSMOS overall score (engine/listen/quality.py) below what a
clean synthetic line scores. Either flags the line; ``--fix`` and Fix
Flagged Lines keep the take best by the same scores.

Both need the ``voices`` extra; without it the scores are None and nothing
is flagged for them.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from engine.check.candidate_measures import REFERENCE, EmbeddingStore, default_store
from engine.listen import quality, speaker
from engine.memofolder import MemoFolder
from engine.project.model import VoiceParams

if TYPE_CHECKING:
    from engine.synth.synthesizer import ClipSynthesizer


class Judged(Protocol):
    """What is judged: a line's check result (engine/check/lines.py LineResult)."""

    @property
    def score(self) -> float: ...
    @property
    def flagged(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def similarity(self) -> float | None: ...
    @property
    def quality(self) -> float | None: ...


Result = TypeVar("Result", bound=Judged)

# Two lines of one voice score about 0.80-0.95 against each other, two people usually
# below 0.75 (Resemblyzer's figures, and the sample's; docs/dev/voices.md).
DRIFT_MIN = 0.70
QUALITY_MIN = 2.5  # DNSMOS OVRL: the bundled voices' clean lines score ~3.0-3.4


# Bump when DNSMOS' windows or model, or the speaker encoder, change what a clip measures.
MEASURES_VERSION = 2  # 2: a long clip is measured in a bounded number of windows
MEASURES_FOLDER = "measures"
KEEP_MEASURES = 4096


class ClipMeasures:
    """What a clip was heard as (its DNSMOS overall score, its speaker embedding), remembered
    by a hash of its samples in the clip folder's ``measures/`` (engine/memofolder.py). DNSMOS
    is three quarters of a check (a line is scored in one to nine 9-second windows, as
    speechmos does; measured 4.3 of 5.7 CPU-s of re-checking three unchanged lines), and a
    re-check of a project where one line changed measured every line again. Keyed by the
    samples, not the line's clip key: a check may be handed any clip for a line (a take in
    another voice is judged as drift)."""

    def __init__(self, directory: Path | None) -> None:
        self.folder = MemoFolder(directory / MEASURES_FOLDER if directory is not None else None, KEEP_MEASURES)

    @staticmethod
    def key(clip: np.ndarray, rate: int) -> str:
        samples = np.ascontiguousarray(clip, dtype=np.float32)
        header = f"{MEASURES_VERSION}:{rate}:{samples.shape}".encode()
        return hashlib.sha256(header + samples.tobytes()).hexdigest()[:32]

    def get(self, key: str) -> dict[str, Any]:
        """What was measured of the clip ``key`` ({} for nothing yet)."""
        known = self.folder.read(key)
        if known is None:
            return {}
        self.folder.touch(key)
        return known

    def put(self, key: str, measured: dict[str, Any]) -> None:
        self.folder.write(key, measured)


class VoiceJudge:
    """Similarity to the role's voice and quality of takes; role voices are measured once,
    a clip's measures once per clip (ClipMeasures, beside the synthesizer's clips)."""

    def __init__(self, synth: ClipSynthesizer, store: EmbeddingStore | None = None) -> None:
        self.synth = synth
        self.store = store if store is not None else default_store()
        self.measures = ClipMeasures(synth.cache.directory)
        self._references: dict[VoiceParams, np.ndarray] = {}
        try:
            speaker.weights_path()
            self.has_encoder = True
        except speaker.SpeakerEncoderUnavailable:
            self.has_encoder = False
        try:
            quality.model_path()
            self.has_quality = True
        except quality.QualityModelUnavailable:
            self.has_quality = False

    def reference(self, voice: VoiceParams) -> np.ndarray:
        """The role's voice: its embedding of the reference sentence (stored by clip key)."""
        voice = voice.with_changes(speed=1.0)  # who speaks, not how fast
        known = self._references.get(voice)
        if known is None:
            key = self.synth.plan(REFERENCE, voice).key
            known = self.store.get(key)
            if known is None:
                clip = self.synth.synthesize(REFERENCE, voice)
                self.store.put(key, speaker.encoder().embed(clip, self.synth.sample_rate))
                known = self.store.get(key)
            assert known is not None
            self._references[voice] = known
        return known

    def similarity(self, clip: np.ndarray, voice: VoiceParams, known: dict[str, Any]) -> float | None:
        """Similarity of ``clip`` to the role's voice; its embedding is read from, or added to,
        ``known`` (the clip's remembered measures)."""
        if not self.has_encoder or clip.size == 0:
            return None
        stored = known.get("embedding")
        if isinstance(stored, list) and len(stored) == speaker.EMBEDDING_SIZE:
            embedding = np.asarray(stored, dtype=np.float32)
        else:
            embedding = speaker.encoder().embed(clip, self.synth.sample_rate)
            known["embedding"] = [round(float(x), 6) for x in embedding]
        return round(speaker.similarity(embedding, self.reference(voice)), 3)

    def quality(self, clip: np.ndarray, known: dict[str, Any]) -> float | None:
        """DNSMOS overall of ``clip``, read from, or added to, ``known``."""
        if not self.has_quality or clip.size == 0:
            return None
        stored = known.get("quality")
        if isinstance(stored, (int, float)) and 1.0 <= stored <= 5.0:
            return float(stored)
        known["quality"] = round(quality.quality(clip, self.synth.sample_rate), 3)
        return float(known["quality"])

    def judge(self, result: Result, clip: np.ndarray, voice: VoiceParams) -> Result:
        """``result`` with the similarity and quality of ``clip``, flagged when either is low."""
        key = ClipMeasures.key(clip, self.synth.sample_rate)
        known = self.measures.get(key)
        before = dict(known)
        sim, mos = self.similarity(clip, voice, known), self.quality(clip, known)
        if known != before:
            self.measures.put(key, known)
        problems = [result.reason] if result.reason else []
        if sim is not None and sim < DRIFT_MIN:
            problems.append(f"voice drift: similarity {sim:.2f} to the role's voice")
        if mos is not None and mos < QUALITY_MIN:
            problems.append(f"low quality: DNSMOS {mos:.2f}")
        flagged = result.flagged or len(problems) > (1 if result.reason else 0)
        return replace(result, similarity=sim, quality=mos, flagged=flagged,  # type: ignore[type-var]
                       reason="; ".join(problems))


def take_rank(result: Judged) -> tuple[bool, float, float, float]:
    """Which of two takes to keep: unflagged first, then the words heard, then the
    quality, then the similarity to the role's voice."""
    return (not result.flagged, result.score, result.quality or 0.0, result.similarity or 0.0)
