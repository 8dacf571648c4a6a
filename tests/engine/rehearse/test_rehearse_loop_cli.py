"""``radioplay rehearse --loop 0`` reads a section over and over until ``q`` (or the end
of the input); the simulated reader (espeak-ng recordings), the real listener."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO
from tests.support.rehearse import needs_espeak


@needs_espeak
def test_a_section_looped_until_q_ends_when_q_is_typed(table: tuple[Path, Path]) -> None:
    path, reads = table
    # q typed while the reader is on L2: that line ends (as the advance key), and the read with it
    with subprocess.Popen([sys.executable, "-m", "engine.cli", "rehearse", str(path), "--role", "GUEST",
                           "--simulate", str(reads), "--device", "null", "--from", "L2", "--to", "L3",
                           "--loop", "0", "--json"], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as child:
        assert child.stdin is not None and child.stderr is not None
        said = []
        for line in child.stderr:  # the read's lines (on standard error with --json)
            said.append(line)
            if "(you)" in line:
                child.stdin.write("q\n")
                child.stdin.flush()
                break
        stdout, rest = child.communicate(timeout=300)
    assert child.returncode == 0, "".join(said) + rest
    out = json.loads(stdout)
    assert out["order"] == ["L2"] and out["manual_advances"] == 1, rest
    assert out["per_line"][0]["pass_no"] == 1
    # without q, the end of the input ends it after one pass (nothing else could stop it)
    run = subprocess.run([sys.executable, "-m", "engine.cli", "rehearse", str(path), "--role", "GUEST",
                          "--simulate", str(reads), "--device", "null", "--from", "L2", "--to", "L3",
                          "--loop", "0", "--json"], cwd=REPO, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=300)
    assert run.returncode == 0 and json.loads(run.stdout)["order"] == ["L2", "L3"], run.stderr
