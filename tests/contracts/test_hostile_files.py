"""Files a hostile (or unlucky) user hands the loader, the importers and the CLI
(issue 20, items 10 and 12): one clear line naming the file, never a
traceback, never a wait on a pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.project.fileformat import ProjectFileError, load_project, project_from_dict, save_project
from engine.project.importers.build import import_script
from engine.project.model import Line, Project, Role
from tests.support.paths import REPO


def radioplay(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def finishes(call: Callable[[], object], seconds: float = 10.0) -> BaseException | None:
    """Run ``call`` in a daemon thread; fail if it blocks, return what it raised."""
    raised: list[BaseException] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            raised.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still blocked after {seconds} s"
    return raised[0] if raised else None


def test_deeply_nested_json_is_a_project_file_error_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "deep.radioplay"
    path.write_text('{"format_version": 1,\n "title": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    with pytest.raises(ProjectFileError) as info:
        load_project(path)
    assert str(info.value) == f"{path}: not a project: nested more than 100 levels deep (line 2, column 110)"


def test_nesting_in_memory_is_reported_without_recursion() -> None:
    nested: object = "x"
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(ProjectFileError, match=r"^<memory>: title: expected a string, got a list$"):
        project_from_dict({"format_version": 1, "title": nested})


def test_an_integer_of_thousands_of_digits_is_a_project_file_error(tmp_path: Path) -> None:
    path = tmp_path / "digits.radioplay"
    path.write_text('{"format_version": 1,\n  "sample_rate": ' + "9" * 5000 + "}", encoding="utf-8")
    with pytest.raises(ProjectFileError) as info:
        load_project(path)
    assert str(info.value) == f"{path}: not a project: a number with thousands of digits (line 2, column 18)"


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "play.radioplay"
    os.mkfifo(fifo)
    error = finishes(lambda: load_project(fifo))
    assert isinstance(error, ProjectFileError)
    assert str(error) == f"{fifo}: cannot read: a named pipe (FIFO), not a regular file"
    script = tmp_path / "script.txt"
    os.mkfifo(script)
    error = finishes(lambda: import_script(script))
    assert isinstance(error, ValueError)
    assert str(error) == f"{script}: cannot read: a named pipe (FIFO), not a regular file"


def test_a_device_is_refused_instead_of_read_forever() -> None:
    with pytest.raises(ProjectFileError, match=r"^/dev/zero: cannot read: a device, not a regular file$"):
        load_project("/dev/zero")
    with pytest.raises(ValueError, match=r"^/dev/zero: cannot read: a device, not a regular file$"):
        import_script(Path("/dev/zero"))


@pytest.mark.parametrize("verb", ["import", "render"])
def test_cli_refuses_a_fifo_with_one_line(tmp_path: Path, verb: str) -> None:
    fifo = tmp_path / ("script.txt" if verb == "import" else "play.radioplay")
    os.mkfifo(fifo)
    result = radioplay(verb, str(fifo), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert result.stderr == f"radioplay: error: {fifo}: cannot read: a named pipe (FIFO), not a regular file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [fifo.name]


def test_render_refuses_an_impossible_start_before_any_work(tmp_path: Path) -> None:
    # 16000 s after a short play failed only after 23 s and 1.5 GB of silence.
    project = Project(cast=[Role("A")], lines=[Line("L1", "A", "Hello."), Line("L2", "A", "Later.", start=16000.0)])
    path = tmp_path / "late.radioplay"
    save_project(project, path)
    result = radioplay("render", str(path), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert result.stderr.startswith(f"radioplay: error: {path}: lines[1].start: 16000 s leaves 4:26:")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


# Issue 57: directions that got around the limits. Each line is within MAX_LINE_CHARS but asks
# for hours of silence, thousands of phrases or hours of digits; import and load took them, and
# a render then never ended (a 10-hour leading pause) or died with a traceback ("Unable to
# allocate 5.91 GiB"). The generators are kept, not the files.
GiB = 1 << 30
_P60 = "[pause 60] "
LINES_PAST_THEIR_BOUNDS: dict[str, tuple[str, str, str]] = {
    # case: (the line, the note, what the one-line error says)
    "10 h of pauses in the Delivery note": ("Hello there.", "60s, " * 599 + "60s",
                                            "the Delivery note is 2,998 characters; at most 1,000"),
    "10 h of pauses in one group": ("Hi. (" + "60s, " * 599 + "60s) Hello there.", "",
                                    "its pauses add up to more than 120 s by '(60s, 60s, 60s"),
    "10 h of pauses mid-line": ("Hello there. " + _P60 * 600 + "Goodbye now.", "",
                                "its pauses add up to more than 120 s by '[pause 60]' at column 36"),
    "10 h of pauses at the end": ("Hello there. " + _P60 * 600, "",
                                  "its pauses add up to more than 120 s by '[pause 60]' at column 36"),
    "1,500 directed phrases": ("(sad) a (happy) b " * 750, "", "it has more than 100 directions by '(sad)'"),
    "2,000 emphasized words": ("*a* " * 2_000, "", "it emphasizes more than 100 words by '*a*' at column 401"),
    "19,990 digits": ("9" * 19_990, "", "its words take about 2.4 hours to say; at most 12 minutes"),
}


def _measured(*args: str) -> tuple[int, str, str, int]:
    from tests.support.hostile import run_measured

    return run_measured([sys.executable, "-m", "engine.cli", *args], REPO)


@pytest.mark.parametrize(("text", "note", "expected"), LINES_PAST_THEIR_BOUNDS.values(),
                         ids=LINES_PAST_THEIR_BOUNDS.keys())
def test_import_refuses_a_line_past_its_bounds_with_one_line(tmp_path: Path, text: str, note: str,
                                                             expected: str) -> None:
    script = tmp_path / "script.txt"
    script.write_text(f"BEN: Hello.\nA: {f'({note}) ' if note else ''}{text}\n", encoding="utf-8")
    status, out, err, peak = _measured("import", str(script), "-o", str(tmp_path / "play.radioplay"))
    assert (status, out) == (1, "")
    assert err.startswith(f"radioplay: error: {script}:2: A's line: {expected}") and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.txt"]  # nothing written
    assert 0 < peak < GiB


@pytest.mark.parametrize(("text", "note", "expected"), LINES_PAST_THEIR_BOUNDS.values(),
                         ids=LINES_PAST_THEIR_BOUNDS.keys())
def test_render_refuses_a_saved_line_past_its_bounds_before_any_work(tmp_path: Path, text: str, note: str,
                                                                     expected: str) -> None:
    # A file from before the bounds, or written by hand: the loader is the one to say so.
    path = tmp_path / "play.radioplay"
    path.write_text(json.dumps({"format_version": 3, "cast": [{"name": "A"}],
                                "lines": [{"id": "L1", "role": "A", "text": text, "note": note}]}))
    status, out, err, peak = _measured("render", str(path), "-o", str(tmp_path / "out"))
    field = "note" if note else "text"
    assert (status, out) == (1, "")
    assert err.startswith(f"radioplay: error: {path}: lines[0].{field}: line 'L1': {expected}"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    assert 0 < peak < GiB


def test_render_refuses_beats_that_the_projects_beat_length_makes_hours(tmp_path: Path) -> None:
    path = tmp_path / "beats.radioplay"
    path.write_text(json.dumps({"format_version": 3, "timing": {"beat": 60.0}, "cast": [{"name": "A"}],
                                "lines": [{"id": "L1", "role": "A", "text": "Hello. " + "(beat) " * 2_800 + "Bye."}]}))
    status, _, err, peak = _measured("render", str(path), "-o", str(tmp_path / "out"))
    assert status == 1 and 0 < peak < GiB and not (tmp_path / "out").exists()
    assert err == (f"radioplay: error: {path}: lines[0].text: line 'L1': its pauses add up to more than 120 s by "
                   f"'(beat)' at column 22 of the line; a longer silence goes before the next line, as its pause\n")


def test_a_line_of_19990_unclosed_brackets_imports_with_a_few_warnings(tmp_path: Path) -> None:
    # (In-process: the command line prints the report's warnings one a line, 19,990 of them were 2.1 MB.)
    script = tmp_path / "script.txt"
    script.write_text("A: x" + "(" * 19_990 + "\n", encoding="utf-8")
    _, report = import_script(script)
    assert report.warnings[2:] == ["line 1 (A): unclosed '(' at column 4: its words are spoken; close it, or "
                                   "write \\( to say it (and 19,987 more like it in this line)"]
    assert len(report.warnings) == 3
