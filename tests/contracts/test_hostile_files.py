"""Files a hostile (or unlucky) user hands the loader, the importers and the CLI
(issue 20, items 10 and 12): one clear line naming the file, never a
traceback, never a wait on a pipe."""

from __future__ import annotations

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
