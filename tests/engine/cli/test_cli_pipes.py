"""Verbs that print, piped into a reader that stops early (``radioplay render ... | head``).

Unix tools end quietly when the reader of their output goes away (SIGPIPE: the
shell sees status 141); a traceback about a broken pipe is noise on the
terminal of someone who only wanted the first lines. Each test runs the real
``radioplay`` entry point in a fresh interpreter with its standard output a
real pipe.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.project.fileformat import save_project
from tests.support.paths import REPO
from tests.support.projects import tiny_project

SIGPIPE_STATUS = 128 + signal.SIGPIPE


def verb_args(verb: str, tmp_path: Path, tiny_voices: dict[str, Path]) -> list[str]:
    project = tmp_path / "tiny.radioplay"
    save_project(tiny_project(tiny_voices["single"], roles=2, lines_per_role=1), project)
    if verb == "render":
        return ["render", str(project), "-o", str(tmp_path / "out"), "--no-stems"]
    if verb == "import":
        script = tmp_path / "script.txt"
        script.write_text("ANNA: Hello.\nBEN: Hi there.\n", encoding="utf-8")
        return ["import", str(script), "-o", str(tmp_path / "imported.radioplay")]
    return [verb]


@pytest.mark.parametrize("verb", ["render", "import", "voices"])
def test_a_reader_that_closed_the_pipe_ends_the_verb_quietly(verb: str, tmp_path: Path,
                                                             tiny_voices: dict[str, Path]) -> None:
    args = verb_args(verb, tmp_path, tiny_voices)
    proc = subprocess.Popen([sys.executable, "-m", "app.launch", *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line: every write meets a closed pipe
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == SIGPIPE_STATUS, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err

