"""Piper voices as their sessions load them: patched once per machine, not once per process.

Before its sessions are made a Piper voice is patched (:func:`patch_voice`): to also
output per-phoneme durations (as piper-tts does for alignments), which batching needs to
cut padded rows and the word times need, and to take its noise from a seed
(engine/synth/backends/piper/noise.py: a take is a seed). That means importing onnx and rewriting
the 63 MB graph, seconds of every process that loaded a voice, and again for every
synthesizer a process made: several times what making the session itself costs
(docs/dev/benchmarks.md, "Session memory").

The patched model is kept in the user's cache under a digest of the voice file and the
patch's version, so the first process on the machine to load a voice pays for it; a
process also remembers which file it found for each voice. Not in the clip folder
(RADIOPLAY_CACHE_DIR): like the speaker embeddings it is no clip, depends only on the
installed voice, and a clip folder may be emptied or be one project's.

The file is trusted only as it was written (engine/synth/backends/sealed_model.py): a seal beside
it records its digest, and only bytes that match are loaded. Anything else under its name
(the voice's own graph copied over it, an altered copy, a link to a model outside the
folder) is patched again, with a warning, before any line is voiced from it, so no clip of
another model is ever made under the voice's keys. A prepared file this user cannot read
(another user's) is left alone and the voice patched in memory, with a warning naming it;
where the cache cannot be written the patched model is handed over in memory too, silently.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import threading
from pathlib import Path

from engine.synth.backends.sealed_model import SealError, Unsealed, remove_sealed, sealed_source, write_sealed

log = logging.getLogger("engine.synth.backends.piper.prepared_voice")

# Bump whenever patch_voice (or what it calls) writes another graph: the old files are then
# never read again (the name holds the version), and the first voice prepared anew deletes them.
PATCH_VERSION = 1

# (voice file, size, mtime) -> its prepared file, or None when the voice needs no patch
_found: dict[tuple[str, int, int], Path | None] = {}
_warned: set[str] = set()  # one warning per problem and file, not one per synthesizer
_lock = threading.Lock()  # two synthesizers loading one voice at once patch it once


def prepared_voices_dir() -> Path:
    import platformdirs

    return platformdirs.user_cache_path("radioplay", appauthor=False) / "prepared-voices"


def prepared_model(model_path: Path) -> str | bytes:
    """What to make the voice's sessions from: its patched model as sealed when it was
    prepared (its path, or its bytes when they were just hashed or patched: prepared now if
    no process did before, or if the file there is not the one prepared), or the voice's own
    path when nothing in it needs patching (or onnx is missing). Patched in memory when the
    prepared file cannot be read or written."""
    stat = model_path.stat()
    memo = (str(model_path), stat.st_size, stat.st_mtime_ns)
    with _lock:
        if memo in _found:
            prepared = _found[memo]
        else:
            with open(model_path, "rb") as f:
                digest = hashlib.file_digest(f, "blake2b").hexdigest()[:32]
            prepared = prepared_voices_dir() / f"{model_path.stem}.{digest}.{_patch_tag()}.onnx"
        if prepared is None:
            return str(model_path)
        try:
            source = sealed_source(prepared)
        except FileNotFoundError:
            pass  # not prepared yet on this machine
        except Unsealed:
            pass  # prepared by a version that wrote no seal: prepared again, nothing is wrong
        except SealError as exc:
            _warn(f"{prepared} is not the voice that was prepared there ({exc}); preparing "
                  f"{model_path.name} again")
        except OSError as exc:  # another user's file, an unreadable folder: not ours to repair
            _warn(f"cannot read the prepared voice {prepared}: {exc.strerror or exc}; patching "
                  f"{model_path.name} in memory instead (each start pays for it until the file is "
                  "readable or removed)")
            return _patched_in_memory(model_path)
        else:
            _found[memo] = prepared
            return source
        patched = patch_voice(model_path)
        if patched is None:
            _found[memo] = None
            return str(model_path)
        try:
            prepared.parent.mkdir(parents=True, exist_ok=True)
            write_sealed(prepared, patched)  # replaces whatever was there (a link is replaced, not followed)
        except OSError:
            return patched  # measuring, rendering still work: only the next start is slower
        _forget_other_versions(prepared.parent, _patch_tag())
        _found[memo] = prepared
        return patched


def _patched_in_memory(model_path: Path) -> str | bytes:
    patched = patch_voice(model_path)
    return patched if patched is not None else str(model_path)


def _warn(message: str) -> None:
    """One line on stderr (logging's last-resort handler where nothing else is set up),
    once per process for each problem."""
    if message not in _warned:
        _warned.add(message)
        log.warning("warning: %s", message)


def _forget_other_versions(folder: Path, tag: str) -> None:
    """Delete the prepared files of another patch version or piper-tts (64 MB each): this
    version never reads them again. Files of this version are kept, whatever voice file
    they came from (two voice files may share a name, and each is read while installed)."""
    for old in folder.glob("*.onnx"):
        if not old.name.endswith(f".{tag}.onnx"):
            remove_sealed(old)


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
    from engine.synth.backends.piper.noise import expose_noise

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
