"""Every default and allowed range of the data model, declared once.

The model's dataclasses take their defaults from here, the file format fills
missing fields and checks ranges with the same numbers, the CLI and the export
dialog offer the same loudness, the HTTP service checks voice overrides and the
cast panel's spin boxes stop where a saved file would be refused. Effect preset
names and their defaults are data too, in engine/project/presets.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.project.engines import DEFAULT_ENGINE

# ---- the production ----------------------------------------------------------------
DEFAULT_TITLE = "Untitled"
DEFAULT_SAMPLE_RATE = 48_000
SAMPLE_RATE_RANGE = (8_000, 192_000)

# ---- timing (seconds) ----------------------------------------------------------------
DEFAULT_LINE_GAP = 0.35  # between lines that simply follow each other
DEFAULT_SCENE_GAP = 1.5  # before the first line of a new scene
GAP_RANGE = (0.0, 60.0)
# Timing directions inside a line: "(beat)", "(pause)", "(long pause)" (engine/project/direction.py).
DEFAULT_BEAT = 0.6
DEFAULT_PAUSE = 1.0
DEFAULT_LONG_PAUSE = 2.0
DIRECTION_PAUSE_RANGE = (0.0, 60.0)
PAUSE_RANGE = (0.0, 600.0)  # a line's pause_before
OVERLAP_RANGE = (0.0, 60.0)  # how far a line may start before the previous one ends

# ---- a role's voice ------------------------------------------------------------------
DEFAULT_VOICE = "en_US-joe-medium"
DEFAULT_BACKEND = DEFAULT_ENGINE.name  # the file's "backend" (engine/project/engines.py)
DEFAULT_SPEED = 1.0
DEFAULT_VARIATION = 1.0
DEFAULT_PITCH = 0.0
# Allowed range of each numeric voice parameter, by field name.
VOICE_RANGES: dict[str, tuple[float, float]] = {"speed": (0.25, 4.0), "pitch": (-12.0, 12.0),
                                                "variation": (0.0, 2.0)}

# ---- a role's lane in the mix --------------------------------------------------------
# A palette that stays distinguishable on dark and light lanes; new roles take the next.
ROLE_COLOURS = (
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4",
    "#42d4f4", "#f032e6", "#9a6324", "#469990", "#808000",
)
DEFAULT_COLOUR = ROLE_COLOURS[0]  # a role made without one, in code or in a file
DEFAULT_GAIN_DB = 0.0
DEFAULT_PAN = 0.0
DEFAULT_PRIORITY = 1.0  # scheduler base weight: leads get more
GAIN_DB_RANGE = (-60.0, 24.0)
PAN_RANGE = (-1.0, 1.0)  # -1 = left, +1 = right
PRIORITY_RANGE = (0.01, 100.0)

# ---- export ------------------------------------------------------------------------------
DEFAULT_TARGET_LUFS = -16.0  # integrated loudness of mix.wav (podcasts; EBU broadcast is -23)
TARGET_LUFS_RANGE = (-60.0, 0.0)

# ---- sound design ----------------------------------------------------------------------
# Ducking per sound lane kind: (depth dB, attack s, release s, look-ahead s); 0 dB is off.
# Music steps well back under a voice, ambience a little, effects not at all.
DEFAULT_DUCKING: dict[str, tuple[float, float, float, float]] = {
    "effects": (0.0, 0.15, 0.8, 0.2), "ambience": (-6.0, 0.3, 1.2, 0.25), "music": (-12.0, 0.2, 0.9, 0.25)}
DUCK_DEPTH_RANGE = (-60.0, 0.0)
DUCK_TIME_RANGE = (0.0, 10.0)
# A bed starting at its cue plays this long in the clear before the next line.
DEFAULT_BED_LEAD_S: dict[str, float] = {"ambience": 1.0, "music": 3.0}
SOUND_LANE_NAMES: dict[str, str] = {"effects": "FX", "ambience": "AMBIENCE", "music": "MUSIC"}
FADE_RANGE = (0.0, 600.0)
# Length of a placeholder one-shot on the timeline before it has a sound.
PLACEHOLDER_EFFECT_S = 1.0

# ---- text limits -------------------------------------------------------------------------
# Checked where text comes in (the project file, script import, lexicon import,
# the lexicon panel): a 10 MB line or respelling would otherwise be accepted and
# the render never end. A long speech is a few thousand characters.
MAX_LINE_CHARS = 20_000
MAX_LEXICON_WORD_CHARS = 200  # a word or name, possibly a phrase
MAX_LEXICON_SAY_CHARS = 1_000  # its respelling or [[phonemes]]
MAX_REVISION_NAME_CHARS = 100  # "Blue Revision", "Second draft for the read-through"


@dataclass(frozen=True)
class LineBounds:
    """What one line may ask for, beyond its characters: its directions are work
    and silence that the text's length does not show (``[pause 60]`` is eleven
    characters and a minute of audio). engine/project/bounds.py checks a line
    against this table; the loader, the importers, the studio's script editor,
    the service and the synthesizer all ask it.

    A value of one direction past its bound is capped with a warning (the intent,
    a long silence, is clear); a line past a bound of the whole line is refused,
    naming the direction where it went over (no single value to cap: a pasted or
    generated text, not a performance anyone directed)."""

    # The written line: a long speech is a few thousand characters.
    line_chars: int = MAX_LINE_CHARS
    # A Delivery note is a phrase or two ("very quietly; to Lucy"); a paragraph
    # of stage business belongs in the scene's notes.
    note_chars: int = 1_000
    # One timing direction ("[pause 90]"): a minute is the longest silence a
    # scene holds inside a speech, and the longest beat the Timing dialog offers.
    direction_pause_s: float = DIRECTION_PAUSE_RANGE[1]
    # Every timing direction of a line (its note's and its text's) together: two
    # such minutes. Longer silence between lines is the line's pause before.
    line_pause_s: float = 120.0
    # The silence every line asks for (pauses before lines and inside them): a
    # production runs a few hours, and two of them of silence is one of nothing.
    project_pause_s: float = 2 * 3600.0
    # Directions in one line (text and note; every term of a group counts): each
    # delivery or pause starts a phrase the voice infers and shapes on its own.
    # A speech directed at every sentence has a few dozen.
    directions: int = 100
    # The words of one line, spoken (estimated from its characters at the voices' pace; a
    # digit is a word, so 20,000 digits are hours). A line is one clip, held whole through
    # each stage of synthesis and the mix: twelve minutes of it stay under a gigabyte
    # (docs/dev/benchmarks.md, "One long line"); a monologue runs a few.
    spoken_s: float = 720.0
    # Emphasized words (``*word*``) in one line: each is a phrase of its own too.
    # Emphasis that marks every other word emphasizes nothing.
    emphasized: int = 100
    # Silence a delivery adds after each sentence ("(hesitant)": 0.25 s): several
    # deliveries in one group add theirs up, to at most this.
    phrase_pause_s: float = 1.0
    # Warnings of one kind in one line ("unclosed '('") given one by one; past
    # this many they are one line with the count.
    warnings_per_kind: int = 3


LINE_BOUNDS = LineBounds()


def too_long(text: str, most: int) -> str | None:
    """``N characters; at most M`` when ``text`` is longer than ``most``, else None."""
    return f"{len(text):,} characters; at most {most:,}" if len(text) > most else None


def lexicon_entry_too_long(word: str, say: str) -> str | None:
    """What makes a lexicon entry too long, or None."""
    word_problem = too_long(word, MAX_LEXICON_WORD_CHARS)
    if word_problem:
        return f"the word is {word_problem}"
    say_problem = too_long(say, MAX_LEXICON_SAY_CHARS)
    return f"say is {say_problem}" if say_problem else None
