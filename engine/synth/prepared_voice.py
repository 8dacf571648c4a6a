"""Piper voices as their sessions load them: patched once per machine, not once per process.

Before its sessions are made a Piper voice is patched (:func:`patch_voice`): to also
output per-phoneme durations (as piper-tts does for alignments), which batching needs to
cut padded rows and the word times need, and to take its noise from a seed
(engine/synth/piper_noise.py: a take is a seed). That means importing onnx and rewriting
the 63 MB graph: 1.4 s + 1.2 s of every process that loaded a voice, and again for every
synthesizer a process made (measured on joe, 2026-12-06; a session is 0.5 s).

The patched model is kept in the user's cache under a digest of the voice file and the
patch's version, so the first process on the machine to load a voice pays for it; a
process also remembers which file it found for each voice. Not in the clip folder
(RADIOPLAY_CACHE_DIR): like the speaker embeddings it is no clip, depends only on the
installed voice, and a clip folder may be emptied or be one project's. Where the cache
cannot be written the patched model is handed over in memory, as before.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from engine.fsutil import atomic_write_bytes

# Bump whenever patch_voice (or what it calls) writes another graph: the old files are then
# never read again (the name holds the version), and the first voice prepared anew deletes them.
PATCH_VERSION = 1

T = TypeVar("T")

_found: dict[tuple[str, int, int], str] = {}  # (voice file, size, mtime) -> the model to load
_lock = threading.Lock()  # two synthesizers loading one voice at once patch it once


def prepared_voices_dir() -> Path:
    import platformdirs

    return platformdirs.user_cache_path("radioplay", appauthor=False) / "prepared-voices"


def prepared_model(model_path: Path) -> str | bytes:
    """What to make the voice's sessions from: the path of its patched model (made now
    if no process made it before), the voice's own path when nothing in it needs patching
    (or onnx is missing), or the patched bytes when the cache cannot be written."""
    stat = model_path.stat()
    memo = (str(model_path), stat.st_size, stat.st_mtime_ns)
    with _lock:
        known = _found.get(memo)
        if known is not None and Path(known).is_file():
            return known
        with open(model_path, "rb") as f:
            digest = hashlib.file_digest(f, "blake2b").hexdigest()[:32]
        tag = _patch_tag()
        prepared = prepared_voices_dir() / f"{model_path.stem}.{digest}.{tag}.onnx"
        if not prepared.is_file():
            patched = patch_voice(model_path)
            if patched is None:
                _found[memo] = str(model_path)
                return str(model_path)
            try:
                prepared.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(prepared, patched)
            except OSError:
                return patched  # measuring, rendering still work: only the next start is slower
            _forget_other_versions(prepared.parent, tag)
        _found[memo] = str(prepared)
        return str(prepared)


def load_prepared(model_path: Path, load: Callable[[str | bytes], T]) -> T:
    """``load`` called on the voice's :func:`prepared_model`. A prepared file that ``load``
    cannot read (damaged on disk by something else: writes are atomic) is discarded and
    the voice patched again, rather than the voice failing until the file is deleted."""
    source = prepared_model(model_path)
    try:
        return load(source)
    except Exception:  # ORT raises its own exception types
        if not (isinstance(source, str) and Path(source).parent == prepared_voices_dir()):
            raise  # the voice's own file, or bytes in memory: nothing of ours to repair
        with _lock:
            for memo, known in list(_found.items()):
                if known == source:
                    del _found[memo]
            Path(source).unlink(missing_ok=True)
        return load(prepared_model(model_path))


def _forget_other_versions(folder: Path, tag: str) -> None:
    """Delete the prepared files of another patch version or piper-tts (64 MB each): this
    version never reads them again. Files of this version are kept, whatever voice file
    they came from (two voice files may share a name, and each is read while installed)."""
    for old in folder.glob("*.onnx"):
        if not old.name.endswith(f".{tag}.onnx"):
            old.unlink(missing_ok=True)


def _patch_tag() -> str:
    """The patch's version and the piper-tts whose alignment patch it applies."""
    try:
        piper = importlib.metadata.version("piper-tts")
    except importlib.metadata.PackageNotFoundError:
        piper = "none"
    return f"p{PATCH_VERSION}-piper{piper}"


def patch_voice(model_path: Path) -> bytes | None:
    """The voice's graph with the durations output and the seeded noise inputs, or None
    when it needs neither (or the onnx package, optional, is missing: batch size stays 1).
    The durations output costs nothing in speed (measured: 13.3 vs 13.5 audio-s/s)."""
    try:
        import onnx
        from piper.patch_voice_with_alignment import add_alignment_output
    except ImportError:
        return None
    from engine.synth.piper_noise import expose_noise

    model = onnx.load(str(model_path))
    changed = False
    if len(model.graph.output) == 1:
        try:
            add_alignment_output(model)
            changed = True
        except ValueError:  # no single Ceil tensor: not a standard Piper graph
            pass
    if not expose_noise(model).names and not changed:
        return None
    return bytes(model.SerializeToString())
