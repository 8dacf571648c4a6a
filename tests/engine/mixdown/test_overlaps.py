"""The overlaps' wall: two roles that each peak under the stems' ceiling sum past it
where they sound together; one curve in both lines' curves brings the DX sum under
it, and the role stems still sum to DX (what the mixer plays, measured)."""

from __future__ import annotations

import numpy as np

from engine.audio.leveller import DIALOGUE
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.mixdown.overlaps import OverlapWalls, wall_overlaps

RATE = 48_000
BLOCK = 4096


def _voice(seconds: float, seed: int, peak: float) -> np.ndarray:
    """Noise with syllable-rate swings, scaled to ``peak``."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    audio = rng.standard_normal(t.size) * (0.5 + 0.5 * np.sin(2 * np.pi * 4.0 * t) ** 2)
    return (audio * (peak / np.abs(audio).max())).astype(np.float32)


def _mixed(clips: list[PlacedClip], frames: int) -> tuple[np.ndarray, np.ndarray]:
    """(DX, the two stems) as the mixer plays them, both lanes centred at 0 dB."""
    mixer = BlockMixer(clips, 2, BLOCK)
    for lane in (0, 1):
        mixer.set_lane(lane, 0.0, 0.0, True)
    dx, stems = [], []
    for t in range(0, frames, BLOCK):
        master, lanes = mixer.process(t, min(BLOCK, frames - t))
        dx.append(master.copy())
        stems.append(lanes.copy())
    return np.concatenate(dx), np.concatenate(stems, axis=1)


def test_overlapping_roles_are_walled_together_and_still_sum_to_dx() -> None:
    staging_db = 6.0
    # Each line alone peaks 1 dB under the ceiling at the master gain (centred: -3 dB per channel).
    alone = 10 ** ((DIALOGUE.ceiling_db - 1.0 - staging_db) / 20) / np.sqrt(0.5)
    first = PlacedClip(0, 0, _voice(2.0, 1, alone))
    second = PlacedClip(1, RATE, _voice(2.0, 2, alone))  # cuts in a second before the first ends
    lanes = {0: (0.0, 0.0), 1: (0.0, 0.0)}
    frames = 3 * RATE
    dx_before, _ = _mixed([first, second], frames)
    ceiling = 10 ** ((DIALOGUE.ceiling_db - staging_db) / 20)
    assert np.abs(dx_before).max() > ceiling * 1.1  # together they pass it

    walled = wall_overlaps([first, second], lanes, RATE, staging_db)
    dx, stems = _mixed(walled, frames)
    assert np.abs(dx).max() <= ceiling
    np.testing.assert_allclose(stems.sum(axis=0), dx, atol=1e-6)
    # Only the overlap is touched: where one line speaks alone it plays as it was.
    np.testing.assert_array_equal(dx[:RATE - 64], dx_before[:RATE - 64])
    assert walled[0].envelope is not None and walled[1].envelope is not None


def test_lines_that_do_not_overlap_are_left_alone() -> None:
    quiet = PlacedClip(0, 0, _voice(1.0, 3, 0.3))
    later = PlacedClip(1, 2 * RATE, _voice(1.0, 4, 0.3))
    walled = wall_overlaps([quiet, later], {0: (0.0, 0.0), 1: (0.0, 0.0)}, RATE, 0.0)
    assert walled[0] is quiet and walled[1] is later


def test_walls_kept_across_layouts_match_a_fresh_wall_and_follow_a_change() -> None:
    """Live playback keeps the overlaps' walls across its relayouts: the same clips get the
    wall a fresh one makes, and a clip that changes (its trim) gets a new one, not the kept."""
    staging_db = 6.0
    alone = 10 ** ((DIALOGUE.ceiling_db - 1.0 - staging_db) / 20) / np.sqrt(0.5)
    first_audio, second_audio = _voice(2.0, 1, alone), _voice(2.0, 2, alone)
    lanes = {0: (0.0, 0.0), 1: (0.0, 0.0)}
    walls = OverlapWalls()

    def layout(gain: float) -> list[PlacedClip]:  # a relayout makes new PlacedClips of the same audio
        return [PlacedClip(0, 0, first_audio, None, gain), PlacedClip(1, RATE, second_audio)]

    for gain in (1.0, 1.0, 0.5, 0.5, 1.0):
        kept = walls.wall(layout(gain), lanes, RATE, staging_db)
        fresh = wall_overlaps(layout(gain), lanes, RATE, staging_db)
        for got, expected in zip(kept, fresh, strict=True):
            assert (got.envelope is None) == (expected.envelope is None)
            if got.envelope is not None and expected.envelope is not None:
                np.testing.assert_array_equal(got.envelope.gains, expected.envelope.gains)
    # The trim decides the wall (so a stale kept one would have failed above): together at
    # full level they pass the ceiling, with the first 6 dB down they do not.
    loud, quiet = (wall_overlaps(layout(g), lanes, RATE, staging_db)[1].envelope for g in (1.0, 0.5))
    assert loud is not None and quiet is None
