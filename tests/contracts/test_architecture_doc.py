"""docs/dev/architecture.md is the map a newcomer reads first: every module, file and folder it
names exists.

It names them four ways, all checked here: a path from the repository's root
(``engine/sched/tick.py``, ``engine/export/daw/``, ``tests/support/``), a dotted module
(``engine.cli_import``, ``app.shell``), a bare file name in a table row beside the package
that holds it (``tick.py`` in the row of ``engine.sched``, ``panels.py`` in the row of
``app.shell``), and a link to another page (``[revisions](revisions.md)``). A placeholder
(``app/<feature>/access.py``) is not a name.

The other way round, the map leaves no room out: every package of engine/ and app/ and every
module at engine/'s top level (each a floor or part of one in pyproject.toml's contracts) is on
it by its dotted name.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.paths import REPO

DOC = REPO / "docs" / "dev" / "architecture.md"
ROOTS = ("engine", "app", "tests", "bench", "resources", "docs", "samples")

# engine/x/y.py, app/x/, tests/support/... (no placeholder, no trailing punctuation)
PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(ROOTS) + r")/[\w./-]*)")
# engine.x.y or app.x (a module or package, never an attribute: those are written Class.member)
DOTTED = re.compile(r"(?<![\w./-])((?:engine|app)(?:\.\w+)+)")
BARE = re.compile(r"(?<![\w./<>-])(\w+\.py)\b")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _path_exists(text: str) -> bool:
    path = REPO / text.rstrip(".,;:")
    return path.exists()


def _module_exists(dotted: str) -> bool:
    base = REPO.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _folders(row: str) -> list[Path]:
    """The folders a table row or paragraph names: its packages and the folders of its paths."""
    found = [REPO.joinpath(*d.split(".")) for d in DOTTED.findall(row)]
    for text in PATH.findall(row):
        path = REPO / text.rstrip(".,;:")
        found.append(path if text.endswith("/") or path.is_dir() else path.parent)
    return found


def missing_names(doc: str) -> list[str]:
    """Each name the page gives that the tree lacks, as 'line N: name'."""
    missing = []
    for number, row in enumerate(doc.splitlines(), start=1):
        for text in PATH.findall(row):
            if "<" not in text and not _path_exists(text):
                missing.append(f"line {number}: {text}")
        for dotted in DOTTED.findall(row):
            if not _module_exists(dotted):
                missing.append(f"line {number}: {dotted}")
        folders = _folders(row)
        for name in BARE.findall(PATH.sub("", row)):
            if not any((folder / name).is_file() for folder in folders):
                missing.append(f"line {number}: {name} (in none of {[str(f.relative_to(REPO)) for f in folders]})")
        for target in LINK.findall(row):
            if "://" not in target and not (DOC.parent / target).exists():
                missing.append(f"line {number}: link {target}")
    return missing


def test_every_module_file_and_folder_the_map_names_exists():
    assert not missing_names(DOC.read_text(encoding="utf-8"))


def unmapped_rooms(doc: str) -> list[str]:
    """The packages of engine/ and app/, and engine/'s top-level modules, the page never names."""
    named = set(DOTTED.findall(doc))
    rooms = [f"{p.parent.parent.name}.{p.parent.name}" for top in ("engine", "app")
             for p in sorted((REPO / top).glob("*/__init__.py"))]
    rooms += [f"engine.{p.stem}" for p in sorted((REPO / "engine").glob("*.py")) if p.stem != "__init__"]
    return [room for room in rooms if room not in named]


def test_the_map_names_every_package_and_engine_module():
    assert not unmapped_rooms(DOC.read_text(encoding="utf-8"))


def test_the_check_finds_names_the_tree_lacks():
    page = "\n".join([
        "| ground | `engine.cli_nothing` | in `engine/no_such.py` and `app/shell/` |",
        "| scheduling | `engine.sched` | the tick (`tick.py`), the clock (`clock.py`) |",
        "a folder `engine/export/gone/`, a placeholder `app/<feature>/access.py`, [gone](no-such-page.md)",
    ])
    assert missing_names(page) == [
        "line 1: engine/no_such.py",
        "line 1: engine.cli_nothing",
        "line 2: clock.py (in none of ['engine/sched'])",
        "line 3: engine/export/gone/",
        "line 3: link no-such-page.md",
    ]
    assert "engine.sched" in unmapped_rooms("`engine.session`") and "app.shell" in unmapped_rooms("")
    assert "engine.session" not in unmapped_rooms("the live engine (`engine.session`)")
