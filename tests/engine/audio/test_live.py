"""The live output path: ring buffer, mixer-thread fill, null sink.

The fill is driven by calling it directly (no thread) with ring regions and
plain buffers of awkward sizes, and compared sample for sample with the
offline mixer on the same span: what plays is what the export mixes.
"""

from __future__ import annotations

import threading
import time
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from engine.audio.live import LivePlayer, PendingLines
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.portaudio import load_rtmixer
from engine.audio.ring import FrameRing
from engine.audio.sinks import NullSink

RATE = 48_000
AWKWARD = [1, 64, 65, 8192, 8193]


def clips(seed: int = 3) -> list[PlacedClip]:
    rng = np.random.default_rng(seed)

    def audio(n: int) -> np.ndarray:
        return rng.uniform(-0.4, 0.4, n).astype(np.float32)

    return [PlacedClip(0, 10, audio(9000)), PlacedClip(1, 5000, audio(20000)), PlacedClip(0, 30000, audio(7)),
            PlacedClip(1, 30001, audio(12000))]


def offline(span: int, lanes: int = 2) -> np.ndarray:
    mixer = BlockMixer(clips(), lanes, 4096)
    out = np.zeros((span, 2), dtype=np.float32)
    for t in range(0, span, 4096):
        n = min(4096, span - t)
        master, _ = mixer.process(t, n)
        out[t:t + n] = master
    return out


def idle_player(mixer: BlockMixer, **kwargs: object) -> LivePlayer:
    """A player whose thread is never started: tests call its fill directly."""
    return LivePlayer(mixer, RATE, NullSink(RATE), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("size", AWKWARD)
def test_fill_with_awkward_buffer_sizes_matches_the_offline_mix(size: int) -> None:
    span = 50000
    expected = offline(span)
    player = idle_player(BlockMixer(clips(), 2, 4096))
    player._apply("play", 0, 0)
    got = np.zeros((span, 2), dtype=np.float32)
    t = 0
    while t < span:
        n = min(size, span - t)
        buf = np.full((n, 2), 7.0, dtype=np.float32)  # garbage the fill must overwrite
        player._render(buf)
        got[t:t + n] = buf
        t += n
    assert_allclose(got, expected, atol=1e-6)


@pytest.mark.parametrize("portaudio", [False, True])
@pytest.mark.parametrize("size", AWKWARD)
def test_ring_regions_wrap_and_carry_every_frame_in_order(size: int, portaudio: bool) -> None:
    if portaudio and load_rtmixer() is None:
        pytest.skip("PortAudio is not installed")
    ring = FrameRing(8192, use_portaudio=portaudio)
    assert (ring.portaudio_ring is not None) == portaudio
    total = 40000
    source = np.arange(total * 2, dtype=np.float32).reshape(total, 2)
    received: list[np.ndarray] = []
    written = 0
    while written < total or ring.read_available():
        offset, first, second = ring.write_regions(min(size, total - written))
        n = first + second
        ring.data[offset:offset + first] = source[written:written + first]
        ring.data[:second] = source[written + first:written + n]
        ring.commit_write(n)
        written += n
        # Read in a different rhythm than the writes, so the two sides wrap at different places.
        offset, first, second = ring.read_regions(3000)
        received.append(ring.data[offset:offset + first].copy())
        received.append(ring.data[:second].copy())
        ring.commit_read(first + second)
    assert_array_equal(np.concatenate(received), source)


def test_ring_size_must_be_a_power_of_two() -> None:
    with pytest.raises(ValueError, match="power of two"):
        FrameRing(3000, use_portaudio=False)


def test_fill_block_writes_straight_into_the_ring_and_allocates_nothing() -> None:
    mixer = BlockMixer(clips(), 2, 4096)
    player = idle_player(mixer, block=1024)
    player._apply("play", 0, 0)
    ring = player.ring
    for _ in range(8):  # warm up: first calls create cached views and ints
        player._fill_block()
        ring.commit_read(ring.read_available())
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        for _ in range(200):
            player._fill_block()
            ring.commit_read(ring.read_available())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # One 1024-frame stereo block is 8 KB; a copy per block would show.
    assert peak - base < 4096, f"the fill allocated {peak - base} bytes"
    # And what went through the ring is the mix: the next block, read back.
    player._apply("seek", 5000, 0)
    offset, first, second = ring.write_regions(1024)
    player._fill_block()
    assert_allclose(ring.data[offset:offset + first], offline(6024)[5000:5000 + first], atol=1e-6)


def test_paused_player_writes_silence_and_keeps_its_position() -> None:
    player = idle_player(BlockMixer(clips(), 2, 4096))
    player._apply("play", 6000, 0)
    player._apply("pause", 0, 0)
    offset, first, _ = player.ring.write_regions(1024)
    player.ring.data[:] = 1.0
    player._fill_block()
    assert not player.ring.data[offset:offset + first].any()
    assert player._t == 6000


def test_loop_wraps_inside_a_block_and_reports_each_wrap() -> None:
    wraps: list[int] = []
    player = idle_player(BlockMixer(clips(), 2, 4096), on_wrap=lambda: wraps.append(1))
    player._apply("loop", 5000, 5300)
    player._apply("play", 5000, 0)
    out = np.zeros((1000, 2), dtype=np.float32)
    player._render(out)
    region = offline(5300)[5000:5300]
    assert_allclose(out[:300], region, atol=1e-6)
    assert_allclose(out[300:600], region, atol=1e-6)
    assert_allclose(out[600:900], region, atol=1e-6)
    assert len(wraps) == 3
    assert player._t == 5100


def test_reaching_a_line_without_a_clip_reports_it_late_once() -> None:
    late: list[tuple[str, int]] = []
    player = idle_player(BlockMixer(clips(), 2, 4096), on_late=lambda lid, at: late.append((lid, at)))
    player.set_pending(PendingLines([2000, 2100, 9000], ["A", "B", "C"]))
    player._apply("play", 1500, 0)
    for _ in range(3):
        player._render(np.zeros((1024, 2), dtype=np.float32))
    assert late == [("A", 2000), ("B", 2100)]  # C (9000) not reached by 1500 + 3072
    assert player.snapshot().late_lines == 2


def test_clips_swapped_in_while_playing_are_heard_from_the_next_block() -> None:
    mixer = BlockMixer([], 1, 4096)
    player = idle_player(mixer)
    player._apply("play", 0, 0)
    out = np.zeros((512, 2), dtype=np.float32)
    player._render(out)
    assert not out.any()
    mixer.set_clips([PlacedClip(0, 0, np.ones(4096, dtype=np.float32))])
    player._render(out)
    assert out.all()  # frames 512..1023 of the new clip


def test_audition_plays_over_silence_while_paused() -> None:
    player = idle_player(BlockMixer([], 1, 4096))
    tone = np.full(1500, 0.25, dtype=np.float32)
    player.audition(tone)
    blocks = []
    for _ in range(2):
        offset, first, _ = player.ring.write_regions(1024)
        player._fill_block()
        blocks.append(player.ring.data[offset:offset + first].copy())
        player.ring.commit_read(player.ring.read_available())
    heard = np.concatenate(blocks)
    assert_allclose(heard[:1500], 0.25)
    assert not heard[1500:].any()


def test_null_sink_consumes_in_real_time_and_counts_a_dry_ring() -> None:
    ring = FrameRing(8192, use_portaudio=False)
    sink = NullSink(RATE, speed=4.0)
    offset, first, second = ring.write_regions(4096)
    ring.commit_write(first + second)
    sink.start(ring)
    try:
        deadline = time.monotonic() + 10.0
        while ring.read_available() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ring.read_available() == 0  # everything written was consumed
        while sink.stats().underruns == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sink.stats().underruns > 0  # and an empty ring is noticed, not waited on
        assert sink.stats().frames_played >= 4096
    finally:
        sink.close()


def test_player_thread_fills_the_ring_and_the_playhead_advances() -> None:
    mixer = BlockMixer(clips(), 2, 4096)
    player = LivePlayer(mixer, RATE, NullSink(RATE, speed=8.0))
    player.start()
    try:
        player.play(0)
        deadline = time.monotonic() + 10.0
        while player.first_audio_at is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert player.first_audio_at is not None and player.first_audio_at >= player.play_command_at
        seen = player.snapshot().position_s
        while player.snapshot().position_s <= seen + 0.2 and time.monotonic() < deadline:
            time.sleep(0.01)
        snap = player.snapshot()
        assert snap.playing and snap.position_s > seen + 0.2
        assert snap.mixed_s >= snap.position_s  # the mixer runs ahead of what is heard
        player.pause()
        time.sleep(0.1)
        paused_at = player.snapshot().mixed_s
        time.sleep(0.1)
        assert player.snapshot().mixed_s == paused_at
        assert not player.snapshot().playing
    finally:
        player.close()
    assert not any(t.name == "radioplay-mixer" for t in threading.enumerate())


def test_pause_silences_what_is_queued_beyond_the_block_being_played() -> None:
    player = idle_player(BlockMixer(clips(), 2, 4096), block=1024)
    player._apply("play", 0, 0)
    ring = player.ring
    for _ in range(8):  # a full ring of programme audio, none of it played yet
        player._fill_block()
    assert ring.read_available() == 8192
    player._apply("pause", 0, 0)
    offset, first, second = ring.read_regions(8192)
    queued = np.concatenate([ring.data[offset:offset + first], ring.data[:second]])
    assert_allclose(queued[:1024], offline(1024), atol=1e-6)  # the block the device may be reading stays
    assert not queued[1024:].any()  # the rest is silence: the pause is heard within a block
    # Once the kept block is played, the position reads as where the mixer stopped.
    assert player._heard(player._written - 8192 + 2048) == player._t


@pytest.mark.parametrize("size", AWKWARD)
def test_play_until_stops_exactly_there_and_marks_the_first_sound(size: int) -> None:
    """The table read plays one stretch of lines and waits: play(until=) stops at
    that frame as a pause would, whatever the block size, and says where in the
    ring the first sound and the stop are (the gap it reports is measured there)."""
    span, start, until = 40000, 4000, 21000
    expected = offline(span)
    player = idle_player(BlockMixer(clips(), 2, 4096))
    player.play(start, until)
    player._apply(*player._commands.popleft())
    got = np.zeros((span, 2), dtype=np.float32)
    t = 0
    while t < span:
        n = min(size, span - t)
        buf = np.full((n, 2), 7.0, dtype=np.float32)
        player._region_at = t
        player._render(buf)
        got[t:t + n] = buf
        t += n
    played = until - start
    assert_allclose(got[:played], expected[start:until], atol=1e-6)
    assert not got[played:].any()
    assert player.hold_counter == played
    loud = np.flatnonzero(np.abs(expected[start:, 0]) + np.abs(expected[start:, 1]) >= 10 ** (-50 / 20))
    assert player.first_sound_counter == int(loud[0])
    assert not player.snapshot().playing


def test_play_at_once_remixes_what_the_ring_holds() -> None:
    """The table read's reply: the frames already queued (beyond the block the
    device may be reading) are mixed again from the new place, so the first
    sound is a block away, not a ring away; the heard position follows."""
    span = 40000
    expected = offline(span)
    player = idle_player(BlockMixer(clips(), 2, 4096))
    player._prime()  # a full ring of silence, as when the device starts
    start = 6000
    player.play(start, at_once=True)
    player._apply(*player._commands.popleft())
    ring = player.ring
    queued = ring.read_available()
    offset, first, second = ring.read_regions(queued)
    data = np.concatenate([ring.data[offset:offset + first], ring.data[:second]])
    keep = player.block
    assert not data[:keep].any()  # the block the device may be reading is left alone
    assert_allclose(data[keep:], expected[start:start + queued - keep], atol=1e-6)
    loud = np.flatnonzero(np.abs(expected[start:, 0]) + np.abs(expected[start:, 1]) >= 10 ** (-50 / 20))
    assert player.first_sound_counter == keep + int(loud[0])
    assert player._heard(keep + 100) == start + 100
