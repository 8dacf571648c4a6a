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

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from engine.check.candidate_measures import REFERENCE, EmbeddingStore, default_store
from engine.listen import quality, speaker
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


class VoiceJudge:
    """Similarity to the role's voice and quality of takes; role voices are measured once."""

    def __init__(self, synth: ClipSynthesizer, store: EmbeddingStore | None = None) -> None:
        self.synth = synth
        self.store = store if store is not None else default_store()
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

    def similarity(self, clip: np.ndarray, voice: VoiceParams) -> float | None:
        if not self.has_encoder or clip.size == 0:
            return None
        embedding = speaker.encoder().embed(clip, self.synth.sample_rate)
        return round(speaker.similarity(embedding, self.reference(voice)), 3)

    def quality(self, clip: np.ndarray) -> float | None:
        if not self.has_quality or clip.size == 0:
            return None
        return round(quality.quality(clip, self.synth.sample_rate), 3)

    def judge(self, result: Result, clip: np.ndarray, voice: VoiceParams) -> Result:
        """``result`` with the similarity and quality of ``clip``, flagged when either is low."""
        sim, mos = self.similarity(clip, voice), self.quality(clip)
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
