"""Recognising staging in a script: a scene's room, a line's perspective.

Each rule is one entry of a table (words -> room or perspective), checked in
order, so the first, most specific match wins and the words that matched
are the evidence shown to the producer ("heading says CATHEDRAL"). A room
comes from the scene heading, or from its first action lines where the
heading says only INT. or EXT.; the scene's weather is read beside it
(engine/project/weather.py). The
perspective rules read only perspective words (O.S., on phone, moving
away...) of a cue's extensions and a line's leading direction: the general
direction parser (delivery, emotion) routes its text through
:func:`perspective_words`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.project.staging import DEVICE_PERSPECTIVES, ROOM_PRESETS, Room

# Place words -> room preset, most specific first. Whole words only, any case. An outdoor
# room's words under INT. are skipped (INT. HARBOUR MASTER'S OFFICE is an office, INT.
# GALLERY an art gallery's hall), as are an indoor room's under EXT. (outside it).
ROOM_RULES: tuple[tuple[str, str], ...] = (
    (r"car park|parking lot|bus stop|railway platform", "street"),  # before CAR and the rest
    (r"cathedral|basilica|minster", "cathedral"),
    (r"church|chapel|abbey|crypt", "church"),
    (r"cave|cavern|tunnel|mine|grotto", "cave"),
    (r"lamp room|lantern room|lantern", "lamp room"),  # before ROOM
    (r"stairwell|staircase|stairs|stairway", "stairwell"),
    # Exposed places: a walkway round a lighthouse's lamp, a balcony, a roof; a harbour's walls
    # and quays; open heights and decks.
    (r"gallery|balcony|rooftop|roof|parapet|battlements|ramparts", "gallery"),
    (r"harbou?r wall|sea ?wall|harbour|harbor|breakwater|quay|quayside|jetty|pier|dock|docks|marina|slipway", "harbour"),
    (r"cliff|cliffs|clifftop|cliff top|headland|promontory|summit|deck|boat|ship|trawler|yacht|lifeboat",
     "open air"),
    (r"cabin|wheelhouse|bothy|hut|shed|caravan|boat|ship|trawler|yacht|lifeboat", "cabin"),  # INT. of a boat
    (r"car|taxi|cab|van|truck|lorry", "car"),
    (r"bathroom|toilet|lavatory|shower|washroom", "bathroom"),
    (r"kitchen|kitchenette|galley", "kitchen"),
    (r"cellar|basement|archive|vault|storeroom|bunker", "cellar"),
    (r"studio|booth|control room", "studio"),
    (r"corridor|hallway|passage|landing", "corridor"),
    (r"hall|ballroom|auditorium|theatre|theater|gym|gymnasium|warehouse|station|concourse|gallery|museum",
     "hall"),
    (r"office|study|newsroom|library|classroom", "office"),
    (r"bedroom|cell|nursery", "bedroom"),
    (r"lighthouse|turret|belfry|bell tower", "stairwell"),  # a tower's inside is its stairs
    (r"living room|lounge|sitting room|parlour|parlor|flat|apartment|house|cottage|room", "living room"),
    (r"beach|shore|seaside|coast", "beach"),
    (r"forest|wood|woods|jungle|orchard|garden|park", "forest"),
    (r"field|meadow|moor|farm|desert|hill|hills|mountain|countryside|lawn", "field"),
    (r"street|road|alley|square|lane|avenue|market|town|city", "street"),
)
_ROOM_PATTERNS = tuple((re.compile(rf"\b(?:{words})\b", re.I), room) for words, room in ROOM_RULES)
_INTERIOR = re.compile(r"^\s*(?:INT|I)\s*[./]", re.I)
_EXTERIOR = re.compile(r"^\s*(?:EXT|E)\s*[./]", re.I)
_BOTH = re.compile(r"^\s*(?:INT\.?\s*/\s*EXT|EXT\.?\s*/\s*INT|I\s*/\s*E)\b", re.I)

# A heading that names no known place still says inside or outside.
DEFAULT_INTERIOR = "living room"
DEFAULT_EXTERIOR = "street"
# How much of a scene's first action is read for its place (and its weather,
# engine/project/weather.py): the opening description, not what happens later.
OPENING_CHARS = 600


@dataclass(frozen=True)
class RoomChoice:
    room: Room
    evidence: str


def infer_room(heading: str, action: Sequence[str] = ()) -> RoomChoice | None:
    """The room a scene heading implies, and why; None when it says nothing
    of place (a plain-text ``# Scene 2``). A heading that says INT. or EXT. and
    names no place is placed by its first ``action`` paragraphs (``EXT. NIGHT``,
    then ``The gallery round the great lamp.``): a place they name, inside or
    outside as the heading says."""
    words = heading.strip()
    if not words:
        return None
    interior = bool(_INTERIOR.match(words)) or bool(_BOTH.match(words))
    exterior = bool(_EXTERIOR.match(words)) and not _BOTH.match(words)
    said = _place(words, interior, exterior)
    if said is not None:
        return RoomChoice(said[0], f"heading says {said[1]}")
    opening = " ".join(action)[:OPENING_CHARS]
    if (interior or exterior) and opening:
        found = _place(opening, interior, exterior, fits_only=True)
        if found is not None:
            return RoomChoice(found[0], f"heading says {'INT.' if interior else 'EXT.'}, action says {found[1]}")
    if interior:
        return RoomChoice(ROOM_PRESETS[DEFAULT_INTERIOR], f"heading says INT.: an ordinary room, {DEFAULT_INTERIOR}")
    if exterior:
        return RoomChoice(ROOM_PRESETS[DEFAULT_EXTERIOR], f"heading says EXT.: outdoors, {DEFAULT_EXTERIOR}")
    return None


def _place(words: str, interior: bool, exterior: bool, fits_only: bool = False) -> tuple[Room, str] | None:
    """The first room rule ``words`` match, inside or outside as the heading says, and the
    words that matched (``fits_only``: an indoor place under EXT. is skipped, not taken as
    outside it: action mentions places it is not in)."""
    for pattern, name in _ROOM_PATTERNS:
        match = pattern.search(words)
        if match is None:
            continue
        room = ROOM_PRESETS[name]
        said = match.group(0).upper()
        if exterior and not room.outdoor and name != "car":
            if fits_only:
                continue
            # EXT. CHURCH - DAY is outside the church: its walls reflect, nothing rings.
            return replace(ROOM_PRESETS[DEFAULT_EXTERIOR], name=DEFAULT_EXTERIOR), f"EXT. and {said}: outside it, " \
                f"{DEFAULT_EXTERIOR}"
        if interior and room.outdoor:
            # INT. of an outdoor word ("INT. PARK KEEPER'S HUT"): inside wins.
            continue
        return room, said
    return None


# Perspective words -> perspective name (engine.project.staging.PERSPECTIVES), first match wins.
# Phrases match anywhere in a direction; the bare abbreviations and single words (O.S., OFF,
# CLOSE, RADIO) only as a whole item of it ("(O.S.)", "(angry, off)"): "(takes off his coat)"
# is not off stage. The devices come first: a voice heard through one is heard as the device.
_RADIO_SETS = r"radio|wireless|walkie[- ]talkie|two[- ]way|handset|vhf|cb|tv|television"
_PA_HORNS = r"tannoy|p\.?a\.?(?: system)?|public address|loudspeakers?|loud[- ]hailer|megaphone|bullhorn"
PERSPECTIVE_PHRASES: tuple[tuple[str, str], ...] = (
    (rf"(?:on|over|through|via|by) (?:the |a )?(?:{_RADIO_SETS})", "radio"),
    (rf"(?:on|over|through|via) (?:the |a )?(?:{_PA_HORNS})", "tannoy"),
    (r"(?:on|over|through|via) (?:the |an? )?(?:intercom|entry ?phone|door ?phone|speaker ?phone)|intercom",
     "intercom"),
    (r"on (?:the )?(?:tele)?phone|over the (?:tele)?phone|down the (?:tele)?phone|on (?:the |a )?(?:mobile|cell)|"
     r"filtered|voicemail|answerphone|answering machine", "phone"),
    (r"moving away|walking away|walks away|going away|receding|leaving", "moving-away"),
    (r"approaching|coming closer|comes closer|walking in|walks in|coming in", "approaching"),
    (r"through (?:the |a )?(?:door|wall)|behind (?:the |a )?(?:door|wall)|muffled|beyond the door", "door"),
    (r"voice[- ]over|narrating", "voice-over"),
    (r"off[- ]camera", "off-camera"),
    (r"off[- ]?stage|off[- ]?screen|off[- ]?mic", "off"),
    (r"in the distance|far off|far away|from afar", "distant"),
    (r"close to (?:the )?mic|into the mic|in (?:his|her|their) ear|close[- ]up", "close"),
)
PERSPECTIVE_ITEMS: tuple[tuple[str, str], ...] = (
    (_RADIO_SETS, "radio"),
    (_PA_HORNS, "tannoy"),
    (r"intercom", "intercom"),
    (r"phone|telephone", "phone"),
    (r"exits|exiting", "moving-away"),
    (r"enters|entering", "approaching"),
    (r"v\.?\s?o\.?", "voice-over"),
    (r"o\.?\s?c\.?", "off-camera"),
    (r"o\.?\s?s\.?|off", "off"),
    (r"distant|distance", "distant"),
    (r"close|intimate", "close"),
)
# A character whose name says what they are heard through: RADIO, TANNOY, PA ANNOUNCEMENT,
# VOICE ON PHONE. Not RADIO OPERATOR (a person at the set, heard in the room), and not PA
# alone (a father as often as a public address).
_NAMED_DEVICES: tuple[tuple[str, str], ...] = (
    (_RADIO_SETS, "radio"),
    (r"tannoy|public address|loudspeakers?|loud[- ]hailer|megaphone|bullhorn|"
     r"p\.?a\.? (?:system|announcement|announcer|voice)", "tannoy"),
    (r"intercom", "intercom"),
    (r"phone|telephone|answerphone|voicemail", "phone"),
)
_AT_THE_SET = r"operators?|officers?|engineers?|hams?|technicians?|repairm[ae]n|rooms?|shacks?"
_PHRASES = tuple((re.compile(rf"(?<![\w])(?:{words})(?![\w])", re.I), name) for words, name in PERSPECTIVE_PHRASES)
_ITEMS = tuple((re.compile(rf"\s*(?:{words})\s*", re.I), name) for words, name in PERSPECTIVE_ITEMS)
_NAMES = tuple((re.compile(rf"(?<![\w.])(?:{words})(?![\w])(?!\s+(?:{_AT_THE_SET})\b)", re.I), name)
               for words, name in _NAMED_DEVICES)
_ITEM_SPLIT = re.compile(r"[,;/]")


@dataclass(frozen=True)
class PerspectiveChoice:
    perspective: str
    evidence: str


def perspective_words(*directions: str, speaker: str = "") -> PerspectiveChoice | None:
    """The perspective named in a line's directions (a cue's extensions such as
    ``O.S.``, then its leading direction such as ``on phone``) or by its
    ``speaker``'s name (``RADIO``, ``TANNOY``), with the words that said so; None
    when they name none. A device wins (``MORAG (V.O.)`` with ``(on radio)`` is
    heard through the radio: a voice-over heard on a radio is the radio), first
    a direction's, then the name's; otherwise earlier directions win."""
    first: PerspectiveChoice | None = None
    for direction in directions:
        choice = _named_in(direction.strip().strip("()").strip())
        if choice is not None and choice.perspective in DEVICE_PERSPECTIVES:
            return choice
        first = first or choice
    named = device_named(speaker)
    return named or first


def device_named(speaker: str) -> PerspectiveChoice | None:
    """The device a character's name says they are heard through (``RADIO``, ``TANNOY
    VOICE``), with the evidence; None for a person's name or one at the set."""
    for pattern, name in _NAMES:
        match = pattern.search(speaker)
        if match is not None:
            return PerspectiveChoice(name, f"name says {match.group(0).upper()}")
    return None


def _named_in(text: str) -> PerspectiveChoice | None:
    """The perspective one direction names: a device anywhere in it first, then its first phrase, then
    its first whole item."""
    if not text:
        return None
    found: list[PerspectiveChoice] = []
    for pattern, name in _PHRASES:
        match = pattern.search(text)
        if match is not None:
            found.append(PerspectiveChoice(name, f"({match.group(0)})"))
    for item in _ITEM_SPLIT.split(text):
        for pattern, name in _ITEMS:
            if pattern.fullmatch(item):
                found.append(PerspectiveChoice(name, f"({item.strip()})"))
                break
    devices = [choice for choice in found if choice.perspective in DEVICE_PERSPECTIVES]
    ranked = devices or found
    return ranked[0] if ranked else None
