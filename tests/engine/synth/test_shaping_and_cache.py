"""Voice shaping (trim, join, level, resample, pitch) and the clip cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from engine.project.model import VoiceParams
from engine.synth import shaping
from engine.synth.cache import ClipCache, cache_dir_for, clip_key

RATES = [22050, 44100, 48000]
PEAK = 10 ** (-1 / 20)


def loud_noise(n: int, seed: int = 0) -> np.ndarray:
    """Every sample well above the trim threshold: |x| in [0.3, 0.6]."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(0.3, 0.6, n) * rng.choice([-1.0, 1.0], n)).astype(np.float32)


def peak_frequency(x: np.ndarray, rate: int) -> float:
    w = np.hanning(x.size)
    spectrum = np.abs(np.fft.rfft(x * w))
    return float(np.fft.rfftfreq(x.size, 1 / rate)[np.argmax(spectrum)])


def fundamental(x: np.ndarray, rate: int, lo_hz: float = 60.0, hi_hz: float = 1000.0) -> float:
    """The period of a voiced sound by autocorrelation: what the ear hears as its pitch,
    even where formants are preserved and the strongest partial is a higher harmonic."""
    x = x - x.mean()
    corr = np.fft.irfft(np.abs(np.fft.rfft(x, 2 * x.size)) ** 2)[: x.size]
    lo, hi = int(rate / hi_hz), int(rate / lo_hz)
    lag = lo + int(np.argmax(corr[lo:hi]))
    return rate / lag


# ---------------------------------------------------------------- trim


@pytest.mark.parametrize("rate", RATES)
def test_trim_keeps_pad_around_sound(rate: int) -> None:
    lead, body, tail = int(0.3 * rate), int(0.2 * rate), int(0.25 * rate)
    x = np.zeros(lead + body + tail, dtype=np.float32)
    x[lead:lead + body] = loud_noise(body)
    x[:lead] = 1e-4 * loud_noise(lead, 1)  # -70 dB hiss: below the -45 dB gate
    pad = int(0.015 * rate)
    y = shaping.trim(x, rate)
    assert_array_equal(y, x[lead - pad: lead + body + pad])


def test_trim_keeps_quiet_but_audible_detail() -> None:
    rate = 48000
    x = np.zeros(rate, dtype=np.float32)
    x[10000:12000] = loud_noise(2000)  # peak ~0.6
    x[30000] = 0.6 * 10 ** (-40 / 20)  # -40 dB relative: kept
    x[40000] = 0.6 * 10 ** (-50 / 20)  # -50 dB relative: trimmed
    pad = int(0.015 * rate)
    y = shaping.trim(x, rate)
    assert y.size == 30000 + pad + 1 - (10000 - pad)


def test_trim_pad_clamped_at_edges() -> None:
    rate = 44100
    x = loud_noise(1000)
    assert_array_equal(shaping.trim(x, rate), x)


@pytest.mark.parametrize("x", [np.zeros(0, dtype=np.float32), np.zeros(4800, dtype=np.float32),
                               np.full(100, 1e-8, dtype=np.float32)])
def test_trim_empty_and_silent(x: np.ndarray) -> None:
    y = shaping.trim(x, 48000)
    assert y.size == 0 and y.dtype == np.float32


# ---------------------------------------------------------------- join


@pytest.mark.parametrize("rate", RATES)
def test_join_inserts_pauses(rate: int) -> None:
    a, b, c = loud_noise(100, 1), loud_noise(57, 2), loud_noise(1, 3)
    pauses = [0.35, 0.0123, 9.0]  # the last pause (after the last piece) is not used
    y = shaping.join([a, b, c], pauses, rate)
    p0, p1 = int(0.35 * rate), int(0.0123 * rate)
    assert y.dtype == np.float32
    assert y.size == 100 + p0 + 57 + p1 + 1
    assert_array_equal(y[:100], a)
    assert not y[100:100 + p0].any()
    assert_array_equal(y[100 + p0:157 + p0], b)
    assert not y[157 + p0:157 + p0 + p1].any()
    assert_array_equal(y[-1:], c)


def test_join_single_and_none() -> None:
    a = loud_noise(10)
    assert_array_equal(shaping.join([a], [2.0], 48000), a)
    assert shaping.join([], [], 48000).size == 0


# ---------------------------------------------------------------- level


@pytest.mark.parametrize("scale", [1e-3, 0.2, 1.0, 7.5])
def test_level_peaks_at_minus_one_dbfs(scale: float) -> None:
    x = loud_noise(5000) * np.float32(scale)
    ratio = x / np.max(np.abs(x))
    y = shaping.level(x.copy())
    assert_allclose(np.max(np.abs(y)), PEAK, rtol=1e-6)
    assert_allclose(y / np.max(np.abs(y)), ratio, rtol=1e-5, atol=1e-7)  # a pure gain


def test_level_leaves_silence_and_empty() -> None:
    assert_array_equal(shaping.level(np.zeros(100, dtype=np.float32)), np.zeros(100))
    assert shaping.level(np.zeros(0, dtype=np.float32)).size == 0


# ---------------------------------------------------------------- resample


@pytest.mark.parametrize(("src", "dst"), [(16000, 48000), (22050, 48000), (48000, 22050), (22050, 44100)])
def test_resample_length_and_frequency(src: int, dst: int) -> None:
    t = np.arange(src) / src  # one second
    x = (0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype(np.float32)
    y = shaping.resample(x, src, dst)
    assert y.dtype == np.float32 and y.flags.c_contiguous
    assert abs(y.size - round(x.size * dst / src)) <= 1
    mid = y[y.size // 4: 3 * y.size // 4]
    assert abs(peak_frequency(mid, dst) - 1000.0) <= 2 * dst / mid.size
    assert_allclose(np.max(np.abs(mid)), 0.5, rtol=0.01)  # level preserved


def test_resample_same_rate_or_empty_is_identity() -> None:
    x = loud_noise(100)
    assert shaping.resample(x, 48000, 48000) is x
    assert shaping.resample(x[:0], 16000, 48000).size == 0


# ---------------------------------------------------------------- pitch


def harmonic_tone(rate: int, f0: float = 200.0, seconds: float = 1.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (0.3 * sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 11))).astype(np.float32)


@pytest.mark.parametrize("rate", [22050, 48000])
@pytest.mark.parametrize(("semitones", "factor"), [(12.0, 2.0), (-12.0, 0.5)])
def test_pitch_shift_octave(rate: int, semitones: float, factor: float) -> None:
    x = harmonic_tone(rate)
    y = shaping.pitch_shift(x, rate, semitones)
    assert y.dtype == np.float32 and y.shape == x.shape  # pitch only, same duration
    mid = y[rate // 4: 3 * rate // 4]
    # The pitch, not the strongest partial: with the formants in place, a tone an octave
    # down keeps its energy where it was (its second harmonic), as a lower voice would.
    assert abs(fundamental(mid, rate) - 200.0 * factor) <= 0.05 * 200.0 * factor
    assert abs(fundamental(x[rate // 4: 3 * rate // 4], rate) - 200.0) <= 2


def test_pitch_shift_zero_is_identity() -> None:
    x = harmonic_tone(48000)
    assert shaping.pitch_shift(x, 48000, 0.0) is x
    assert shaping.pitch_shift(x, 48000, 0.0005) is x
    assert shaping.pitch_shift(x[:0], 48000, 5.0).size == 0


def test_fade_edges() -> None:
    rate = 48000
    x = np.ones(rate // 10, dtype=np.float32)
    y = shaping.fade_edges(x.copy(), rate)
    n = int(0.004 * rate)
    assert y[0] == 0.0 and y[-1] == 0.0
    assert np.all(np.diff(y[:n]) > 0)
    assert_array_equal(y[n:-n], 1.0)
    tiny = shaping.fade_edges(np.ones(3, dtype=np.float32), rate)
    assert tiny.shape == (3,)


# ---------------------------------------------------------------- clip cache


def clip(n: int = 1000, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, n).astype(np.float32)


def test_memory_round_trip() -> None:
    cache = ClipCache()
    audio = clip()
    assert "k1" not in cache and cache.get("k1") is None
    cache.put("k1", audio.copy())
    assert "k1" in cache
    got = cache.get("k1")
    assert_array_equal(got, audio)
    assert not got.flags.writeable  # shared clips must not be edited in place
    assert (cache.hits, cache.misses) == (1, 1)


def test_put_converts_to_float32() -> None:
    cache = ClipCache()
    cache.put("k", np.linspace(-1, 1, 11))  # float64
    got = cache.get("k")
    assert got.dtype == np.float32
    assert_allclose(got, np.linspace(-1, 1, 11), rtol=1e-7)


def test_disk_round_trip_memory_mapped(tmp_path: Path) -> None:
    folder = tmp_path / "play.radioplay-cache"
    audio = clip(48000, 1)
    ClipCache(folder).put("abc", audio)
    assert (folder / "abc.npy").is_file()
    fresh = ClipCache(folder)
    assert "abc" in fresh and "nope" not in fresh
    got = fresh.get("abc")
    assert not got.flags.writeable
    assert got.dtype == np.float32 and got.ndim == 1
    assert_array_equal(got, audio)
    assert fresh.hits == 1
    # Read from disk once, then served from the arena: the same memory, no copy.
    again = fresh.get("abc")
    assert np.shares_memory(again, fresh.store.arena.buffer) and np.shares_memory(again, got)
    # With no room in memory, the disk entry is served memory-mapped.
    tiny = ClipCache(folder, memory_budget_bytes=4 * 4800)
    assert isinstance(tiny.get("abc"), np.memmap)
    assert not list(folder.glob("*.part")) and not list(folder.glob(".*"))


def test_no_part_files_left(tmp_path: Path) -> None:
    cache = ClipCache(tmp_path / "c")
    for i in range(10):
        cache.put(f"key{i}", clip(100 + i, i))
    cache.put("key3", clip(5))  # overwrite an existing entry
    names = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert names == sorted(f"key{i}.npy" for i in range(10))


def test_lru_eviction_keeps_newest() -> None:
    size = clip().nbytes
    # One clip per arena block, three blocks: the fourth clip must evict one.
    cache = ClipCache(memory_budget_bytes=3 * size, block_frames=clip().shape[0])
    for name in "abc":
        cache.put(name, clip(seed=ord(name)))
    assert cache.get("a") is not None  # touch a: b is now least recently used
    cache.put("d", clip(seed=4))
    assert "b" not in cache and cache.get("b") is None
    for name in "acd":
        assert name in cache
        assert_array_equal(cache.get(name), clip(seed=4 if name == "d" else ord(name)))
    # The loop above read a, then c, then d: a is now least recently used.
    cache.put("e", clip(seed=5))
    assert "a" not in cache
    assert all(name in cache for name in "cde")


def test_oversized_clip_is_still_returned_and_kept_on_disk(tmp_path: Path) -> None:
    cache = ClipCache(tmp_path, memory_budget_bytes=400, block_frames=100)
    cache.put("small", clip(10))
    big = cache.put("big", clip(1000))  # larger than the whole arena
    assert_array_equal(big, clip(1000)) and not big.flags.writeable
    assert "big" in cache and "small" in cache.store and "big" not in cache.store
    assert_array_equal(cache.get("big"), clip(1000))


def test_evicted_entries_remain_on_disk(tmp_path: Path) -> None:
    size = clip().nbytes
    cache = ClipCache(tmp_path, memory_budget_bytes=2 * size, block_frames=clip().shape[0])
    for i in range(5):
        cache.put(f"k{i}", clip(seed=i))
    for i in range(5):
        assert f"k{i}" in cache
        assert_array_equal(cache.get(f"k{i}"), clip(seed=i))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "header_only", "bad_version"])
def test_corrupted_entry_is_a_miss_and_removed(tmp_path: Path, damage: str) -> None:
    ClipCache(tmp_path).put("k", clip(5000))
    path = tmp_path / "k.npy"
    raw = path.read_bytes()
    data = {
        "garbage": b"not a numpy file at all" * 10,
        "truncated": raw[: len(raw) // 2],
        "header_only": raw[:40],
        "bad_version": raw[:6] + b"\x09\x09" + raw[8:],
    }[damage]
    path.write_bytes(data)
    fresh = ClipCache(tmp_path)
    assert fresh.get("k") is None
    assert fresh.misses == 1
    assert not path.exists()
    assert "k" not in fresh
    fresh.put("k", clip(10))  # and it can be written again
    assert_array_equal(ClipCache(tmp_path).get("k"), clip(10))


def test_empty_entry_file_is_a_miss_and_removed(tmp_path: Path) -> None:
    (tmp_path / "k.npy").write_bytes(b"")
    cache = ClipCache(tmp_path)
    assert cache.get("k") is None
    assert not (tmp_path / "k.npy").exists()


def test_wrong_shape_or_dtype_on_disk_is_a_miss(tmp_path: Path) -> None:
    np.save(tmp_path / "f64.npy", np.zeros(10))
    np.save(tmp_path / "stereo.npy", np.zeros((10, 2), dtype=np.float32))
    cache = ClipCache(tmp_path)
    assert cache.get("f64") is None and cache.get("stereo") is None
    assert cache.misses == 2


def test_cache_dir_for() -> None:
    assert cache_dir_for(Path("/x/show.radioplay")) == Path("/x/show.radioplay-cache")


BASE = {
    "units": ("Hello there.", "Second unit."),
    "lexicon_used": (("Alder", "All der"),),
    "voice_identity": "en_US-joe-medium:sha256:abcd",
    "params": VoiceParams(),
    "speaker_id": None,
    "sample_rate": 48000,
}


def key(**changes: object) -> str:
    return clip_key(**{**BASE, **changes})  # type: ignore[arg-type]


def test_clip_key_stable() -> None:
    k = key()
    assert len(k) == 32 and all(c in "0123456789abcdef" for c in k)
    assert key() == k
    assert key(params=VoiceParams(), units=("Hello there.", "Second unit.")) == k
    assert key(params=VoiceParams().with_changes(speed=1.0 + 1e-9)) == k  # below the rounding


@pytest.mark.parametrize("changes", [
    {"units": ("Hello there!", "Second unit.")},
    {"units": ("Hello there. Second unit.",)},
    {"units": ("Second unit.", "Hello there.")},
    {"lexicon_used": ()},
    {"lexicon_used": (("Alder", "Al der"),)},
    {"voice_identity": "en_US-joe-medium:sha256:abce"},
    {"params": VoiceParams(speed=1.1)},
    {"params": VoiceParams(variation=0.5)},
    {"params": VoiceParams(pitch=-2.0)},
    {"params": VoiceParams(backend="other")},
    {"speaker_id": 0},
    {"speaker_id": 3},
    {"sample_rate": 44100},
], ids=lambda c: next(iter(c)))
def test_clip_key_changes_with_each_input(changes: dict) -> None:
    assert key(**changes) != key()


def test_clip_keys_all_distinct() -> None:
    variants = [key(params=VoiceParams(pitch=p)) for p in (-2.0, -1.0, 0.0, 1.0, 2.0)]
    variants += [key(speaker_id=s) for s in range(5)]  # None (the default) differs from 0
    variants += [key(sample_rate=r) for r in (22050, 44100)]
    assert len(set(variants)) == len(variants)


def test_a_clip_on_disk_while_its_synthesis_holds_the_reservation_is_served_from_disk(tmp_path: Path) -> None:
    """commit() writes the file before filling the arena block: a reader in
    between gets the memory-mapped file, unpinned, instead of an error."""
    cache = ClipCache(tmp_path / "cache")
    audio = np.linspace(-0.5, 0.5, 4800, dtype=np.float32)
    allocation = cache.reserve("k", 4800)
    assert allocation is not None
    cache._write_disk("k", audio)  # the first half of commit()
    clip, pinned = cache.acquire("k")
    assert clip is not None and not pinned
    assert_array_equal(clip, audio)
    stored = cache.commit("k", allocation, audio)  # the second half still works
    assert_array_equal(stored, audio)
    clip, pinned = cache.acquire("k")
    assert pinned and cache.store.pins("k") == 1
    cache.unpin("k")
