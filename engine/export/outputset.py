"""An export is one set: the files of one render replace the files of the
previous render in the output folder all together, or not at all.

Every file is written into a staging folder inside the output folder
(``OUTDIR/.radioplay-export-XXXX/``, so the final renames never cross a file
system), then committed:

1. every staged file is flushed to disk, and the final paths are checked
   again (a folder where a file goes fails here, before anything moved);
2. a journal (``OUTDIR/.radioplay-commit.json``, written atomically) names
   the staging folder, the new files and the old files to retire: from here
   on the new set is complete on disk and the commit only moves forward;
3. each old file is moved into the staging folder's trash, each new file
   into its place; the manifest of the set (``.radioplay-export.json``) is
   one of the files, so the folder always says which set it holds;
4. the journal is removed, then the staging folder with the old files.

Files a render would write again byte for byte (its audio, when nothing it
is made from changed) can be taken over from the set the folder holds:
:meth:`OutputSet.keep` links them into the staging folder when each still
has the size, modification time and inode the render that wrote them
remembered (:func:`file_identity`; a file saved over since, e.g. by an
editor, is written again). Links need one file system, which the staging
folder inside the output folder gives; where none can be made the caller
writes the files.

A render killed before step 2 leaves the previous set untouched (and a
staging folder that the next export removes); one killed during step 3 is
rolled forward by the next export into that folder before it does anything
else (:func:`recover`). A failure during step 3 in a live process (a
permission, a full disk) rolls back instead, and the previous set is back.
Stems of roles no longer in the cast belong to the old set and go with it.

Exports into one folder exclude each other with an advisory lock on the
folder itself (``flock``; not where the platform has none), so one never
removes the staging folder of another.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

from engine.export.names import safe_stem
from engine.fsutil import atomic_write_text, describe_mode, fsync_dir
from engine.output_paths import (
    BINARY,
    FLAC,
    JSON,
    MP3,
    MP4,
    TEXT,
    WAV,
    Content,
    folder_problem,
    problem_with,
    stat_inputs,
)
from engine.terminal_text import echo

MANIFEST = ".radioplay-export.json"
JOURNAL = ".radioplay-commit.json"
STAGING_PREFIX = ".radioplay-export-"
TRASH = ".radioplay-old"
# What a render made before manifests existed (the old set when there is no manifest).
LEGACY_FILES = ("mix.wav", "captions.srt", "captions.vtt", "cues.json")
LEGACY_STEMS = "stems"
# What each file of a set holds, by suffix: a file of the folder the last set did not
# write is replaced only when it holds the same (engine/output_paths.py).
_CONTENT_BY_SUFFIX = {".wav": WAV, ".flac": FLAC, ".mp3": MP3, ".m4b": MP4, ".json": JSON, ".otio": JSON,
                      ".srt": TEXT, ".vtt": TEXT, ".rpp": TEXT, ".lof": TEXT, ".txt": TEXT}
# Temporary files of the renders before staging folders (fsutil.temp_path_for names).
_STALE_PART = re.compile(r"^\..+\.part$")


class ExportError(Exception):
    """An export that cannot be written: one line naming the path and why."""


def check_output(outdir: Path, files: Sequence[str], inputs: Sequence[tuple[str, str | Path]] = (),
                 overwrite: bool = False) -> None:
    """Fail early, before any synthesis, when the set cannot be written to
    ``outdir``; creates nothing. Each file of the set obeys the rule of every
    output (engine/output_paths.py): never one of ``inputs`` (what, path), a
    device, a FIFO or a link out of the folder, and a file the folder's last
    set did not write only when it holds what the set writes there, or with
    ``overwrite``."""
    outdir = Path(outdir)
    if outdir.exists() and not outdir.is_dir():
        mode = outdir.stat().st_mode
        kind = "a file" if stat.S_ISREG(mode) else describe_mode(mode)
        raise ExportError(f"{echo(outdir)} is {kind}, not a folder; choose another output folder")
    problem = folder_problem(outdir)
    if problem is not None:
        raise ExportError(f"cannot write to output folder {echo(outdir)}: {problem}")
    if outdir.is_dir():
        _check_finals(outdir, files, inputs, overwrite)


def content_of(rel: str) -> Content:
    """What a file of the set holds, by its suffix (BINARY: anything may be replaced)."""
    return _CONTENT_BY_SUFFIX.get(PurePosixPath(rel).suffix.lower(), BINARY)


def _check_finals(outdir: Path, files: Iterable[str], inputs: Sequence[tuple[str, str | Path]] = (),
                  overwrite: bool = False) -> None:
    ours = set(_listed(outdir) or ())
    seen = stat_inputs(inputs)
    for rel in files:
        final = outdir / rel
        parent = final.parent
        while parent != outdir:
            if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
                raise ExportError(f"{echo(parent)} is in the way of {rel} (not a plain folder); move it away")
            parent = parent.parent
        if final.is_dir() and not final.is_symlink():
            raise ExportError(f"{echo(final)} is a folder where the export writes a file; move it away")
        content = content_of(rel)
        problem = problem_with(final, content, seen, overwrite or rel in ours or content is BINARY, folder=outdir)
        if problem is not None:
            raise ExportError(f"{echo(final)}: {problem}")


def _safe_rel(rel: str) -> bool:
    """A manifest or journal entry names a file inside the folder, nothing else."""
    path = PurePosixPath(rel)
    return bool(rel) and not path.is_absolute() and ".." not in path.parts and "\\" not in rel and "\0" not in rel


def _inside(outdir: Path, rel: str) -> bool:
    """No folder on the way to ``rel`` is a link (which could lead out of ``outdir``)."""
    parent = (outdir / rel).parent
    while parent != outdir:
        if parent.is_symlink():
            return False
        parent = parent.parent
    return True


class OutputSet:
    """Staging and commit of one export into ``outdir`` (see the module doc).

    ``open`` locks the folder, finishes or cleans up after earlier killed
    exports and makes the staging folder; ``path(rel)`` is where a file of
    the set is written; ``commit()`` swaps the set in; ``close()`` (always)
    drops an uncommitted staging folder and unlocks.
    """

    def __init__(self, outdir: Path, files: Sequence[str], inputs: Sequence[tuple[str, str | Path]] = (),
                 overwrite: bool = False) -> None:
        self.outdir = Path(outdir)
        self.files = [*files, MANIFEST]
        self.inputs = inputs  # (what, path) the render reads: never replaced (engine/output_paths.py)
        self.overwrite = overwrite
        self.staging: Path | None = None
        self._lock_fd: int | None = None

    def open(self) -> OutputSet:
        check_output(self.outdir, self.files, self.inputs, self.overwrite)
        try:
            self.outdir.mkdir(parents=True, exist_ok=True)
            self._lock()
            recover(self.outdir)
            _check_finals(self.outdir, self.files, self.inputs, self.overwrite)
            self.staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.outdir))
        except OSError as exc:
            self.close()
            raise ExportError(f"cannot write to output folder {self.outdir}: {exc.strerror or exc}") from exc
        except BaseException:
            self.close()
            raise
        return self

    def path(self, rel: str) -> Path:
        if self.staging is None:
            raise RuntimeError("the output set is not open")
        target = self.staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    def keep(self, identities: dict[str, list[int]]) -> bool:
        """Link each file of the folder's set named in ``identities`` into the
        staging folder when it is still that file (:func:`file_identity`);
        all or none: False (nothing linked) when one is not."""
        if self.staging is None:
            raise RuntimeError("the output set is not open")
        linked: list[Path] = []
        try:
            for rel, identity in identities.items():
                final = self.outdir / rel
                if rel not in self.files or not _inside(self.outdir, rel) or file_identity(final) != identity:
                    raise FileNotFoundError(rel)
                target = self.path(rel)
                os.link(final, target)
                linked.append(target)
        except OSError:  # changed, gone, or no links on this file system
            for target in linked:
                with contextlib.suppress(OSError):
                    target.unlink()
            return False
        return True

    def commit(self) -> list[Path]:
        """Swap the staged set in; returns the final paths (manifest not included)."""
        staging = self.staging
        if staging is None:
            raise RuntimeError("the output set is not open")
        new = self.files
        atomic_write_text(staging / MANIFEST, json.dumps({"format": "radioplay-export", "version": 1,
                                                          "files": new[:-1]}, indent=1) + "\n")
        # Each file's flush waits on the disk, not the CPU: all at once, so the
        # writes of one file queue beside another's (a render's ~350 MB of stems).
        with ThreadPoolExecutor(max_workers=min(8, len(new)), thread_name_prefix="radioplay-fsync") as pool:
            list(pool.map(_fsync_file, [staging / rel for rel in new]))
        for folder in {(staging / rel).parent for rel in new}:
            fsync_dir(folder)
        _check_finals(self.outdir, new, self.inputs, self.overwrite)
        old = [rel for rel in _current_set(self.outdir) if rel not in set(new)]
        journal = {"staging": staging.name, "new": new, "retire": old}
        atomic_write_text(self.outdir / JOURNAL, json.dumps(journal, indent=1))
        try:
            _roll_forward(self.outdir, staging, new, old)
        except OSError as exc:
            _roll_back(self.outdir, staging, new, old)
            (self.outdir / JOURNAL).unlink()
            fsync_dir(self.outdir)
            raise ExportError(f"cannot write the export into {self.outdir}: {exc.strerror or exc} "
                              f"({exc.filename}); the previous files are back") from exc
        _finish(self.outdir, staging)
        self.staging = None
        return [self.outdir / rel for rel in new[:-1]]

    def close(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    def __enter__(self) -> OutputSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # no flock here: exports into one folder are not excluded
            return
        fd = os.open(self.outdir, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ExportError(f"another export is writing to {self.outdir}; wait for it to finish") from None
        except OSError:
            os.close(fd)
            raise
        self._lock_fd = fd


def recover(outdir: Path) -> None:
    """Finish a commit a killed export left half done (its new set is
    complete), then remove what killed exports left behind: staging folders
    and ``.part`` files. Called with the folder locked, before an export."""
    outdir = Path(outdir)
    journal_path = outdir / JOURNAL
    if journal_path.is_file():
        try:
            journal = json.loads(journal_path.read_text(encoding="utf-8"))
            name = str(journal["staging"])
            staging = outdir / name
            new = [str(r) for r in journal["new"]]
            old = [str(r) for r in journal["retire"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ExportError(f"{journal_path}: an interrupted export left a journal that cannot be read "
                              f"({exc}); remove it to go on") from exc
        plain = name.startswith(STAGING_PREFIX) and "/" not in name and "\\" not in name
        if not plain or not all(_safe_rel(r) and _inside(outdir, r) for r in [*new, *old]):
            raise ExportError(f"{journal_path}: names files outside the output folder; remove it to go on")
        _roll_forward(outdir, staging, new, old)
        _finish(outdir, staging)
    for entry in outdir.iterdir():
        if entry.name.startswith(STAGING_PREFIX) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
    for folder in (outdir, outdir / LEGACY_STEMS):
        if folder.is_dir() and not folder.is_symlink():
            for entry in folder.iterdir():
                if _STALE_PART.match(entry.name) and entry.is_file():
                    with contextlib.suppress(OSError):
                        entry.unlink()


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as f:
        os.fsync(f.fileno())


def file_identity(path: Path) -> list[int]:
    """What tells a file from one saved over since: size, modification time (ns), inode.
    Renaming keeps all three; raises OSError for anything but a plain file."""
    found = os.lstat(path)
    if not stat.S_ISREG(found.st_mode):  # a link or a folder is never kept
        raise FileNotFoundError(str(path))
    return [found.st_size, found.st_mtime_ns, found.st_ino]


def _listed(outdir: Path) -> list[str] | None:
    """The files the folder's manifest lists, the manifest itself included (None: no manifest)."""
    try:
        listed = json.loads((outdir / MANIFEST).read_text(encoding="utf-8"))["files"]
        return [*(str(r) for r in listed if isinstance(r, str) and _safe_rel(r)), MANIFEST]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _current_set(outdir: Path) -> list[str]:
    """The files of the set the folder holds now: its manifest's, or for a
    render made before manifests, the names such a render wrote."""
    files = _listed(outdir)
    if files is None:
        files = [*LEGACY_FILES, *_legacy_stems(outdir), MANIFEST]
    return [r for r in files if _inside(outdir, r) and ((outdir / r).is_file() or (outdir / r).is_symlink())]


def _legacy_stems(outdir: Path) -> list[str]:
    """Stems a render from before manifests made: those of the roles in its
    cue sheet (a .wav in stems/ that no cue names may be the producer's own)."""
    try:
        cues = json.loads((outdir / "cues.json").read_text(encoding="utf-8"))["cues"]
        roles = {str(cue["role"]) for cue in cues}
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [f"{LEGACY_STEMS}/{safe_stem(role)}.wav" for role in sorted(roles)]


def _roll_forward(outdir: Path, staging: Path, new: Sequence[str], retire: Sequence[str]) -> None:
    """Idempotent: a staged file still in staging has not moved yet, so what
    holds its final name is old and goes to the trash first."""
    trash = staging / TRASH
    for rel in new:
        staged, final = staging / rel, outdir / rel
        if not staged.exists():
            continue  # moved already
        if final.is_file() or final.is_symlink():
            _move(final, trash / rel)
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, final)
    for rel in retire:
        final = outdir / rel
        if final.is_file() or final.is_symlink():
            _move(final, trash / rel)
    for folder in {(outdir / rel).parent for rel in [*new, *retire]}:
        fsync_dir(folder)


def _roll_back(outdir: Path, staging: Path, new: Sequence[str], retire: Sequence[str]) -> None:
    trash = staging / TRASH
    for rel in new:
        staged, final = staging / rel, outdir / rel
        if not staged.exists() and (final.is_file() or final.is_symlink()):
            with contextlib.suppress(OSError):
                _move(final, staged)
    for rel in [*new, *retire]:
        if (trash / rel).exists():
            with contextlib.suppress(OSError):
                _move(trash / rel, outdir / rel)


def _finish(outdir: Path, staging: Path) -> None:
    (outdir / JOURNAL).unlink(missing_ok=True)
    fsync_dir(outdir)
    shutil.rmtree(staging, ignore_errors=True)
    stems = outdir / LEGACY_STEMS
    with contextlib.suppress(OSError):
        if stems.is_dir() and not stems.is_symlink() and not any(stems.iterdir()):
            stems.rmdir()  # the new set has no stems


def _move(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)
