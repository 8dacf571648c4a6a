"""Issue 25, the project file, script import and lexicon import: text too long
for any render, sound clips far out or looping for a day, and 40,000 takes on
a line, each checked at load (or import) naming the line, entry or clip."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from engine.cli import main
from engine.project.defaults import MAX_LEXICON_SAY_CHARS, MAX_LINE_CHARS
from engine.project.fileformat import (
    ProjectFileError,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from engine.project.importers.build import import_script
from engine.project.lexicon_io import LexiconFileError, read_lexicon
from engine.project.sound import SoundClip, SoundLane
from tests.support.growth import LINEAR, growth
from tests.support.hostile import tiny_project

HUGE = "word " * 2_000_000  # 10 MB


def _saved(tmp_path: Path, voice: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    project = tiny_project(voice)
    data = project_to_dict(project)
    edit(data)
    path = tmp_path / "big.radioplay"
    path.write_text(json.dumps(data))
    return path


def test_a_10_mb_line_or_respelling_is_refused_at_load_naming_it(tmp_path, tiny_voices):
    voice = tiny_voices["single"]
    path = _saved(tmp_path, voice, lambda d: d["lines"][1].update(text=HUGE))
    with pytest.raises(ProjectFileError, match=rf"lines\[1\]\.text: line 'L2' is 10,000,000 characters; at most "
                                               rf"{MAX_LINE_CHARS:,} \(split it into several lines\)$"):
        load_project(path)
    path = _saved(tmp_path, voice, lambda d: d.update(lexicon={"Siobhan": HUGE}))
    with pytest.raises(ProjectFileError, match=rf"lexicon entry 'Siobhan': say is 10,000,000 characters; at most "
                                               rf"{MAX_LEXICON_SAY_CHARS:,}$"):
        load_project(path)
    path = _saved(tmp_path, voice, lambda d: d["cast"][0].update(lexicon={"x" * 5000: "ex"}))
    with pytest.raises(ProjectFileError, match=r"the word is 5,000 characters; at most 200$"):
        load_project(path)
    assert main(["render", str(path), "-o", str(tmp_path / "out")]) == 1  # one line, nothing rendered
    assert not (tmp_path / "out").exists()


def test_a_10_mb_line_in_a_script_is_refused_at_import_naming_its_line(tmp_path):
    script = tmp_path / "play.fountain"
    script.write_text(f"INT. A ROOM\n\nANNA\nHello.\n\nBEN\n{HUGE.strip()}\n")
    with pytest.raises(ValueError, match=rf"play\.fountain:6: BEN's line is 9,999,999 characters; at most "
                                         rf"{MAX_LINE_CHARS:,} \(split it into several lines\)$"):
        import_script(script)


def test_a_10_mb_alias_in_a_lexicon_file_is_refused_at_import_naming_the_entry(tmp_path, tiny_voices, capsys):
    pls = tmp_path / "names.pls"
    pls.write_text('<?xml version="1.0"?><lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-'
                   'lexicon" alphabet="ipa" xml:lang="en-US"><lexeme><grapheme>Siobhan</grapheme><alias>'
                   + HUGE + "</alias></lexeme></lexicon>")
    with pytest.raises(LexiconFileError, match=r"names\.pls: line 1: lexeme 'Siobhan': say is 9,999,999 characters; "
                                               r"at most 1,000$"):
        read_lexicon(pls)
    csv = tmp_path / "names.csv"
    csv.write_text("word,say\nAoife,ee-fa\nSiobhan," + "shi-" * 1500 + "\n")  # csv refuses a 10 MB field itself
    with pytest.raises(LexiconFileError, match=rf"^{re.escape(str(csv))}: line 3: 'Siobhan': say is 6,000 "
                                               r"characters; at most 1,000$"):
        read_lexicon(csv)
    project = tmp_path / "p.radioplay"
    save_project(tiny_project(tiny_voices["single"]), project)
    assert main(["lexicon", str(project), "--import", str(csv)]) == 1
    err = capsys.readouterr().err.strip()
    assert "'Siobhan': say is 6,000 characters" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("offset", 86_000.0, "86000 s from its anchor"),
    ("offset", -7200.0, "-7200 s from its anchor"),
    ("length", 86_400.0, "86400 s long"),
    ("lead", 5000.0, "5000 s of lead"),
])
def test_a_sound_clip_a_day_out_or_looping_for_a_day_is_refused_at_load(tmp_path, tiny_voices, field, value,
                                                                         problem):
    project = tiny_project(tiny_voices["single"])
    project.sound_lanes = [SoundLane("MUSIC", kind="music")]
    project.sounds = [SoundClip("X1", "MUSIC", cue="theme", anchor="line_start", line="L1", loop=True,
                                end="length", length=60.0)]
    data = project_to_dict(project)
    data["sounds"][0][field] = value
    with pytest.raises(ProjectFileError, match=rf"sounds\[0\]\.{field}: sound 'X1': {re.escape(problem)}; at most "
                                               r"3600 s \(1 h\), as for the silence around a line$"):
        project_from_dict(copy.deepcopy(data), tmp_path / "p.radioplay")
    data["sounds"][0][field] = 3600.0 if field != "offset" else -3600.0
    project_from_dict(data, tmp_path / "p.radioplay")  # the limit itself is allowed


def test_takes_load_in_linear_time(tiny_voices):
    base = project_to_dict(tiny_project(tiny_voices["single"]))

    def with_takes(n: int) -> dict:
        data = copy.deepcopy(base)
        data["lines"][0]["takes"] = list(range(n))
        return data

    def load(data: dict) -> object:
        return project_from_dict(data, "takes.radioplay")

    assert len(project_from_dict(with_takes(40_000), "t.radioplay").lines[0].takes) == 40_000
    assert growth(load, with_takes, 10_000) < LINEAR  # a list's `in` grew 16 times
