"""The programme (mixer -> lane effects -> master gain -> master chain): the dry
path against the plain mixer and limiter, block-size independence with
effects (down to one frame), preset swaps between blocks, seeks, latency,
the allocation-free dry path, and the loudness analysis through the real
chain."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from engine.audio.effects import LIMITER_CEILING_DB, EffectChain, MasterChain, lane_chain
from engine.audio.limiter import LookaheadLimiter
from engine.audio.loudness import LoudnessMeter
from engine.audio.meters import LevelMeters
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.normalize import ProgrammeAnalysis
from engine.audio.programme import Programme

RATE = 48_000
LANES = 3


def speechlike(seconds: float, seed: int, level: float = 0.1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    envelope = 0.3 + 0.7 * np.abs(np.sin(2 * np.pi * 3.0 * t + seed))
    x = rng.normal(0.0, level, n) * envelope
    x[rng.integers(0, n, 8)] = rng.choice([-0.9, 0.9], 8)
    return x.astype(np.float32)


def make_mixer(max_block: int = 8192) -> BlockMixer:
    clips = [PlacedClip(0, 0, speechlike(0.6, 1)), PlacedClip(1, int(0.5 * RATE), speechlike(0.5, 2)),
             PlacedClip(2, int(0.8 * RATE), speechlike(0.4, 3)), PlacedClip(0, int(1.6 * RATE), speechlike(0.3, 4))]
    mixer = BlockMixer(clips, LANES, max_block)
    mixer.set_lane(0, 0.0, -0.4, True)
    mixer.set_lane(1, -3.0, 0.5, True)
    mixer.set_lane(2, 2.0, 0.0, True)
    return mixer


def render(programme: Programme, total: int, block: int | list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Master (latency dropped, flushed) and stems of frames [0, total)."""
    sizes = iter(block) if isinstance(block, list) else None
    masters, stems = [], []
    t = 0
    while t < total:
        n = min(next(sizes) if sizes else block, total - t)  # type: ignore[arg-type]
        m, s = programme.process(t, n)
        masters.append(m.copy())
        stems.append(s.copy())
        t += n
    masters.append(programme.flush())
    return np.concatenate(masters)[programme.latency:], np.concatenate(stems, axis=1)


def total_of(mixer: BlockMixer) -> int:
    return mixer.length + RATE // 2


# --- the dry path ------------------------------------------------------------------


@pytest.mark.parametrize("block", [1, 64, 65, 8192])
def test_dry_programme_is_the_mixer_times_gain_through_the_limiter(block: int) -> None:
    mixer = make_mixer()
    total = total_of(mixer)
    programme = Programme(make_mixer(), RATE, master_effect="clean", gain_db=6.0)
    master, stems = render(programme, total, block)
    gain = np.float32(10 ** (6.0 / 20))
    expected_stems = np.concatenate([mixer.process(t, min(4096, total - t))[1] * gain
                                     for t in range(0, total, 4096)], axis=1)
    assert_array_equal(stems, expected_stems)
    limiter = LookaheadLimiter(RATE, LIMITER_CEILING_DB)
    summed = expected_stems.sum(axis=0)
    expected = np.concatenate([limiter.process(summed), limiter.flush()])[limiter.latency:]
    assert_allclose(master, expected, atol=1e-6)
    assert np.abs(master).max() <= 10 ** (LIMITER_CEILING_DB / 20) + 1e-6


def test_dry_lanes_never_reach_pedalboard(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: EffectChain, block: np.ndarray, reset: bool = False) -> np.ndarray:
        raise AssertionError(f"{self.name} chain called")

    monkeypatch.setattr(EffectChain, "process", refuse)
    programme = Programme(make_mixer(), RATE, master_effect="clean")
    assert programme.dry and programme.lane_effects == ("none",) * LANES
    for t in range(0, 20000, 1000):
        programme.process(t, 1000)


def _peak_allocated(step, positions) -> int:  # type: ignore[no-untyped-def]
    step(positions[0])  # warm up
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        for t in positions[1:]:
            step(t)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - base


def test_dry_path_up_to_the_limiter_allocates_nothing() -> None:
    programme = Programme(make_mixer(), RATE, master_effect="clean", gain_db=3.0)
    block = 1024
    positions = list(range(0, 200 * block, block))  # consecutive: no seek resets
    allocated = _peak_allocated(lambda t: programme.mix(t, block), positions)
    assert allocated < 4096, f"per-block path allocated {allocated} bytes"


def test_whole_dry_programme_allocates_only_what_the_limiter_does() -> None:
    """The look-ahead limiter works on block-sized numpy temporaries; the
    programme adds nothing of its own around it (a copied stem block would be
    16 KB per lane here)."""
    block = 1024
    positions = list(range(0, 200 * block, block))
    programme = Programme(make_mixer(), RATE, master_effect="clean", gain_db=3.0)
    whole = _peak_allocated(lambda t: programme.process(t, block), positions)
    limiter = LookaheadLimiter(RATE, LIMITER_CEILING_DB)
    reference = Programme(make_mixer(), RATE, master_effect="clean", gain_db=3.0)
    alone = _peak_allocated(lambda t: limiter.process(reference.mix(t, block)[0]), positions)
    assert whole < alone + 4096, f"programme {whole} bytes, limiter alone {alone}"


# --- effects ---------------------------------------------------------------------------


WET = ["telephone", "room", "radio"]


@pytest.mark.parametrize("block", [1, 2, 64, 65, 8192, [1, 2, 1, 700, 2, 3, 5000]])
def test_wet_programme_does_not_depend_on_the_block_size(block: int | list[int]) -> None:
    total = total_of(make_mixer())
    reference = render(Programme(make_mixer(), RATE, WET, "broadcast", 4.0), total, 4096)
    sizes = block * 2000 if isinstance(block, list) else block
    master, stems = render(Programme(make_mixer(), RATE, WET, "broadcast", 4.0), total, sizes)
    # Exact but for reverb residue under -80 dBFS: blocks of silence after a
    # tail has decayed skip the reverb, at block boundaries that differ.
    assert_allclose(stems, reference[1], atol=1e-4)
    assert_allclose(master, reference[0], atol=1e-4)


def test_stems_are_post_lane_effect_and_sum_to_what_enters_the_master_chain() -> None:
    mixer = make_mixer()
    total = total_of(mixer)
    programme = Programme(make_mixer(), RATE, WET, "broadcast", 4.0)
    master, stems = render(programme, total, 1000)
    # Each stem is its lane's chain applied to the mixer's stem, times the gain.
    gain = np.float32(10 ** (4.0 / 20))
    for lane, name in enumerate(WET):
        chain = lane_chain(name, RATE)
        dry = np.concatenate([mixer.process(t, min(1000, total - t))[1][lane].copy() for t in range(0, total, 1000)])
        wet = np.concatenate([chain.process(dry[i:i + 1000]) for i in range(0, total, 1000)])
        assert_allclose(stems[lane], wet * gain, rtol=1e-5, atol=1e-6)
    # The master is the master chain on the sum of the stems.
    chain = MasterChain("broadcast", RATE, 4.0)
    summed = stems.sum(axis=0)
    expected = np.concatenate([chain.process(summed[i:i + 1000]) for i in range(0, total, 1000)]
                              + [chain.flush()])[chain.latency:]
    assert_allclose(master, expected, atol=1e-5)


def test_master_trails_the_stems_by_the_latency() -> None:
    click = np.zeros(100, dtype=np.float32)
    click[0] = 0.5
    mixer = BlockMixer([PlacedClip(0, 3000, click)], 1)
    programme = Programme(mixer, RATE, ["room"], "broadcast")
    master, stems = [], []
    for t in range(0, 6000, 500):
        m, s = programme.process(t, 500)
        master.append(m.copy())
        stems.append(s[0].copy())
    m, s = np.concatenate(master), np.concatenate(stems)
    assert int(np.flatnonzero(s[:, 0])[0]) == 3000
    assert int(np.flatnonzero(m[:, 0])[0]) == 3000 + programme.latency


def test_changing_a_lane_preset_takes_effect_at_the_next_block() -> None:
    mixer = make_mixer()
    programme = Programme(mixer, RATE, master_effect="clean")
    first = programme.process(0, 4096)[1].copy()
    programme.set_lane_effect(0, "telephone")
    assert programme.lane_effects == ("telephone", "none", "none") and not programme.dry
    second = programme.process(4096, 4096)[1]
    dry = mixer.process(4096, 4096)[1]
    assert not np.allclose(second[0], dry[0], atol=1e-3)  # lane 0 is filtered now
    assert_array_equal(second[1], dry[1])
    assert_array_equal(first[0], mixer.process(0, 4096)[1][0])  # the block before is as it was
    programme.set_lane_effect(0, "none")
    assert programme.dry


def test_changing_the_master_preset_keeps_the_stream_going() -> None:
    programme = Programme(make_mixer(), RATE, master_effect="clean")
    programme.process(0, 4096)
    programme.set_master_effect("broadcast")
    assert programme.master_effect == "broadcast" and not programme.dry
    # No seek, no reset: the limiter's delay line carries the tail of the last block.
    limiter_before = programme._master.limiter
    programme.process(4096, 4096)
    assert programme._master.limiter is limiter_before
    with pytest.raises(ValueError, match="unknown master effect 'loud'"):
        programme.set_master_effect("loud")
    assert programme.master_effect == "broadcast"


def test_a_seek_resets_the_effects() -> None:
    """A block that does not follow the last one starts like a fresh programme
    there (no reverb tail or limiter delay from before the seek)."""
    seek_to = int(0.65 * RATE)
    fresh = Programme(make_mixer(), RATE, ["room", "hall", "distance"], "broadcast")
    expected = fresh.process(seek_to, 4096)
    programme = Programme(make_mixer(), RATE, ["room", "hall", "distance"], "broadcast")
    for t in range(0, seek_to - 4096, 4096):
        programme.process(t, 4096)
    master, stems = programme.process(seek_to, 4096)
    assert_allclose(master, expected[0], atol=1e-7)
    assert_allclose(stems, expected[1], atol=1e-7)
    # The same with an explicit reset() (e.g. a loop that wraps to where it was).
    programme.reset()
    master, stems = programme.process(seek_to, 4096)
    assert_allclose(master, expected[0], atol=1e-7)


def test_out_receives_the_master() -> None:
    programme = Programme(make_mixer(), RATE, ["telephone", "none", "none"], "broadcast")
    reference = Programme(make_mixer(), RATE, ["telephone", "none", "none"], "broadcast")
    out = np.zeros((777, 2), dtype=np.float32)
    master, _ = programme.process(20000, 777, out=out)
    assert master is out
    assert_array_equal(out, reference.process(20000, 777)[0])


def test_meters_follow_the_blocks_the_programme_makes() -> None:
    meters = LevelMeters(RATE, LANES)
    programme = Programme(make_mixer(), RATE, ["room", "none", "none"], "broadcast", 6.0, meters=meters)
    programme.process(0, 4096)
    snap = meters.snapshot
    assert snap.frames == 4096
    assert math.isfinite(snap.lane_peak_db[0]) and snap.lane_peak_db[1] == -math.inf  # lane 1 starts at 0.5 s
    assert snap.master_peak_db <= LIMITER_CEILING_DB + 1e-3


def test_tail_covers_the_longest_lane_effect() -> None:
    programme = Programme(make_mixer(), RATE, ["room", "hall", "none"])
    assert programme.tail_s == lane_chain("hall", RATE).tail_s > lane_chain("room", RATE).tail_s


def test_wrong_lane_count_is_refused() -> None:
    with pytest.raises(ValueError, match="2 lane effects for 3 lanes"):
        Programme(make_mixer(), RATE, ["none", "none"])


# --- loudness analysis -------------------------------------------------------------------


def test_dry_analysis_takes_no_pass_over_the_mix(monkeypatch: pytest.MonkeyPatch) -> None:
    mixer = make_mixer()
    programme = Programme(mixer, RATE, master_effect="clean")
    total = total_of(mixer)
    expected = ProgrammeAnalysis.from_clips(RATE, total, mixer.audible_clips())

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("mixed a block")

    monkeypatch.setattr(mixer, "process", refuse)
    analysis = programme.analyse(total)
    assert analysis.loudness() == expected.loudness()
    assert analysis.loudness(12.0, LIMITER_CEILING_DB) == expected.loudness(12.0, LIMITER_CEILING_DB)


def measured(programme: Programme, total: int) -> float:
    """The reference: the real programme, limited, metered."""
    meter = LoudnessMeter(RATE)
    master, _ = render(programme, total, 4096)
    meter.feed(master)
    return meter.integrated()


@pytest.mark.parametrize("lanes, master", [(["none"] * 3, "broadcast"), (WET, "clean"), (WET, "broadcast"),
                                           (["hall", "distance", "radio"], "broadcast")])
def test_wet_analysis_solves_the_gain_through_the_real_chain(lanes: list[str], master: str) -> None:
    mixer = make_mixer(4096)
    programme = Programme(mixer, RATE, lanes, master, gain_db=-5.0)
    total = total_of(mixer) + int(programme.tail_s * RATE)
    analysis = programme.analyse(total, 4096)
    assert programme.gain_db == -5.0  # the analysis runs at unity and puts the gain back
    gain_db, predicted = analysis.solve_gain(-16.0, LIMITER_CEILING_DB)
    programme.set_master_gain(gain_db)
    assert predicted == pytest.approx(-16.0, abs=0.05)
    assert measured(programme, total) == pytest.approx(-16.0, abs=0.2)


def test_the_fast_analysis_would_miss_with_effects() -> None:
    """Why the pass is needed: the clip-based analysis cannot see what a lane
    effect does to the level (``distance`` is 6-7 dB quieter)."""
    mixer = make_mixer(4096)
    programme = Programme(mixer, RATE, ["distance", "distance", "none"], "clean")
    total = total_of(mixer) + int(programme.tail_s * RATE)
    fast = ProgrammeAnalysis.from_clips(RATE, total, mixer.audible_clips())
    fast_gain, _ = fast.solve_gain(-16.0, LIMITER_CEILING_DB)
    programme.set_master_gain(fast_gain)
    assert measured(programme, total) < -17.0
