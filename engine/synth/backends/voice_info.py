"""A voice as the library finds it and its engine's backend loads it.

Where its model and config are, its rate and speakers, where it was found, the
language it reads and, for an engine whose voices are style vectors, which style.
Light on purpose (no numpy, no ONNX): ``radioplay voices`` lists these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.project.defaults import DEFAULT_BACKEND
from engine.synth.errors import VoiceError


@dataclass(frozen=True)
class VoiceInfo:
    id: str
    model_path: Path
    config_path: Path
    sample_rate: int
    num_speakers: int
    speakers: dict[str, int] = field(default_factory=dict)
    source: str = "path"  # bundled | user | path
    language: str = ""
    backend: str = DEFAULT_BACKEND
    style: str = ""  # Kokoro: the style vector's name, or a canonical blend of several

    def speaker_id(self, speaker: int | str | None) -> int | None:
        """Resolve a speaker name or id; None for single-speaker voices."""
        if self.num_speakers <= 1:
            if speaker not in (None, 0, "0"):
                raise VoiceError(f"voice {self.id!r} has a single speaker; speaker {speaker!r} is not valid")
            return None
        if speaker is None:
            return 0
        if isinstance(speaker, str):
            if speaker in self.speakers:
                return self.speakers[speaker]
            if speaker.isdigit():
                speaker = int(speaker)
            else:
                known = ", ".join(sorted(self.speakers)) or "none named"
                raise VoiceError(f"voice {self.id!r} has no speaker {speaker!r} (speakers: {known})")
        if not 0 <= speaker < self.num_speakers:
            raise VoiceError(f"voice {self.id!r} has speakers 0..{self.num_speakers - 1}, not {speaker}")
        return speaker
