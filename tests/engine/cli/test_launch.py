"""The ``radioplay`` command (app/launch.py): the headless verbs never import Qt.

Each check runs the console script's function in a fresh interpreter, exactly
as ``radioplay ARGS`` does, and reads ``sys.modules`` when it is done.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine.project.fileformat import save_project
from tests.support.paths import REPO
from tests.support.projects import tiny_project

QT = ("PySide6", "shiboken6", "pyqtgraph")

# Runs app.launch:main as the `radioplay` script would, then reports the exit status
# and every Qt module the process imported. With BLOCK_QT, Qt cannot be imported at all.
RUN = f"""
import json, os, sys
if os.environ.get("BLOCK_QT"):
    for name in {QT!r}:
        sys.modules[name] = None  # an import of it now raises ImportError
sys.argv = ["radioplay", *json.loads(os.environ["ARGS"])]
from app.launch import main
try:
    code = main()
except SystemExit as exc:  # --version and --help exit through argparse
    code = exc.code
loaded = sorted(m for m, mod in sys.modules.items() if mod is not None and m.split(".")[0] in {QT!r})
with open(os.environ["REPORT"], "w") as f:
    json.dump({{"code": code, "qt": loaded}}, f)
"""


def radioplay(tmp_path: Path, *args: str, block_qt: bool = False) -> tuple[dict[str, object], str, str]:
    report = tmp_path / "launch-report.json"
    env = os.environ | {"ARGS": json.dumps(args), "REPORT": str(report)}
    env.pop("BLOCK_QT", None)
    if block_qt:
        env["BLOCK_QT"] = "1"
    done = subprocess.run([sys.executable, "-c", RUN], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text()), done.stdout, done.stderr


def listed_verbs(help_text: str) -> list[str]:
    """The verbs under COMMAND in argparse's help, in order."""
    block = help_text.split("  COMMAND\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.startswith("    ") and line[4] != " "]


def test_version_imports_no_qt(tmp_path):
    result, out, _ = radioplay(tmp_path, "--version")
    assert result == {"code": 0, "qt": []}
    assert out.startswith("radioplay ")


def test_render_imports_no_qt(tmp_path, tiny_voices):
    project = tmp_path / "tiny.radioplay"
    save_project(tiny_project(tiny_voices["single"], roles=2, lines_per_role=1), project)
    result, out, err = radioplay(tmp_path, "render", str(project), "-o", str(tmp_path / "out"), "--no-stems")
    assert result == {"code": 0, "qt": []}, err
    assert (tmp_path / "out" / "mix.wav").is_file() and "Rendered" in out


def test_help_lists_studio_first_and_the_headless_verbs(tmp_path):
    result, out, _ = radioplay(tmp_path, "--help")
    assert result == {"code": 0, "qt": []}
    verbs = listed_verbs(out)
    assert verbs[0] == "studio" and {"import", "render", "play", "serve", "voices"} <= set(verbs)


def test_studio_without_qt_says_what_is_missing(tmp_path):
    result, _, err = radioplay(tmp_path, "studio", block_qt=True)
    assert result == {"code": 1, "qt": []}
    assert "the studio window needs PySide6" in err and "Traceback" not in err


def test_engine_cli_alone_has_no_studio_and_needs_a_verb():
    done = subprocess.run([sys.executable, "-m", "engine.cli"], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    verbs = listed_verbs(done.stderr)
    assert done.returncode == 2 and "render" in verbs and "studio" not in verbs
