"""BlockMixer: block-size independence against a plain numpy reference, pan law,
mute, stems vs master, lane changes between blocks, random access (every lane
exact after any block before it) and the allocation-free per-block path."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from engine.audio.mixer import BlockMixer, PlacedClip, pan_gains

LANES = 3


def make_clips(seed: int = 0) -> list[PlacedClip]:
    """Clips on three lanes, including two overlapping clips on lane 0, a clip
    at frame 0, clips straddling the 8192 boundary and a one-frame clip."""
    rng = np.random.default_rng(seed)

    def audio(n: int) -> np.ndarray:
        return rng.uniform(-0.5, 0.5, n).astype(np.float32)

    return [
        PlacedClip(0, 0, audio(5000)),
        PlacedClip(0, 3000, audio(7000)),        # overlaps the previous one on the same lane
        PlacedClip(1, 8000, audio(400)),         # straddles 8192
        PlacedClip(2, 100, audio(20000)),        # long clip, starts before others
        PlacedClip(1, 12345, audio(1)),          # a single frame
        PlacedClip(2, 25000, audio(3000)),       # after a gap of silence
        PlacedClip(0, 16383, audio(2)),          # straddles 16384
    ]


def reference(clips: list[PlacedClip], lanes: int, length: int,
              settings: dict[int, tuple[float, float, bool]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Straightforward float64 mix: each clip times its lane's pan gains."""
    settings = settings or {}
    stems = np.zeros((lanes, length, 2))
    for clip in clips:
        gain_db, pan, audible = settings.get(clip.role_index, (0.0, 0.0, True))
        if not audible:
            continue
        left, right = pan_gains(gain_db, pan)
        seg = clip.audio.astype(np.float64)
        stems[clip.role_index, clip.start:clip.end, 0] += seg * left
        stems[clip.role_index, clip.start:clip.end, 1] += seg * right
    return stems.sum(axis=0), stems


def mix_all(mixer: BlockMixer, block: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    master = np.zeros((length, 2), dtype=np.float32)
    stems = np.zeros((mixer.lanes, length, 2), dtype=np.float32)
    for t in range(0, length, block):
        n = min(block, length - t)
        m, s = mixer.process(t, n)
        master[t:t + n] = m
        stems[:, t:t + n] = s
    return master, stems


@pytest.mark.parametrize("block", [1, 64, 65, 8192])
def test_block_mix_matches_numpy_reference(block: int) -> None:
    clips = make_clips()
    mixer = BlockMixer(clips, LANES, max_block=8192)
    settings = {0: (-6.0, -0.5, True), 1: (3.0, 1.0, True), 2: (0.0, 0.25, True)}
    for lane, (g, p, a) in settings.items():
        mixer.set_lane(lane, g, p, a)
    length = mixer.length + 100  # past the end is silence
    assert mixer.length == max(c.end for c in clips)
    master, stems = mix_all(mixer, block, length)
    ref_master, ref_stems = reference(clips, LANES, length, settings)
    assert_allclose(master, ref_master, rtol=1e-5, atol=1e-6)
    assert_allclose(stems, ref_stems, rtol=1e-5, atol=1e-6)
    assert not master[mixer.length:].any()


def test_default_lanes_are_centred_unity() -> None:
    clips = make_clips(1)
    mixer = BlockMixer(clips, LANES)
    master, stems = mix_all(mixer, 4096, mixer.length)
    ref_master, ref_stems = reference(clips, LANES, mixer.length)
    assert_allclose(master, ref_master, rtol=1e-5, atol=1e-6)
    assert_allclose(stems, ref_stems, rtol=1e-5, atol=1e-6)


def test_block_sizes_agree_exactly() -> None:
    clips = make_clips(2)
    results = []
    for block in (1, 64, 65, 8192):
        mixer = BlockMixer(clips, LANES)
        mixer.set_lane(1, -3.0, -0.3, True)
        results.append(mix_all(mixer, block, mixer.length))
    for master, stems in results[1:]:
        assert_array_equal(master, results[0][0])
        assert_array_equal(stems, results[0][1])


@pytest.mark.parametrize("max_block", [64, 8192])
def test_block_size_limits(max_block: int) -> None:
    mixer = BlockMixer(make_clips(), LANES, max_block=max_block)
    master, stems = mixer.process(0, max_block)
    assert master.shape == (max_block, 2)
    assert stems.shape == (LANES, max_block, 2)
    for bad in (max_block + 1, 0, -1):
        with pytest.raises(ValueError):
            mixer.process(0, bad)


def test_empty_mixer_is_silent() -> None:
    mixer = BlockMixer([], 2)
    assert mixer.length == 0
    master, stems = mixer.process(1000, 65)
    assert master.shape == (65, 2) and not master.any() and not stems.any()


@pytest.mark.parametrize("gain_db", [-12.0, 0.0, 6.0])
@pytest.mark.parametrize("pan", [-1.0, -0.7, -0.2, 0.0, 0.33, 1.0])
def test_pan_gains_constant_power(gain_db: float, pan: float) -> None:
    left, right = pan_gains(gain_db, pan)
    g = 10 ** (gain_db / 20)
    assert left >= 0 and right >= 0
    assert math.isclose(left ** 2 + right ** 2, g ** 2, rel_tol=1e-12)


def test_pan_gains_centre_and_extremes() -> None:
    left, right = pan_gains(0.0, 0.0)
    assert math.isclose(left, right, rel_tol=1e-12)
    assert math.isclose(left, math.sqrt(0.5), rel_tol=1e-12)  # -3 dB at centre
    left, right = pan_gains(0.0, -1.0)
    assert math.isclose(left, 1.0) and abs(right) < 1e-12
    left, right = pan_gains(0.0, 1.0)
    assert abs(left) < 1e-12 and math.isclose(right, 1.0)
    # Out-of-range pans clamp; moving right never lowers the right channel.
    assert pan_gains(0.0, 5.0) == pan_gains(0.0, 1.0)
    assert pan_gains(0.0, -5.0) == pan_gains(0.0, -1.0)
    rights = [pan_gains(0.0, p)[1] for p in np.linspace(-1, 1, 21)]
    assert all(b >= a for a, b in zip(rights, rights[1:], strict=False))


def test_mute_silences_stem_and_removes_it_from_master() -> None:
    clips = make_clips(3)
    mixer = BlockMixer(clips, LANES)
    mixer.set_lane(2, 0.0, 0.0, False)
    master, stems = mix_all(mixer, 1000, mixer.length)
    assert not stems[2].any()
    assert stems[0].any() and stems[1].any()
    ref_master, _ = reference(clips, LANES, mixer.length, {2: (0.0, 0.0, False)})
    assert_allclose(master, ref_master, rtol=1e-5, atol=1e-6)
    # Unmuting restores the lane.
    mixer.set_lane(2, 0.0, 0.0, True)
    master2, stems2 = mix_all(mixer, 1000, mixer.length)
    assert stems2[2].any()
    assert_allclose(master2, reference(clips, LANES, mixer.length)[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("block", [1, 65, 8192])
def test_stems_sum_to_master(block: int) -> None:
    mixer = BlockMixer(make_clips(4), LANES)
    mixer.set_lane(0, -2.0, -0.8, True)
    mixer.set_lane(1, 1.0, 0.9, False)
    for t in range(0, mixer.length, max(block, 997)):
        master, stems = mixer.process(t, block)
        acc = np.zeros_like(master)
        for lane in range(LANES):
            acc += stems[lane]
        assert_array_equal(master, acc)


def test_overlapping_clips_on_one_lane_add() -> None:
    a = np.full(100, 0.25, dtype=np.float32)
    b = np.full(100, 0.5, dtype=np.float32)
    mixer = BlockMixer([PlacedClip(0, 0, a), PlacedClip(0, 50, b)], 1)
    mixer.set_lane(0, 0.0, -1.0, True)  # hard left: left gain 1, right 0
    master, stems = mixer.process(0, 200)
    expected = np.zeros(200, dtype=np.float32)
    expected[0:100] += 0.25
    expected[50:150] += 0.5
    assert_allclose(master[:, 0], expected, atol=1e-7)
    assert_allclose(master[:, 1], 0.0, atol=1e-7)
    assert_allclose(stems[0], master, atol=0)


def test_set_lane_between_blocks_takes_effect_at_next_block() -> None:
    ones = np.ones(1000, dtype=np.float32)
    mixer = BlockMixer([PlacedClip(0, 0, ones), PlacedClip(1, 0, ones)], 2)
    first, _ = mixer.process(0, 64)
    first = first.copy()
    centre = pan_gains(0.0, 0.0)
    assert_allclose(first, np.tile(np.array(centre) * 2, (64, 1)), rtol=1e-6)
    mixer.set_lane(0, -6.0, -1.0, True)
    mixer.set_lane(1, 0.0, 0.0, False)
    second, stems = mixer.process(64, 65)
    left, right = pan_gains(-6.0, -1.0)
    assert_allclose(second[:, 0], left, rtol=1e-6)
    assert_allclose(second[:, 1], right, atol=1e-7)
    assert not stems[1].any()
    # The block mixed before the change is unaffected (it was copied out).
    assert_allclose(first[:, 0], 2 * centre[0], rtol=1e-6)


def test_random_access_equals_sequential() -> None:
    clips = make_clips(5)
    mixer = BlockMixer(clips, LANES)
    mixer.set_lane(0, -1.0, 0.4, True)
    block = 777
    starts = list(range(0, mixer.length + block, block))
    sequential = {t: mixer.process(t, block)[0].copy() for t in starts}
    rng = np.random.default_rng(7)
    for t in rng.permutation(starts):
        assert_array_equal(mixer.process(int(t), block)[0], sequential[int(t)])
    # Arbitrary seeks not aligned to the block grid agree with the sequential mix.
    full = np.concatenate([sequential[t] for t in starts])
    for t in rng.integers(0, mixer.length, 20):
        n = int(rng.integers(1, 2000))
        t = int(t)
        assert_allclose(mixer.process(t, n)[0], full[t:t + n], rtol=0, atol=0)


def test_every_lane_of_a_block_is_exact_after_any_block_before_it() -> None:
    """A block clears only what the block before it wrote: a long loud block
    followed by short ones, seeks back and forth, and lanes silent in one block
    and sounding in the next, all give every stem exactly as one pass does."""
    mixer = BlockMixer(make_clips(3), LANES)
    length = mixer.length + 100
    _, full = mix_all(mixer, 8192, length)
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.choice([1, 7, 500, 4096, 8192]))
        t = int(rng.integers(0, length - n))
        _, stems = mixer.process(t, n)
        assert_array_equal(stems, full[:, t:t + n])


def test_process_returns_views_of_preallocated_buffers() -> None:
    mixer = BlockMixer(make_clips(), LANES)
    m1, s1 = mixer.process(0, 64)
    m2, s2 = mixer.process(5000, 8192)
    assert np.shares_memory(m1, m2) and np.shares_memory(s1, s2)


def test_per_block_path_allocates_nothing() -> None:
    clips = make_clips(6)
    mixer = BlockMixer(clips, LANES)
    mixer.set_lane(1, -3.0, 0.5, True)
    block = 1024
    positions = [(i * 389) % (mixer.length + block) for i in range(200)]
    mixer.process(0, block)  # warm up
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        for t in positions:
            mixer.process(t, block)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # One 1024-frame float32 stereo block alone is 8 KB: anything copied per
    # block would blow far past this.
    assert peak - base < 4096, f"per-block path allocated {peak - base} bytes"
