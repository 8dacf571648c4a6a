"""Recognising staging in a script: one test per heading rule and per perspective rule."""

from __future__ import annotations

import pytest

from engine.project.importers.build import build_project
from engine.project.importers.fountain import parse_fountain
from engine.project.staging_rules import ROOM_RULES, infer_room, perspective_words

HEADINGS = [
    ("INT. ST. PAUL'S CATHEDRAL - NIGHT", "cathedral", "heading says CATHEDRAL"),
    ("INT. VILLAGE CHURCH - DAY", "church", "heading says CHURCH"),
    ("INT. CAVE MOUTH - DAWN", "cave", "heading says CAVE"),
    ("INT. STAIRWELL - CONTINUOUS", "stairwell", "heading says STAIRWELL"),
    ("INT. TOM'S CAR - MOVING", "car", "heading says CAR"),
    ("INT. BATHROOM - NIGHT", "bathroom", "heading says BATHROOM"),
    ("INT. KITCHEN - MORNING", "kitchen", "heading says KITCHEN"),
    ("INT. MUSEUM ARCHIVE - NIGHT", "cellar", "heading says ARCHIVE"),
    ("INT. RADIO STUDIO - NIGHT", "studio", "heading says STUDIO"),
    ("INT. HOSPITAL CORRIDOR - NIGHT", "corridor", "heading says CORRIDOR"),
    ("INT. TOWN HALL - EVENING", "hall", "heading says HALL"),
    ("INT. NEWSPAPER OFFICE - DAY", "office", "heading says OFFICE"),
    ("INT. BEDROOM - NIGHT", "bedroom", "heading says BEDROOM"),
    ("INT. LIVING ROOM - NIGHT", "living room", "heading says LIVING ROOM"),
    ("EXT. BEACH - SUNSET", "beach", "heading says BEACH"),
    ("EXT. FOREST CLEARING - NIGHT", "forest", "heading says FOREST"),
    ("EXT. OPEN FIELD - DAY", "field", "heading says FIELD"),
    ("EXT. HIGH STREET - NIGHT", "street", "heading says STREET"),
    ("EXT. STATION CAR PARK - NIGHT", "street", "heading says CAR PARK"),
]


def test_every_room_rule_has_a_heading_here() -> None:
    assert {room for _, room in ROOM_RULES} == {room for _, room, _ in HEADINGS}


@pytest.mark.parametrize(("heading", "room", "evidence"), HEADINGS)
def test_heading_words_choose_the_room(heading: str, room: str, evidence: str) -> None:
    choice = infer_room(heading)
    assert choice is not None
    assert (choice.room.name, choice.evidence) == (room, evidence)


def test_an_interior_heading_without_a_place_is_an_ordinary_room() -> None:
    choice = infer_room("INT. MRS. HOLLOWAY'S - NIGHT")
    assert choice is not None and choice.room.name == "living room" and not choice.room.outdoor
    assert choice.evidence.startswith("heading says INT.")


def test_an_exterior_heading_without_a_place_is_outdoors() -> None:
    choice = infer_room("EXT. OUTSIDE THE GATES - DAY")
    assert choice is not None and choice.room.outdoor and choice.evidence.startswith("heading says EXT.")


def test_outside_an_interior_place_is_outdoors() -> None:
    choice = infer_room("EXT. CHURCH - DAY")
    assert choice is not None and choice.room.outdoor and "CHURCH" in choice.evidence


def test_a_heading_that_names_no_place_has_no_room() -> None:
    assert infer_room("Scene 2") is None
    assert infer_room("") is None


PERSPECTIVES = [
    ("O.S.", "off"), ("OFF", "off"), ("off stage", "off"), ("V.O.", "voice-over"), ("O.C.", "off-camera"),
    ("on phone", "phone"), ("on the telephone", "phone"), ("filtered", "phone"),
    ("through the door", "door"), ("muffled", "door"), ("distant", "distant"), ("in the distance", "distant"),
    ("close", "close"), ("moving away", "moving-away"), ("walking away", "moving-away"),
    ("approaching", "approaching"),
]


@pytest.mark.parametrize(("words", "perspective"), PERSPECTIVES)
def test_perspective_words(words: str, perspective: str) -> None:
    choice = perspective_words(words)
    assert choice is not None and choice.perspective == perspective and choice.evidence == f"({words})"


def test_bare_words_count_only_as_a_whole_direction_item() -> None:
    assert perspective_words("takes off his coat") is None
    assert perspective_words("close to tears") is None
    choice = perspective_words("angry, off")
    assert choice is not None and choice.perspective == "off"


def test_delivery_directions_are_no_perspective() -> None:
    assert perspective_words("whispering") is None
    assert perspective_words("CONT'D") is None


def test_the_cue_extension_wins_over_the_leading_direction() -> None:
    choice = perspective_words("O.S.", "on phone")
    assert choice is not None and choice.perspective == "off"


def test_fountain_extensions_and_leading_directions_both_stage_lines() -> None:
    script = ("INT. CATHEDRAL - NIGHT\n\nTOM (O.S.)\nHello?\n\nANNA\n(through the door)\nGo away.\n\n"
              "TOM\nPlease.\n\nEXT. CAR PARK - NIGHT\n\nANNA (V.O.)\nHe never came back.\n")
    project, _ = build_project(parse_fountain(script, "s.fountain"))
    assert [(s.room.name if s.room else None) for s in project.scenes] == ["cathedral", "street"]
    assert [(line.perspective, line.perspective_evidence) for line in project.lines] == [
        ("off", "(O.S.)"), ("door", "(through the door)"), ("", ""), ("voice-over", "(V.O.)")]
