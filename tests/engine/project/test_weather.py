"""A scene's weather from its heading and opening action; voices raised over loud weather
outside; staging words in a Delivery note shown as the line's perspective, not as an
unperformed direction."""

from __future__ import annotations

import pytest

from engine.project.deliveries import delivery, match_delivery
from engine.project.direction import note_directions
from engine.project.staging import ROOM_PRESETS
from engine.project.weather import WEATHER, raised_over, scene_weather


@pytest.mark.parametrize(("heading", "action", "kinds", "loud"), [
    ("EXT. LIGHTHOUSE GALLERY - NIGHT", ["The storm at full force. Rain and wind batter the gallery rail."],
     ("storm", "wind", "rain"), "storm"),
    ("INT. LIGHTHOUSE LAMP ROOM - NIGHT", ["The great lens turns. Wind howls around the glass."], ("wind",), "wind"),
    ("EXT. HARBOUR WALL - DAWN", ["Gulls. A diesel engine idles."], ("gulls",), ""),
    ("INT. KITCHEN - MORNING", ["A kettle. Rain on the window."], ("rain",), ""),
    ("EXT. MOOR - DAY", ["Heavy rain sweeps the heather."], ("rain",), "rain"),
    ("EXT. BEACH - NIGHT", ["Waves crash on the shingle."], ("sea",), "sea"),
    ("EXT. MOOR - STORM", [], ("storm",), "storm"),
])
def test_weather_words_in_the_heading_and_opening_action(heading: str, action: list[str],
                                                          kinds: tuple[str, ...], loud: str) -> None:
    weather = scene_weather(heading, action)
    assert weather is not None and (weather.kinds, weather.loud) == (kinds, loud)
    assert weather.evidence.startswith(f"weather {', '.join(kinds)} (")


def test_no_weather_is_none_and_later_action_is_not_read() -> None:
    assert scene_weather("INT. OFFICE - DAY", ["She types."]) is None
    late = ["She types. " * 80 + "A storm breaks."]  # past the opening description
    assert scene_weather("INT. OFFICE - DAY", late) is None


EXAMPLES = {"storm": "A gale blows.", "wind": "Gusts shake the door.", "rain": "Drizzle.",
            "sea": "Breakers on the rocks.", "thunder": "Thunder rolls.", "gulls": "A seagull cries."}


def test_every_weather_word_has_an_example() -> None:
    assert set(EXAMPLES) == {word.name for word in WEATHER}
    for name, sentence in EXAMPLES.items():
        weather = scene_weather("EXT. FIELD - DAY", [sentence])
        assert weather is not None and weather.kinds == (name,), name


def test_voices_are_raised_outside_in_loud_weather_only() -> None:
    storm = scene_weather("EXT. GALLERY", ["The storm at full force."])
    gulls = scene_weather("EXT. HARBOUR", ["Gulls."])
    gallery, lamp_room = ROOM_PRESETS["gallery"], ROOM_PRESETS["lamp room"]
    assert raised_over(storm, gallery, "") == "over the storm"
    assert raised_over(storm, gallery, "off") == "over the storm"  # off stage is still out there
    assert raised_over(storm, lamp_room, "") == ""  # inside, behind the glass
    assert raised_over(gulls, ROOM_PRESETS["harbour"], "") == ""
    assert raised_over(storm, gallery, "radio") == "" and raised_over(storm, gallery, "voice-over") == ""
    assert raised_over(None, gallery, "") == ""


def test_raised_is_a_delivery_louder_higher_brighter_and_levelled_as_the_role() -> None:
    found = match_delivery("over the storm")
    assert found is not None and found[0].name == "raised"
    design = delivery("raised").performance.design
    assert design.gain > 0 and design.f0_shift > 0 and design.tilt > 0 and design.rate < 1
    assert delivery("raised").levelled and not delivery("shouting").levelled


@pytest.mark.parametrize(("note", "perspective"), [
    ("on radio", "radio"), ("on phone", "phone"), ("over the radio", "radio"), ("on the tannoy", "tannoy"),
    ("filtered", "phone"), ("O.S.", "off")])
def test_staging_words_in_a_note_are_the_lines_perspective_not_unperformed(note: str, perspective: str) -> None:
    (direction,) = note_directions(note)
    assert (direction.kind, direction.name, direction.performed) == ("perspective", perspective, True)
    assert direction.label() == f"{note.rstrip('.')} ({perspective})"
    # The voice performs none of it.
    assert direction.performance().is_neutral


def test_a_note_with_a_delivery_and_a_perspective_keeps_both() -> None:
    kinds = [(d.kind, d.name) for d in note_directions("angry; on radio; to Lucy")]
    assert kinds == [("delivery", "angry"), ("perspective", "radio"), ("unknown", "")]


BEDS = """\
EXT. LIGHTHOUSE GALLERY - NIGHT

The storm at full force. Rain and wind batter the gallery rail.

OLD TAM
There! Green light, off the north skerry!

Thunder again, closer now.

OLD TAM
They'll be on the rocks inside the hour.

The storm rages on.

EXT. MOOR - STORM

ANNA
We should never have come up here.

EXT. CLIFF TOP - DAY

ANNA
You can see the whole bay from here.

INT. KITCHEN - DAY

ANNA
Put the kettle on.
"""


def test_a_scenes_weather_and_exposure_are_suggested_as_beds_before_its_first_line() -> None:
    from engine.project.importers.build import build_project
    from engine.project.importers.fountain import parse_fountain

    project, _ = build_project(parse_fountain(BEDS, "beds.fountain"))
    first = {scene.id: next(line.id for line in project.lines if line.scene == scene.id) for scene in project.scenes}
    offered = [(s.scene, s.kind, s.sound, s.line, s.evidence) for s in project.sound_suggestions]
    gallery = [o for o in offered if o[0] == "S1"]
    # The opening's weather: beds (the action-line suggestions themselves, now of kind bed);
    # thunder mid-scene: a cue where it falls.
    # The storm after the scene's last line stands before the next scene's first: still this
    # scene's cue, not the next one's bed.
    assert [(kind, sound) for _, kind, sound, _, _ in gallery] == [
        ("bed", "storm"), ("bed", "rain"), ("bed", "wind"), ("cue", "thunder"), ("cue", "storm")]
    assert all(line == first["S1"] for _, kind, _, line, _ in gallery if kind == "bed")
    assert gallery[0][4] == "The storm at full force."
    # Weather only the heading names; an exposed place that names none; nothing inside.
    assert [o for o in offered if o[0] == "S2"] == [("S2", "bed", "storm", first["S2"], "EXT. MOOR - STORM")]
    assert [o for o in offered if o[0] == "S3"] == [("S3", "bed", "wind", first["S3"], "an exposed place: open air")]
    assert [o for o in offered if o[0] == "S4"] == []
    moor = next(s for s in project.sound_suggestions if s.scene == "S2")
    assert moor.lane_kind == "ambience" and moor.source_line == 15 and moor.text == "Storm"


def test_a_bed_suggestion_is_saved_and_loaded_as_one(tmp_path: object) -> None:
    from engine.project.fileformat import project_from_dict, project_to_dict
    from engine.project.importers.build import build_project
    from engine.project.importers.fountain import parse_fountain

    project, _ = build_project(parse_fountain(BEDS, "beds.fountain"))
    loaded = project_from_dict(project_to_dict(project))
    assert [(s.kind, s.sound) for s in loaded.sound_suggestions] == [
        (s.kind, s.sound) for s in project.sound_suggestions]
