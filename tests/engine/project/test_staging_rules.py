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
    # Issue 52's: exposed places outside, small hard rooms inside.
    ("EXT. LIGHTHOUSE GALLERY - NIGHT", "gallery", "heading says GALLERY"),
    ("INT. LIGHTHOUSE LAMP ROOM - NIGHT", "lamp room", "heading says LAMP ROOM"),
    ("EXT. HARBOUR WALL - DAWN", "harbour", "heading says HARBOUR WALL"),
    ("EXT. CLIFF TOP - DAY", "open air", "heading says CLIFF"),
    ("EXT. TRAWLER - DECK - NIGHT", "open air", "heading says TRAWLER"),
    ("INT. TRAWLER - WHEELHOUSE - NIGHT", "cabin", "heading says TRAWLER"),
    ("INT. LIGHTHOUSE - NIGHT", "stairwell", "heading says LIGHTHOUSE"),
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


def test_an_outdoor_word_under_int_is_the_place_inside() -> None:
    gallery = infer_room("INT. NATIONAL GALLERY - DAY")
    office = infer_room("INT. HARBOUR MASTER'S OFFICE - DAY")
    assert gallery is not None and (gallery.room.name, gallery.room.outdoor) == ("hall", False)
    assert office is not None and office.room.name == "office"


def test_the_first_action_places_a_heading_that_names_no_place() -> None:
    choice = infer_room("EXT. NIGHT", ["The gallery round the great lamp. Wind howls."])
    assert choice is not None and choice.room.name == "gallery"
    assert choice.evidence == "heading says EXT., action says GALLERY"
    # An indoor place the action mentions outside is not where the scene is.
    outside = infer_room("EXT. NIGHT", ["She looks back at the kitchen window."])
    assert outside is not None and outside.room.name == "street"
    # A heading's own place wins over the action's.
    kept = infer_room("INT. KITCHEN - NIGHT", ["A small wooden cabin."])
    assert kept is not None and kept.room.name == "kitchen"


def test_a_heading_that_names_no_place_has_no_room() -> None:
    assert infer_room("Scene 2") is None
    assert infer_room("") is None


PERSPECTIVES = [
    ("O.S.", "off"), ("OFF", "off"), ("off stage", "off"), ("V.O.", "voice-over"), ("O.C.", "off-camera"),
    ("on phone", "phone"), ("on the telephone", "phone"), ("filtered", "phone"),
    ("through the door", "door"), ("muffled", "door"), ("distant", "distant"), ("in the distance", "distant"),
    ("close", "close"), ("moving away", "moving-away"), ("walking away", "moving-away"),
    ("approaching", "approaching"),
    # Through a device (issue 52): every way a script says it.
    ("on radio", "radio"), ("over the radio", "radio"), ("on the radio", "radio"), ("radio", "radio"),
    ("over the walkie-talkie", "radio"), ("on the tannoy", "tannoy"), ("over the PA", "tannoy"),
    ("through a megaphone", "tannoy"), ("on the intercom", "intercom"), ("intercom", "intercom"),
    ("over the phone", "phone"), ("phone", "phone"),
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
    choice = perspective_words("O.S.", "close")
    assert choice is not None and choice.perspective == "off"


@pytest.mark.parametrize("direction", ["on radio", "on phone", "over the radio", "on the tannoy", "filtered"])
def test_a_device_wins_over_the_voice_over_extension(direction: str) -> None:
    """MORAG (V.O.) (on radio) is a voice heard on a radio: the radio, not a dry voice-over."""
    choice = perspective_words("V.O.", direction)
    assert choice is not None and choice.perspective != "voice-over"
    assert choice.evidence == f"({direction})"
    assert perspective_words("O.S., radio") == perspective_words("radio")


@pytest.mark.parametrize(("name", "perspective"), [
    ("RADIO", "radio"), ("TANNOY", "tannoy"), ("TANNOY VOICE", "tannoy"), ("PA ANNOUNCEMENT", "tannoy"),
    ("VOICE ON PHONE", "phone"), ("INTERCOM", "intercom"), ("WALKIE-TALKIE", "radio")])
def test_a_name_that_says_its_device_is_heard_through_it(name: str, perspective: str) -> None:
    choice = perspective_words("V.O.", speaker=name)
    assert choice is not None and choice.perspective == perspective
    assert choice.evidence.startswith("name says ")
    # A direction's device says more than the name's.
    direct = perspective_words("on the intercom", speaker=name)
    assert direct is not None and direct.perspective == "intercom"


@pytest.mark.parametrize("name", ["RADIO OPERATOR", "PA", "MORAG", "PATRICK", "STEVE"])
def test_a_persons_name_is_no_device(name: str) -> None:
    assert perspective_words(speaker=name) is None
    choice = perspective_words("O.S.", speaker=name)
    assert choice is not None and choice.perspective == "off"


def test_fountain_extensions_and_leading_directions_both_stage_lines() -> None:
    script = ("INT. CATHEDRAL - NIGHT\n\nTOM (O.S.)\nHello?\n\nANNA\n(through the door)\nGo away.\n\n"
              "TOM\nPlease.\n\nEXT. CAR PARK - NIGHT\n\nANNA (V.O.)\nHe never came back.\n")
    project, _ = build_project(parse_fountain(script, "s.fountain"))
    assert [(s.room.name if s.room else None) for s in project.scenes] == ["cathedral", "street"]
    assert [(line.perspective, line.perspective_evidence) for line in project.lines] == [
        ("off", "(O.S.)"), ("door", "(through the door)"), ("", ""), ("voice-over", "(V.O.)")]


STORM = """\
EXT. HARBOUR WALL - DAWN

Gulls. A diesel engine idles.

FRASER
Fetch the bait box.

INT. LIGHTHOUSE LAMP ROOM - NIGHT

The great lens turns. Wind howls around the glass.

MORAG (V.O.)
(on radio)
Kilbrae light, this is Stornoway coastguard. Do you read, over?

RADIO
Mayday, mayday, mayday.

EXT. LIGHTHOUSE GALLERY - NIGHT

The storm at full force. Rain and wind batter the gallery rail.

OLD TAM
(shouting)
There! Green light, off the north skerry!

ANGUS (O.S.)
(shouting)
Kilbrae! Our engine's gone!

ELSIE
Not while this light turns, they won't.
"""


def test_the_storm_scripts_scenes_and_lines_are_staged_with_their_evidence() -> None:
    project, _ = build_project(parse_fountain(STORM, "storm.fountain"))
    rooms = [(s.room.name if s.room else None, s.room.outdoor if s.room else None) for s in project.scenes]
    assert rooms == [("harbour", True), ("lamp room", False), ("gallery", True)]
    harbour, lamp_room, gallery = (s.room_evidence for s in project.scenes)
    assert harbour.startswith("heading says HARBOUR WALL") and "weather gulls" in harbour
    assert lamp_room.startswith("heading says LAMP ROOM") and "\u201cWind howls around the glass.\u201d" in lamp_room
    assert gallery == ("heading says GALLERY; weather storm, wind, rain (action says \u201cThe storm at full "
                       "force.\u201d \u201cRain and wind batter the gallery rail.\u201d)")
    lines = {line.role: line for line in project.lines}
    assert (lines["MORAG"].perspective, lines["MORAG"].perspective_evidence) == ("radio", "(on radio)")
    assert (lines["RADIO"].perspective, lines["RADIO"].perspective_evidence) == ("radio", "name says RADIO")
    # Outside in the storm every voice is raised over it, on top of what the writer asked for;
    # inside the lamp room (wind outside its glass) and on the calm harbour wall, none is.
    assert lines["OLD TAM"].note == "shouting; over the storm"
    assert (lines["ANGUS"].note, lines["ANGUS"].perspective) == ("shouting; over the storm", "off")
    assert lines["ELSIE"].note == "over the storm"
    assert lines["FRASER"].note == "" and lines["MORAG"].note == "on radio"
