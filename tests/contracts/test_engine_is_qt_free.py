"""The engine must run where Qt is not installed (CLI, server, CI without a
display). import-linter checks the static imports; this proves it at run
time by importing every engine module with Qt made unimportable."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import engine
from tests.support.paths import REPO


def test_every_engine_module_imports_without_qt():
    modules = sorted(m.name for m in pkgutil.walk_packages(engine.__path__, "engine."))
    assert "engine.export.render" in modules and "engine.cli" in modules
    script = (
        "import sys\n"
        "for name in ('PySide6', 'shiboken6', 'pyqtgraph'):\n"
        "    sys.modules[name] = None  # any import of it now raises ImportError\n"
        "import importlib\n"
        f"for module in {modules!r}:\n"
        "    importlib.import_module(module)\n"
        "assert not any(m and m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules if sys.modules[m])\n"
        "print('ok', len(sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")


def test_cli_help_runs_headless():
    done = subprocess.run([sys.executable, "-m", "engine.cli", "--help"], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0
    for verb in ("import", "render", "voices"):
        assert verb in done.stdout
