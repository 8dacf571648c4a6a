"""Property-based fuzzing of everything that reads a user's words (issue 20).

Targets: the ``.radioplay`` loader, both script importers and the text
frontend. Whatever the input, each ends in its result or in its own error
type, with one line naming the file and the place; never another exception,
never a hang (inputs are bounded and every parser is linear, see
test_linear_time.py), never a write (the folder is compared before and after,
and the call runs with that folder as the working directory).

A few hundred examples per target here; ``make fuzz`` (HYPOTHESIS_PROFILE=long,
registered in conftest.py) runs tens of thousands.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.project.fileformat import ProjectFileError, load_project, save_project
from engine.project.importers.build import import_script
from engine.project.importers.parsed import ScriptSyntaxError
from engine.synth.errors import TextError
from engine.synth.frontend import caption_text, prepare

FUZZ = settings(max_examples=max(300, settings().max_examples), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
pytestmark = pytest.mark.timeout(600 if settings().max_examples > 1000 else 120)


def _listing(folder: Path) -> list[tuple[str, int, int]]:
    return sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir())


@contextlib.contextmanager
def _alone_in_a_folder(name: str, data: bytes) -> Iterator[Path]:
    """``data`` as the only file of a fresh folder that is also the working
    directory; the folder must be unchanged afterwards (nothing written)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / name
        path.write_bytes(data)
        before = _listing(folder)
        with contextlib.chdir(folder):
            yield path
        assert _listing(folder) == before, "reading wrote into the folder"


def _one_line(message: str) -> None:
    assert message and "\n" not in message.rstrip("\n") and "Traceback" not in message


# --------------------------------------------------------------------------- the loader

_VALID = {
    "format_version": 1, "title": "T", "sample_rate": 48000, "timing": {"line_gap": 0.35, "scene_gap": 1.5},
    "cast": [{"name": "ANNA", "colour": "#112233", "voice": {"speed": 1.0, "pitch": 0.5, "speaker": None}},
             {"name": "BOB", "pan": -0.3}],
    "scenes": [{"id": "S1", "heading": "h", "notes": ["n"]}],
    "lines": [{"id": "L1", "role": "ANNA", "text": "Hi", "scene": "S1", "note": "softly"},
              {"id": "L2", "role": "BOB", "text": "Yo", "scene": "S1", "start": 3.0, "pause_before": 1}],
    "lexicon": {"Llanfair": "hlan-vire"},
}
_VALID_TEXT = json.dumps(_VALID, indent=1)
_JSONISH = st.text(alphabet='{}[]":,0123456789.-+eE ntrufalse\\u\n\ud800é', max_size=12)


@st.composite
def _mutated_document(draw: st.DrawFn) -> str:
    text = _VALID_TEXT
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 12))
        text = text[:at] + draw(_JSONISH) + text[at + cut:]
    return text


def _deep(depth: int) -> str:
    return '{"format_version": 1, "title": ' + "[" * depth + "]" * depth + "}"


_PROJECT_BYTES = st.one_of(
    _mutated_document().map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.binary(max_size=400),
    st.integers(0, 3000).map(lambda d: _deep(d).encode()),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
)


@FUZZ
@given(_PROJECT_BYTES)
def test_loader_ends_in_a_project_or_its_own_error(data: bytes) -> None:
    with _alone_in_a_folder("play.radioplay", data) as path:
        try:
            project = load_project(path)
        except ProjectFileError as exc:
            message = str(exc)
            _one_line(message)
            assert message.startswith(f"{path}: ")
            # the place: a JSON path, a line and column, a byte position, or the whole file is wrong
            assert (exc.path or re.search(r"line \d+, column \d+|position \d+", exc.problem)
                    or exc.problem.startswith("expected an object, got ")), message
            return
    with tempfile.TemporaryDirectory() as tmp:  # what loads also saves and loads back the same
        again = Path(tmp) / "again.radioplay"
        save_project(project, again)
        assert load_project(again) == project


# --------------------------------------------------------------------------- the importers

_FRAGMENTS = st.sampled_from([
    "BOB", "@bob", "MR. X", "Sue", ": ", ":", "(", ")", "(beat)", "(Foghorn, far off.)", "[Foghorn.]", "[", "]",
    "[pause 2]", "[pause]", "[pause 1e9]", "[pause 601]", "[pause -1]", "[[", "]]", "/*", "*/", "#", "# Scene 1",
    "# Title: x", "# a note", "INT. HOUSE - DAY", ".X", ">", "<", "~", "!", "^", " ", "  ", "\t", "CUT TO:",
    "é", "ſ", "İ", "\ufeff", "\r", "=", "===", "*", "**", "_", "Title:", "--", "—", "Hello there.", "\x00", "\u2028",
])
_LINE = st.lists(st.one_of(_FRAGMENTS, st.text(max_size=4)), max_size=8).map("".join)
_SCRIPT = st.one_of(st.lists(_LINE, max_size=30).map("\n".join), st.text(max_size=400))
_SCRIPT_BYTES = st.one_of(_SCRIPT.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=300))


def _import_ends_well(name: str, data: bytes, narrate: bool) -> None:
    with _alone_in_a_folder(name, data) as path:
        try:
            project, report = import_script(path, narrate_action=narrate)
        except ScriptSyntaxError as exc:
            _one_line(str(exc))
            assert str(exc).startswith(f"{path}:{exc.line}: ") and exc.line >= 1
            return
        except ValueError as exc:
            _one_line(str(exc))
            assert re.match(re.escape(f"{path}: ") + r".*(at byte \d+|\(lines\[\d+\]|\w+\[\d+\])", str(exc)), exc
            return
    assert report.casting or not project.cast
    for line in project.lines:
        assert line.text.strip() and line.role in project.role_names()
    with tempfile.TemporaryDirectory() as tmp:  # import never makes a project its loader refuses
        saved = Path(tmp) / "imported.radioplay"
        save_project(project, saved)
        assert load_project(saved) == project


@FUZZ
@given(_SCRIPT_BYTES, st.booleans())
def test_plain_text_import_ends_in_a_project_or_its_own_error(data: bytes, narrate: bool) -> None:
    _import_ends_well("script.txt", data, narrate)


@FUZZ
@given(_SCRIPT_BYTES, st.booleans())
def test_fountain_import_ends_in_a_project_or_its_own_error(data: bytes, narrate: bool) -> None:
    _import_ends_well("script.fountain", data, narrate)


# --------------------------------------------------------------------------- the text frontend

_TEXT_FRAGMENTS = st.sampled_from([
    "[[", "]]", "[[h@'loU]]", "[laughs]", "[", "]", "<b>", "</b>", "<", ">", "*", "_", "**", "Mr.", "Dr. ", "J. ",
    "... ", "!", "?", ", ", "; ", "—", "\n", "ſ", "İstanbul", "straße", "ﬁ", "😀", "\u200d", "\x00", "Hello", " ",
])
_FRONTEND_TEXT = st.one_of(st.text(max_size=300),
                           st.lists(st.one_of(_TEXT_FRAGMENTS, st.text(max_size=6)), max_size=60).map("".join))
_LEXICON = st.dictionaries(st.one_of(st.sampled_from(["", " ", "ſ", "s", "İstanbul", "Mr", "[[", "*"]),
                                     st.text(max_size=8)),
                           st.text(min_size=1, max_size=8), max_size=6)


def _ends_well(call: Callable[[], object]) -> object:
    try:
        return call()
    except TextError as exc:
        _one_line(str(exc))
        return None


@FUZZ
@given(_FRONTEND_TEXT, _LEXICON)
def test_text_frontend_ends_in_units_or_its_own_error(text: str, lexicon: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        prepared = _ends_well(lambda: prepare(text, lexicon, max_chars=60))
        assert isinstance(caption_text(text), str)
        assert os.listdir(tmp) == []
    if prepared is not None:
        assert prepared.units and all(unit.strip() for unit in prepared.units)  # type: ignore[attr-defined]
        assert set(prepared.lexicon_used) <= set(lexicon.items())  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- a line grown to 100k characters

# Issue 57: what a pasted or generated line is made of, repeated until it is 100,000
# characters long (five times what a line may hold: the check that refuses it must not hang).
_PIECES = st.sampled_from([
    "(", ")", "[", "]", "*", "*a* ", "\\", "\\(", " ", ".", ",", "9", "½", "1,", "£", "(beat) ", "[pause 60] ",
    "[pause 600] ", "(60s, ", "(sad) a ", "( quietly ", "(very hesitant, ", "and ", "then ", "(a (b) ", "Mr. ",
    "[[", "]]", "\n", "—", "Hello",
])
_UNIT = st.lists(st.one_of(_PIECES, st.text(max_size=2)), min_size=1, max_size=4).map("".join).filter(bool)
GROWN = settings(max_examples=max(8, settings().max_examples // 100), deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])
_WARNING_KINDS = 7  # unclosed ( or [ (spoken, or read as a direction), unmatched ) or ], a capped pause


@GROWN
@given(_UNIT)
def test_a_line_grown_to_100k_characters_is_parsed_bounded_and_normalized_in_linear_time(unit: str) -> None:
    from engine.project.bounds import line_overstep
    from engine.project.defaults import LINE_BOUNDS
    from engine.project.direction import parse_line
    from engine.text import normalize
    from tests.support.growth import LINEAR, growth

    quarter = max(1, 25_000 // len(unit))
    fresh = itertools.count()  # a text never parsed before (the parse is cached by its text)
    unbounded = dataclasses.replace(LINE_BOUNDS, line_chars=10**9)
    assert growth(lambda text: line_overstep(f"{text}{next(fresh)}", bounds=unbounded),
                  lambda n: unit * n, quarter) < LINEAR
    assert growth(normalize, lambda n: unit * n, quarter) < LINEAR
    grown = parse_line(unit * 4 * quarter)
    assert len(grown.warnings) <= _WARNING_KINDS * LINE_BOUNDS.warnings_per_kind
    assert all("\n" not in warning for warning in grown.warnings)
