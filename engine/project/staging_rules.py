"""Recognising staging in a script: a scene heading's room, a line's perspective.

Each rule is one entry of a table (words -> room or perspective), checked in
order, so the first, most specific match wins and the words that matched
are the evidence shown to the producer ("heading says CATHEDRAL"). The
perspective rules read only perspective words (O.S., on phone, moving
away...) of a cue's extensions and a line's leading direction: the general
direction parser (delivery, emotion) routes its text through
:func:`perspective_words`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from engine.project.staging import ROOM_PRESETS, Room

# Heading words -> room preset, most specific first. Whole words only, any case.
ROOM_RULES: tuple[tuple[str, str], ...] = (
    (r"car park|parking lot|bus stop|railway platform", "street"),  # before CAR and the rest
    (r"cathedral|basilica|minster", "cathedral"),
    (r"church|chapel|abbey|crypt", "church"),
    (r"cave|cavern|tunnel|mine|grotto", "cave"),
    (r"stairwell|staircase|stairs|stairway", "stairwell"),
    (r"car|taxi|cab|van|truck|lorry", "car"),
    (r"bathroom|toilet|lavatory|shower|washroom", "bathroom"),
    (r"kitchen|kitchenette|galley", "kitchen"),
    (r"cellar|basement|archive|vault|storeroom|bunker", "cellar"),
    (r"studio|booth|control room", "studio"),
    (r"corridor|hallway|passage|landing", "corridor"),
    (r"hall|ballroom|auditorium|theatre|theater|gym|gymnasium|warehouse|station|concourse", "hall"),
    (r"office|study|newsroom|library|classroom", "office"),
    (r"bedroom|cell|nursery", "bedroom"),
    (r"living room|lounge|sitting room|parlour|parlor|flat|apartment|house|cottage|room", "living room"),
    (r"beach|shore|seaside|coast|harbour|harbor|pier|dock", "beach"),
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


@dataclass(frozen=True)
class RoomChoice:
    room: Room
    evidence: str


def infer_room(heading: str) -> RoomChoice | None:
    """The room a scene heading implies, and why; None when it says nothing
    of place (a plain-text ``# Scene 2``)."""
    words = heading.strip()
    if not words:
        return None
    interior = bool(_INTERIOR.match(words)) or bool(_BOTH.match(words))
    exterior = bool(_EXTERIOR.match(words)) and not _BOTH.match(words)
    for pattern, name in _ROOM_PATTERNS:
        match = pattern.search(words)
        if match is None:
            continue
        room = ROOM_PRESETS[name]
        said = match.group(0).upper()
        if exterior and not room.outdoor and name != "car":
            # EXT. CHURCH - DAY is outside the church: its walls reflect, nothing rings.
            outside = replace(ROOM_PRESETS[DEFAULT_EXTERIOR], name=DEFAULT_EXTERIOR)
            return RoomChoice(outside, f"heading says EXT. and {said}: outside it, {DEFAULT_EXTERIOR}")
        if interior and room.outdoor:
            # INT. of an outdoor word ("INT. PARK KEEPER'S HUT"): inside wins.
            continue
        return RoomChoice(room, f"heading says {said}")
    if interior:
        return RoomChoice(ROOM_PRESETS[DEFAULT_INTERIOR], f"heading says INT.: an ordinary room, {DEFAULT_INTERIOR}")
    if exterior:
        return RoomChoice(ROOM_PRESETS[DEFAULT_EXTERIOR], f"heading says EXT.: outdoors, {DEFAULT_EXTERIOR}")
    return None


# Perspective words -> perspective name (engine.project.staging.PERSPECTIVES), first match wins.
# Phrases match anywhere in a direction; the bare abbreviations and single words (O.S., OFF,
# CLOSE) only as a whole item of it ("(O.S.)", "(angry, off)"): "(takes off his coat)" is not
# off stage.
PERSPECTIVE_PHRASES: tuple[tuple[str, str], ...] = (
    (r"moving away|walking away|walks away|going away|receding|leaving", "moving-away"),
    (r"approaching|coming closer|comes closer|walking in|walks in|coming in", "approaching"),
    (r"on (?:the )?(?:tele)?phone|over the (?:tele)?phone|on (?:the )?radio|over the radio|filtered|"
     r"intercom|tannoy|loudspeaker", "phone"),
    (r"through (?:the |a )?(?:door|wall)|behind (?:the |a )?(?:door|wall)|muffled|beyond the door", "door"),
    (r"voice[- ]over|narrating", "voice-over"),
    (r"off[- ]camera", "off-camera"),
    (r"off[- ]?stage|off[- ]?screen|off[- ]?mic", "off"),
    (r"in the distance|far off|far away|from afar", "distant"),
    (r"close to (?:the )?mic|into the mic|in (?:his|her|their) ear|close[- ]up", "close"),
)
PERSPECTIVE_ITEMS: tuple[tuple[str, str], ...] = (
    (r"exits|exiting", "moving-away"),
    (r"enters|entering", "approaching"),
    (r"phone|telephone|radio|p\.?a\.?", "phone"),
    (r"v\.?\s?o\.?", "voice-over"),
    (r"o\.?\s?c\.?", "off-camera"),
    (r"o\.?\s?s\.?|off", "off"),
    (r"distant|distance", "distant"),
    (r"close|intimate", "close"),
)
_PHRASES = tuple((re.compile(rf"(?<![\w])(?:{words})(?![\w])", re.I), name) for words, name in PERSPECTIVE_PHRASES)
_ITEMS = tuple((re.compile(rf"\s*(?:{words})\s*", re.I), name) for words, name in PERSPECTIVE_ITEMS)
_ITEM_SPLIT = re.compile(r"[,;/]")


@dataclass(frozen=True)
class PerspectiveChoice:
    perspective: str
    evidence: str


def perspective_words(*directions: str) -> PerspectiveChoice | None:
    """The perspective named in a line's directions (a cue's extensions such as
    ``O.S.``, then its leading direction such as ``on phone``), with the words
    that said so; None when they name none. Earlier directions win."""
    for direction in directions:
        text = direction.strip().strip("()").strip()
        if not text:
            continue
        for pattern, name in _PHRASES:
            match = pattern.search(text)
            if match is not None:
                return PerspectiveChoice(name, f"({match.group(0)})")
        for item in _ITEM_SPLIT.split(text):
            for pattern, name in _ITEMS:
                if pattern.fullmatch(item):
                    return PerspectiveChoice(name, f"({item.strip()})")
    return None
