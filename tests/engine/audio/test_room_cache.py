"""The rooms' responses are simulated once and kept on disk; a project's rooms
are made as it opens, before a line is played in them."""

from __future__ import annotations

import io
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from engine.audio.rooms import RoomResponses, shared_responses
from engine.project.model import Scene
from engine.project.staging import ROOM_PRESETS, Room
from engine.session import Session
from tests.support.projects import tiny_project

RATE = 48_000
CAR = ROOM_PRESETS["car"]


def stored(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.npy"))


def save_npy(path: Path, array: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    path.write_bytes(buffer.getvalue())


def test_a_second_run_reads_the_stored_response_instead_of_simulating(tmp_path: Path) -> None:
    first = RoomResponses(tmp_path).response(CAR, RATE)
    [path] = stored(tmp_path)
    assert_array_equal(np.load(path), first)
    # Another response under the room's name: a new process that simulated would not return it.
    marked = (first * np.float32(0.5)).astype(np.float32)
    save_npy(path, marked)
    assert_array_equal(RoomResponses(tmp_path).response(CAR, RATE), marked)
    assert stored(tmp_path) == [path]


def test_the_key_changes_with_every_parameter_the_response_depends_on(tmp_path: Path) -> None:
    responses = RoomResponses(tmp_path)
    responses.response(CAR, RATE)
    variants = [replace(CAR, rt60=CAR.rt60 * 1.5), replace(CAR, size=(3.0, 1.8, 1.3)),
                replace(CAR, early_reflections=not CAR.early_reflections)]
    for n, room in enumerate(variants, start=2):
        responses.response(room, RATE)
        assert len(stored(tmp_path)) == n, f"{room} shares a stored response with another room"
    responses.response(CAR, 24_000)
    assert len(stored(tmp_path)) == len(variants) + 2  # another rate, another response
    responses.response(CAR, RATE)  # the first again: no new file
    assert len(stored(tmp_path)) == len(variants) + 2


@pytest.mark.parametrize("damage", ["empty", "cut short", "not an array", "not finite", "mono"])
def test_a_damaged_stored_response_is_simulated_again_and_replaced(tmp_path: Path, damage: str) -> None:
    good = RoomResponses(tmp_path).response(CAR, RATE)
    [path] = stored(tmp_path)
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "cut short":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "not an array":
        path.write_bytes(b"these bytes were never a response" * 10)
    elif damage == "not finite":
        poisoned = good.copy()
        poisoned[len(poisoned) // 3] = np.nan
        save_npy(path, poisoned)
    else:
        save_npy(path, good[:, 0].copy())
    made = RoomResponses(tmp_path).response(CAR, RATE)
    assert made.dtype == np.float32 and made.ndim == 2 and made.shape[1] == 2
    assert np.isfinite(made).all() and float(np.abs(made).max()) > 0.0
    assert made.shape[0] == pytest.approx(good.shape[0], rel=0.2)  # the room's tail, not the damage's
    assert_array_equal(np.load(path), made)  # replaced on disk


def test_prepare_ahead_makes_the_rooms_in_the_background(tmp_path: Path) -> None:
    responses = RoomResponses(tmp_path)
    rooms = [CAR, replace(CAR, name="car, windows down", rt60=0.08)]
    responses.prepare_ahead(rooms, RATE)
    deadline = time.monotonic() + 120.0
    while any(responses.ready(room, RATE) is None for room in rooms):
        assert time.monotonic() < deadline, "the rooms were not made"
        time.sleep(0.01)
    assert len(stored(tmp_path)) == 2


def test_opening_a_session_makes_its_rooms_before_anything_plays(tiny_voices, session_factory) -> None:
    # A room no other test uses: the process's responses cannot hold it already.
    cupboard = Room(name="cupboard under the stairs", size=(1.4, 1.1, 2.1), rt60=0.23)
    project = tiny_project(tiny_voices["single"], roles=1, lines_per_role=1)
    project = replace(project, scenes=[Scene("S1", "INT. CUPBOARD", room=cupboard)])
    assert shared_responses().ready(cupboard, project.sample_rate) is None
    session: Session = session_factory(project, prerender=False)
    deadline = time.monotonic() + 120.0
    while shared_responses().ready(cupboard, project.sample_rate) is None:
        assert time.monotonic() < deadline, "the project's room was not made as it opened"
        time.sleep(0.01)
    assert not session.transport().playing
