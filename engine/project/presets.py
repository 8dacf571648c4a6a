"""The names of the effect presets a project may choose, with what a producer
reads in the preset menu, and the defaults.

These are data-model facts (the file format validates against them, the cast
panel lists them); engine/audio/effects.py builds the sound of each name.
"""

from __future__ import annotations

# Lane presets: name -> what a producer reads in the preset menu.
LANE_EFFECTS: dict[str, str] = {
    "none": "dry: no processing",
    "telephone": "a telephone line: 300-3400 Hz with a little drive",
    "radio": "an old radio receiver: a narrow, boxy band, slightly distorted and compressed",
    "room": "a small room",
    "hall": "a large hall",
    "distance": "across the room: duller, quieter and more reverberant",
}
# Master presets; the true-peak limiter ends every one of them.
MASTER_EFFECTS: dict[str, str] = {
    "clean": "the true-peak limiter only",
    "broadcast": "a 3:1 dialogue compressor before the true-peak limiter",
}
DEFAULT_LANE_EFFECT = "none"
DEFAULT_MASTER_EFFECT = "broadcast"
