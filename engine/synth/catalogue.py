"""The voice catalogue: what can be downloaded, and whether it is installed.

The format is the ``voices.json`` of the official Piper voices repository,
read exactly as published there::

    {"en_GB-alba-medium": {
        "key": "en_GB-alba-medium", "name": "alba",
        "language": {"code": "en_GB", "family": "en", "region": "GB",
                     "name_native": "English", "name_english": "English",
                     "country_english": "Great Britain"},
        "quality": "medium", "num_speakers": 1, "speaker_id_map": {},
        "files": {"en/en_GB/alba/medium/en_GB-alba-medium.onnx":
                      {"size_bytes": 63201294, "md5_digest": "..."}, ...},
        "aliases": []}, ...}

Each file is fetched from ``<catalogue folder>/<path in "files">``, as in the
official repository, so any mirror, a local folder or a test server with the
same layout works. Two optional keys extend the format without breaking it:
``"backend"`` (``"kokoro"`` for a catalogue of Kokoro model and voices
files, which installs every ``.onnx``, ``.bin`` and ``.json`` file listed)
and sample recordings, listed in ``files`` under a
``samples/`` folder (``.../samples/speaker_0.mp3``), which the studio plays
before a voice is downloaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import quote, urljoin, urlsplit

from engine.jsontext import JSONTextError, loads_untrusted
from engine.project.defaults import DEFAULT_BACKEND
from engine.project.engines import engine_named, engine_names
from engine.synth.errors import CatalogueError

# The official catalogue; unreachable offline, then `--catalog` takes a mirror or a file.
MAX_FILE_BYTES = 16 << 30  # no voice file is near this; a size past it is a broken catalogue
DEFAULT_CATALOGUE_URL = "https://huggingface.co/rhasspy/piper-voices/resolve/main/voices.json"

# What an installed file may be called: a plain name, never a path, never hidden.
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
_MD5 = re.compile(r"^[0-9a-f]{32}$")
_SAMPLE = re.compile(r"(?:^|/)samples/speaker_(\d+)\.(?:mp3|wav|ogg|flac)$")


@dataclass(frozen=True)
class CatalogueFile:
    """One file of a voice: where it is in the catalogue, its size and MD5."""

    path: str  # relative to the catalogue's folder, '/'-separated
    size: int
    md5: str

    @property
    def name(self) -> str:
        """The name it is installed under (the last path part, checked safe on load)."""
        return PurePosixPath(self.path).name


@dataclass(frozen=True)
class CatalogueVoice:
    key: str
    name: str
    language: str  # code, en_GB
    family: str  # en
    language_name: str  # "English (Great Britain)"
    quality: str
    num_speakers: int
    speakers: dict[str, int] = field(default_factory=dict)
    files: tuple[CatalogueFile, ...] = ()  # what gets installed, model first
    samples: dict[int, CatalogueFile] = field(default_factory=dict)  # speaker id -> recording
    aliases: tuple[str, ...] = ()
    backend: str = DEFAULT_BACKEND

    @property
    def size(self) -> int:
        """Bytes a download fetches (the installed files, not samples or model cards)."""
        return sum(f.size for f in self.files)

    def speaker_names(self) -> list[str]:
        """Speakers in id order, by name where the voice names them."""
        by_id = {sid: name for name, sid in self.speakers.items()}
        return [by_id.get(i, str(i)) for i in range(self.num_speakers)] if self.num_speakers > 1 else []

    def sample(self, speaker: int = 0) -> CatalogueFile | None:
        return self.samples.get(speaker) or (self.samples.get(0) if speaker else None)

    def installed_in(self, folder: Path) -> bool:
        """Every file present under its name with the catalogue's size (MD5 was
        checked when it was downloaded; re-hashing 60 MB per voice per listing is not)."""
        try:
            return bool(self.files) and all((folder / f.name).stat().st_size == f.size for f in self.files)
        except OSError:
            return False


@dataclass(frozen=True)
class Catalogue:
    source: str  # the URL or path it was read from
    voices: tuple[CatalogueVoice, ...]

    def url_of(self, file: CatalogueFile) -> str:
        """``<catalogue folder>/<path>`` as a URL (a local catalogue's files are file: URLs)."""
        base = self.source if is_url(self.source) else Path(self.source).resolve().as_uri()
        return urljoin(base, quote(file.path))

    def find(self, key: str) -> CatalogueVoice:
        for voice in self.voices:
            if voice.key == key or key in voice.aliases:
                return voice
        close = [v.key for v in self.voices if key.lower() in v.key.lower()][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else f" ({len(self.voices)} voices listed)"
        raise CatalogueError(f"{self.source}: no voice {key!r} in the catalogue{hint}")

    def select(self, language: str | None = None, quality: str | None = None, search: str = "",
               installed_in: Path | None = None) -> list[CatalogueVoice]:
        """Voices matching every filter given. ``language`` matches the family
        (``en``) or the whole code (``en_GB``); ``search`` any part of key, name or language."""
        chosen = []
        needle = search.strip().lower()
        for v in self.voices:
            if language and language.lower() not in (v.family.lower(), v.language.lower()):
                continue
            if quality and v.quality != quality:
                continue
            if needle and not any(needle in s.lower() for s in (v.key, v.name, v.language, v.language_name)):
                continue
            if installed_in is not None and not v.installed_in(installed_in):
                continue
            chosen.append(v)
        return chosen

    def languages(self) -> list[tuple[str, str]]:
        """(code, readable name) of every language listed, sorted by code."""
        return sorted({(v.language, v.language_name) for v in self.voices})

    def qualities(self) -> list[str]:
        order = {"x_low": 0, "low": 1, "medium": 2, "high": 3}
        return sorted({v.quality for v in self.voices}, key=lambda q: (order.get(q, 9), q))


def is_url(location: str) -> bool:
    return urlsplit(location).scheme in ("http", "https", "file")


def parse_catalogue(data: bytes | str, source: str) -> Catalogue:
    """Read a voices.json; every problem names the source, the voice key and the field."""
    try:
        root = loads_untrusted(data)
    except JSONTextError as exc:  # Infinity, nesting too deep, not UTF-8 too
        raise CatalogueError(f"{source}: not a voice catalogue ({exc})") from None
    if not isinstance(root, dict):
        raise CatalogueError(f"{source}: not a voice catalogue (expected an object of voices by key)")
    voices = [_typed_voice(source, key, entry) for key, entry in root.items()]
    voices.sort(key=lambda v: v.key)
    return Catalogue(source, tuple(voices))


def _typed_voice(source: str, key: str, entry: object) -> CatalogueVoice:
    """A voice entry; a field of a wrong type is named, never a traceback."""
    try:
        return _voice(source, key, entry)
    except CatalogueError:
        raise
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise CatalogueError(f"{source}: voice {key!r}: a field has the wrong type ({exc})") from None


def _text(where: str, field: str, value: object, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise CatalogueError(f"{where}: {field}: expected text, got {type(value).__name__}")
    return str(value)


def _voice(source: str, key: str, entry: object) -> CatalogueVoice:
    where = f"{source}: voice {key!r}"
    if not isinstance(entry, dict):
        raise CatalogueError(f"{where}: expected an object")
    language = entry.get("language") or {}
    if not isinstance(language, dict):
        raise CatalogueError(f"{where}: language: expected an object")
    code = _text(where, "language.code", language.get("code")) or key.split("-", 1)[0]
    english = _text(where, "language.name_english", language.get("name_english"))
    country = _text(where, "language.country_english", language.get("country_english"))
    readable = f"{english} ({country})" if english and country else str(english or code)
    backend = _text(where, "backend", entry.get("backend"), DEFAULT_BACKEND)
    engine = engine_named(backend)
    if not engine.known:
        raise CatalogueError(f"{where}: backend: unknown voice engine {backend!r} (known: {', '.join(engine_names())})")
    files: list[CatalogueFile] = []
    samples: dict[int, CatalogueFile] = {}
    raw_files = entry.get("files")
    if not isinstance(raw_files, dict):
        raise CatalogueError(f"{where}: files: expected an object of path -> size_bytes, md5_digest")
    for path, meta in raw_files.items():
        file = _file(f"{where}: files[{path!r}]", path, meta)
        sample = _SAMPLE.search(path)
        if sample:
            samples[int(sample.group(1))] = file
        elif file.name.endswith(engine.installs):
            files.append(file)
    files.sort(key=lambda f: (not f.name.endswith(".onnx"), f.name))  # the model first
    if engine.model_files:  # a voice is one model and its config beside it
        models = [f for f in files if f.name.endswith(".onnx")]
        if len(models) != 1 or not any(f.name == f"{models[0].name}.json" for f in files):
            raise CatalogueError(f"{where}: files: expected one .onnx model and its .onnx.json config")
    elif not files:
        raise CatalogueError(f"{where}: files: nothing to install")
    try:
        num_speakers = entry.get("num_speakers", 1)
        if isinstance(num_speakers, bool) or not isinstance(num_speakers, int) or not 1 <= num_speakers <= 100_000:
            raise ValueError
        speakers = {str(k): int(v) for k, v in (entry.get("speaker_id_map") or {}).items()}
    except (TypeError, ValueError, AttributeError, OverflowError):
        raise CatalogueError(f"{where}: num_speakers / speaker_id_map: expected whole numbers") from None
    aliases = entry.get("aliases") or []
    if not isinstance(aliases, list):
        raise CatalogueError(f"{where}: aliases: expected a list of names, got {type(aliases).__name__}")
    return CatalogueVoice(
        key=_text(where, "key", entry.get("key"), key), name=_text(where, "name", entry.get("name"), key),
        language=code, family=_text(where, "language.family", language.get("family")) or code.split("_", 1)[0],
        language_name=readable, quality=_text(where, "quality", entry.get("quality")), num_speakers=max(1, num_speakers), speakers=speakers,
        files=tuple(files), samples=samples, aliases=tuple(str(a) for a in aliases), backend=backend,
    )


def _file(where: str, path: object, meta: object) -> CatalogueFile:
    if not isinstance(path, str) or not isinstance(meta, dict):
        raise CatalogueError(f"{where}: expected {{size_bytes, md5_digest}}")
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    if path.startswith("/") or ".." in parts or not _SAFE_NAME.match(name):
        raise CatalogueError(f"{where}: not a safe relative file path")
    size, md5 = meta.get("size_bytes"), str(meta.get("md5_digest", "")).lower()
    if isinstance(size, bool) or not isinstance(size, int) or not 0 < size <= MAX_FILE_BYTES:
        raise CatalogueError(f"{where}: size_bytes: expected a whole number of bytes from 1 to "
                             f"{MAX_FILE_BYTES}, got {str(size)[:40]}")
    if not _MD5.match(md5):
        raise CatalogueError(f"{where}: md5_digest: expected 32 hex digits, got {md5!r}")
    return CatalogueFile(path, size, md5)


def format_size(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def format_table(voices: Iterable[CatalogueVoice], voice_dir: Path) -> list[str]:
    """The lines ``radioplay voices --catalog`` prints."""
    rows = [f"{'KEY':<34} {'LANGUAGE':<8} {'QUALITY':<7} {'SPEAKERS':>8} {'SIZE':>9}  INSTALLED"]
    for v in voices:
        rows.append(f"{v.key:<34} {v.language:<8} {v.quality:<7} {v.num_speakers:>8} {format_size(v.size):>9}  "
                    f"{'yes' if v.installed_in(voice_dir) else 'no'}")
    return rows
