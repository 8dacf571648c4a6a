"""The sound library: sound files a production can use, and cue matching.

Folders, first found first: ``sounds/`` beside the project, folders given
with ``--sounds DIR``, the user sound folder (``RADIOPLAY_SOUND_DIR``
overrides it) and the starter sounds shipped in resources/sounds. Every file
libsndfile reads (WAV, FLAC, OGG, MP3, AIFF) is indexed once: its name, the
words of its name, duration, channels, rate and loudness. The index is
cached in the cache folder (``RADIOPLAY_CACHE_DIR``, else the user cache) by
path, size and modification time, so a library of thousands of files is
read once, not at every start. One index serves every library: a scan
keeps the entries of files outside its folders, and the file is rewritten
(atomically) only when its content changes, so processes with different
folders (parallel renders, benchmarks) do not rewrite it in turn.

A cue is matched to the file whose name shares the most words with the cue
text (``SFX: thunder rolls`` -> ``thunder.wav``); among equals the name with
the fewest other words wins, then the earlier folder; a tie that remains, or
no shared word, leaves the cue a placeholder. Audio is resampled to the
project rate once and kept in the clip cache (interleaved, keyed by the
file's identity and the rate), beside the synthesized lines.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from engine.audio.sound_file import AudioFileError, read_audio, read_header
from engine.fsutil import atomic_write_text, read_regular_bytes
from engine.project.model import Project
from engine.project.sound import SoundClip, SoundSuggestion
from engine.synth.cache import ClipCache
from engine.synth.clipfolder import CACHE_DIR_ENV

SOUND_SUFFIXES = (".wav", ".flac", ".ogg", ".oga", ".mp3", ".aif", ".aiff", ".w64", ".caf")
# Words a cue or a file name carries that say nothing about which sound it is.
_STOP = frozenset("a an and at by for from in into of off on onto out over the to under up with".split())
_INDEX_VERSION = 1
# A sound file is at most an hour long, as a line is followed by at most an
# hour of silence: a bed for a longer scene loops.
MAX_SOUND_FILE_S = 3600.0


class SoundError(ValueError):
    """A sound file that cannot be used; the message names the file and why."""


@dataclass(frozen=True)
class SoundInfo:
    path: str  # absolute
    name: str  # the file name without its suffix
    words: tuple[str, ...]
    duration: float
    channels: int
    rate: int
    loudness: float  # integrated LUFS (-inf for silence or under 0.4 s)
    size: int
    mtime_ns: int


def words(text: str) -> tuple[str, ...]:
    """The words that identify a sound: lower case, no stop words, a plural
    ``s`` dropped (``footsteps`` and ``footstep`` are the same sound)."""
    out = []
    for word in re.findall(r"[^\W_]+", text.lower()):
        if word in _STOP or word.isdigit():
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return tuple(dict.fromkeys(out))


def user_sound_dir() -> Path:
    """The folder a producer keeps sounds in (``RADIOPLAY_SOUND_DIR`` overrides it)."""
    override = os.environ.get("RADIOPLAY_SOUND_DIR")
    if override:
        return Path(override)
    import platformdirs

    return platformdirs.user_data_path("radioplay", appauthor=False) / "sounds"


def starter_sound_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "resources" / "sounds"


INDEX_FILE = "sound-index.json"


def index_cache_path() -> Path:
    """Where the sound index is kept: in ``RADIOPLAY_CACHE_DIR`` when it is set
    (as the clip cache and the rooms are), else the user cache folder."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override) / INDEX_FILE
    import platformdirs

    return platformdirs.user_cache_path("radioplay", appauthor=False) / INDEX_FILE


def _storable(entry: dict[str, object]) -> dict[str, object]:
    """An index entry as JSON keeps it (no loudness for a silent file: JSON has no infinity)."""
    loudness = entry.get("loudness")
    finite = isinstance(loudness, (int, float)) and math.isfinite(loudness)
    return {**entry, "words": list(entry["words"]), "loudness": loudness if finite else None}  # type: ignore[call-overload]


def library_folders(project_path: Path | None, extra: Sequence[Path] = ()) -> list[Path]:
    """The folders searched for a project, in order of preference."""
    folders: list[Path] = []
    if project_path is not None:
        folders.append(Path(project_path).resolve().parent / "sounds")
    folders += [Path(f) for f in extra]
    folders += [user_sound_dir(), starter_sound_dir()]
    unique: list[Path] = []
    for folder in folders:
        resolved = folder.expanduser().resolve()
        if resolved not in unique:
            unique.append(resolved)
    return unique


def read_info(path: Path) -> SoundInfo:
    """Read a file once for the index (raises SoundError)."""
    from engine.audio.loudness import LoudnessMeter

    try:
        stat = path.stat()
        audio, rate = read_audio(path, MAX_SOUND_FILE_S)
    except OSError as exc:
        raise SoundError(f"{path}: cannot read this sound file ({_reason(exc)})") from None
    except AudioFileError as exc:
        raise SoundError(f"{exc.path}: cannot read this sound file ({exc.problem})") from None
    channels = int(audio.shape[1])
    loudness = -math.inf
    if audio.shape[0] and channels <= 2:
        meter = LoudnessMeter(int(rate), channels)
        meter.feed(audio)
        loudness = meter.integrated()
    return SoundInfo(str(path), path.stem, words(path.stem), audio.shape[0] / rate, channels, int(rate),
                     loudness, stat.st_size, stat.st_mtime_ns)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.replace(" : ", ": ")


class SoundLibrary:
    """The indexed sound files of some folders (first folder preferred)."""

    def __init__(self, folders: Sequence[Path], index_path: Path | None = None) -> None:
        self.folders = [Path(f) for f in folders]
        self.index_path = index_path
        self.sounds: list[SoundInfo] = []
        self.problems: list[str] = []  # files found but unreadable
        self._folder_of: dict[str, int] = {}
        self.scan()

    @classmethod
    def for_project(cls, project_path: Path | None, extra: Sequence[Path] = ()) -> SoundLibrary:
        return cls(library_folders(project_path, extra), index_cache_path())

    def scan(self) -> None:
        stored, cached = self._load_index()
        fresh: dict[str, dict[str, object]] = {}
        self.sounds, self.problems, self._folder_of = [], [], {}
        for rank, folder in enumerate(self.folders):
            for path in _sound_files(folder):
                key = str(path)
                try:
                    stat = path.stat()
                except OSError:
                    continue
                entry = cached.get(key)
                if entry and entry.get("size") == stat.st_size and entry.get("mtime_ns") == stat.st_mtime_ns:
                    info = SoundInfo(**{**entry, "words": tuple(entry["words"])})  # type: ignore[arg-type]
                else:
                    try:
                        info = read_info(path)
                    except SoundError as exc:  # tried again at the next scan (it may be fixed)
                        self.problems.append(str(exc))
                        continue
                fresh[key] = asdict(info)
                if key not in self._folder_of:
                    self._folder_of[key] = rank
                    self.sounds.append(info)
        # Other libraries' files stay (another project's folders, another process's);
        # those of these folders that are gone or unreadable now go.
        kept = {key: entry for key, entry in cached.items() if key not in fresh and not self._covers(key)}
        self._save_index(stored, {**kept, **fresh})

    def _covers(self, key: str) -> bool:
        """Whether a file of the index lies in one of the folders scanned."""
        path = Path(key)
        return any(path.is_relative_to(folder) for folder in self.folders)

    def _load_index(self) -> tuple[bytes, dict[str, dict[str, object]]]:
        """The index file as stored (b"" without one) and its entries."""
        if self.index_path is None or not self.index_path.is_file():
            return b"", {}
        try:
            stored = read_regular_bytes(self.index_path, 64 << 20)
            data = json.loads(stored.decode("utf-8"))
        except (OSError, ValueError):
            return b"", {}  # a damaged index is rebuilt, not trusted
        if not isinstance(data, dict) or data.get("version") != _INDEX_VERSION:
            return stored, {}
        files = data.get("files")
        if not isinstance(files, dict):
            return stored, {}
        out: dict[str, dict[str, object]] = {}
        for key, entry in files.items():
            if isinstance(entry, dict):
                if entry.get("loudness") is None:
                    entry["loudness"] = -math.inf
                out[key] = entry
        return stored, out

    def _save_index(self, stored: bytes, files: dict[str, dict[str, object]]) -> None:
        """Write the index when its content differs from what was read (atomically: a
        reader never sees half of it); an unchanged library writes nothing."""
        if self.index_path is None:
            return
        text = json.dumps({"version": _INDEX_VERSION,
                           "files": {key: _storable(entry) for key, entry in sorted(files.items())}},
                          sort_keys=True) + "\n"
        if text.encode("utf-8") == stored:
            return
        with contextlib.suppress(OSError):
            self.index_path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.index_path, text)

    # --- finding -----------------------------------------------------------------------

    def find(self, file: str, project_dir: Path | None = None) -> Path:
        """The path a clip's ``file`` names (relative to the project folder)."""
        path = Path(file).expanduser()
        if not path.is_absolute() and project_dir is not None:
            path = project_dir / path
        return path

    def named(self, file_name: str) -> SoundInfo | None:
        """The first library file (by folder order) called ``file_name``."""
        return next((s for s in self.sounds if Path(s.path).name == file_name), None)

    def search(self, query: str) -> list[SoundInfo]:
        """Sounds whose name holds every word of ``query`` (all with no words)."""
        wanted = words(query)
        return [s for s in self.sounds if all(any(w.startswith(q) for w in s.words) for q in wanted)]

    def match(self, cue: str) -> SoundInfo | None:
        """The sound for a cue's text, or None (no shared word, or a tie)."""
        return self._best(set(words(cue)), self.sounds)

    def match_sound(self, names: Sequence[str], cue: str) -> SoundInfo | None:
        """The sound for a suggested cue: among the files whose names hold one of
        ``names`` (the words a file of that sound is named with: ``knock`` for
        door-knock.flac), the one that shares the most words with ``cue`` and
        ``names``; None when no file is of that sound (a kettle in a library without
        one stays unmatched, never given the nearest other sound) or for a tie."""
        wanted = {w for name in names for w in words(name)}
        candidates = [info for info in self.sounds if wanted.intersection(info.words)]
        return self._best(wanted | set(words(cue)), candidates)

    def _best(self, cue_words: set[str], sounds: Sequence[SoundInfo]) -> SoundInfo | None:
        if not cue_words:
            return None
        best: tuple[int, int, int] | None = None
        chosen: list[SoundInfo] = []
        for info in sounds:
            shared = len(cue_words.intersection(info.words))
            if shared == 0:
                continue
            score = (shared, -(len(info.words) - shared), -self._folder_of.get(info.path, 0))
            if best is None or score > best:
                best, chosen = score, [info]
            elif score == best:
                chosen.append(info)
        return chosen[0] if len(chosen) == 1 else None


def assign_matches(project: Project, library: SoundLibrary) -> list[tuple[SoundClip, SoundInfo]]:
    """Give every placeholder clip the library file its cue matches (in place);
    returns what was assigned. Ties and misses stay placeholders."""
    assigned = []
    for clip in project.sounds:
        if clip.placeholder and (match := library.match(clip.cue)) is not None:
            clip.file = match.path
            assigned.append((clip, match))
    return assigned


def match_suggestions(project: Project, library: SoundLibrary) -> list[SoundSuggestion]:
    """Give every open suggested cue the library sound of what it describes (a new list in
    the project, the suggestions being frozen); returns the ones matched. A sound the
    library has no file of stays unmatched."""
    from engine.project.sound_words import SOUND_WORDS

    matched, out = [], []
    for suggestion in project.sound_suggestions:
        sound = SOUND_WORDS.get(suggestion.sound)
        if suggestion.open and not suggestion.file and sound is not None:
            info = library.match_sound(sound.library, suggestion.text)
            if info is not None:
                suggestion = replace(suggestion, file=info.path)
                matched.append(suggestion)
        out.append(suggestion)
    project.sound_suggestions = out
    return matched


def _sound_files(folder: Path) -> Iterable[Path]:
    if not folder.is_dir():
        return []
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.lower().endswith(SOUND_SUFFIXES) and not name.startswith("."):
                found.append(Path(root) / name)
    return found


def sound_key(path: Path, rate: int) -> str:
    """The clip cache key of a sound file at a rate: its identity, not its name."""
    stat = path.stat()
    blob = json.dumps(["sound", str(path.resolve()), stat.st_size, stat.st_mtime_ns, rate]).encode()
    return "snd-" + hashlib.sha256(blob).hexdigest()[:28]


def probe_sound(path: Path) -> int:
    """The channels of a sound file, from its header alone (no samples read,
    nothing resampled). Raises SoundError naming the file, as load_sound does."""
    try:
        channels = read_header(path, MAX_SOUND_FILE_S).channels
    except AudioFileError as exc:
        raise SoundError(f"{exc.path}: cannot read this sound file ({exc.problem})") from None
    if channels > 2:
        raise SoundError(f"{path}: {channels} channels; sound files must be mono or stereo")
    return channels


def load_sound(path: Path, rate: int, cache: ClipCache | None = None) -> np.ndarray:
    """A sound file as (frames, channels) float32 at ``rate``, resampled once
    and kept in the clip cache. Raises SoundError naming the file."""
    channels = probe_sound(path)
    try:
        key = sound_key(path, rate)
    except OSError as exc:
        raise SoundError(f"{path}: cannot read this sound file ({_reason(exc)})") from None
    if cache is not None:
        held = cache.get(key)
        if held is not None and held.shape[0] % channels == 0:
            return held.reshape(-1, channels)
    try:
        audio, source_rate = read_audio(path, MAX_SOUND_FILE_S)
    except AudioFileError as exc:
        raise SoundError(f"{exc.path}: cannot read this sound file ({exc.problem})") from None
    audio = resample(audio, int(source_rate), rate)
    if cache is None:
        return audio
    stored = cache.put(key, audio.reshape(-1))
    return stored.reshape(-1, channels)


def resample(audio: np.ndarray, source: int, target: int) -> np.ndarray:
    """(frames, channels) float32 from ``source`` Hz to ``target`` Hz (polyphase)."""
    if source == target or audio.shape[0] == 0:
        return np.ascontiguousarray(audio, dtype=np.float32)
    from scipy.signal import resample_poly

    ratio = Fraction(target, source).limit_denominator(1000)
    out = resample_poly(audio, ratio.numerator, ratio.denominator, axis=0)
    return np.ascontiguousarray(out, dtype=np.float32)
