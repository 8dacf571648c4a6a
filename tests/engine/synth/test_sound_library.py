"""The sound library: real files of each format libsndfile reads, the cached
index, cue matching (most shared words; ties and misses stay placeholders),
resampling once into the clip cache, and unreadable files named."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.synth.cache import ClipCache
from engine.synth.sound_library import (
    SoundError,
    SoundLibrary,
    library_folders,
    load_sound,
    starter_sound_dir,
    words,
)


def write(path: Path, seconds: float = 0.5, rate: int = 44_100, channels: int = 1, **kwargs: object) -> Path:
    t = np.arange(int(seconds * rate)) / rate
    x = 0.2 * np.sin(2 * np.pi * 440 * t)
    audio = x if channels == 1 else np.stack([x] * channels, axis=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(path), audio, rate, **kwargs)  # type: ignore[arg-type]
    return path


def test_words_of_cues_and_names() -> None:
    assert words("SFX: thunder rolls") == ("sfx", "thunder", "roll")
    assert words("rain-on-the_glass 02") == ("rain", "glass")
    assert words("Footsteps") == words("footstep") == ("footstep",)
    assert words("glass") == ("glass",)


def test_index_reads_every_format_and_caches_it(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    write(folder / "thunder.wav")
    write(folder / "rain-on-glass.flac", channels=2, rate=48_000)
    write(folder / "sub" / "wind.ogg", seconds=1.0, format="OGG", subtype="VORBIS")
    write(folder / "sting.mp3", seconds=1.0, format="MP3", subtype="MPEG_LAYER_III")
    (folder / "notes.txt").write_text("not a sound")
    (folder / "broken.wav").write_bytes(b"RIFF nonsense")
    index = tmp_path / "cache" / "index.json"
    library = SoundLibrary([folder], index)
    by_name = {s.name: s for s in library.sounds}
    assert set(by_name) == {"thunder", "rain-on-glass", "wind", "sting"}
    rain = by_name["rain-on-glass"]
    assert rain.channels == 2 and rain.rate == 48_000 and rain.duration == pytest.approx(0.5)
    assert rain.words == ("rain", "glass") and math.isfinite(rain.loudness)
    assert len(library.problems) == 1 and "broken.wav: cannot read this sound file" in library.problems[0]
    cached = json.loads(index.read_text())
    assert len(cached["files"]) == 4
    # A second library reads the index, not the files (a changed file is read again).
    stamp = index.stat().st_mtime_ns
    again = SoundLibrary([folder], index)
    assert {s.name for s in again.sounds} == set(by_name) and index.stat().st_mtime_ns == stamp
    write(folder / "thunder.wav", seconds=2.0)
    assert {s.name: s for s in SoundLibrary([folder], index).sounds}["thunder"].duration == pytest.approx(2.0)


def test_cue_matching_most_shared_words_ties_and_misses(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    for name in ("thunder", "thunder-distant", "rain-on-glass", "rain", "door-knock", "door-slam"):
        write(folder / f"{name}.wav", seconds=0.1)
    library = SoundLibrary([folder])
    assert library.match("thunder rolls").name == "thunder"  # type: ignore[union-attr]
    assert library.match("rain on the glass").name == "rain-on-glass"  # type: ignore[union-attr]
    assert library.match("distant thunder").name == "thunder-distant"  # type: ignore[union-attr]
    assert library.match("a door") is None  # door-knock or door-slam: a tie stays a placeholder
    assert library.match("seagulls") is None
    assert [s.name for s in library.search("do")] == ["door-knock", "door-slam"]


def test_earlier_folders_win_among_equal_names(tmp_path: Path) -> None:
    mine = write(tmp_path / "project" / "sounds" / "thunder.wav", seconds=0.1)
    write(tmp_path / "user" / "thunder.flac", seconds=0.1)
    library = SoundLibrary([tmp_path / "project" / "sounds", tmp_path / "user"])
    assert library.match("thunder").path == str(mine)  # type: ignore[union-attr]


def test_folders_for_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RADIOPLAY_SOUND_DIR", str(tmp_path / "mine"))
    folders = library_folders(tmp_path / "play.radioplay", [tmp_path / "extra"])
    assert folders == [(tmp_path / "sounds").resolve(), (tmp_path / "extra").resolve(),
                       (tmp_path / "mine").resolve(), starter_sound_dir()]
    starter = {s.name for s in SoundLibrary([starter_sound_dir()]).sounds}
    assert {"rain", "wind", "thunder", "room-tone", "radio-static", "radio-tuning", "phone-ring",
            "door-knock", "footsteps"} <= starter


def test_load_resamples_once_into_the_clip_cache(tmp_path: Path) -> None:
    path = write(tmp_path / "rain.flac", seconds=1.0, rate=32_000, channels=2)
    cache = ClipCache(tmp_path / "cache")
    audio = load_sound(path, 48_000, cache)
    assert audio.shape == (48_000, 2) and audio.dtype == np.float32
    assert np.abs(audio[1000:-1000, 0]).max() == pytest.approx(0.2, abs=0.01)
    hits = cache.hits
    again = load_sound(path, 48_000, cache)
    assert cache.hits == hits + 1 and np.array_equal(again, audio)
    assert len(list((tmp_path / "cache").glob("snd-*.npy"))) == 1


def test_unreadable_sound_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "phone.wav"
    bad.write_bytes(b"not audio at all")
    with pytest.raises(SoundError, match=r"phone\.wav: cannot read this sound file"):
        load_sound(bad, 48_000)
    with pytest.raises(SoundError, match=r"gone\.wav: cannot read this sound file"):
        load_sound(tmp_path / "gone.wav", 48_000)
