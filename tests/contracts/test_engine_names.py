"""Voice engines as one room (issue 53): an engine's name is compared in two places only.

Which engine voices a role is a string (the file's ``"backend"``). Compared across
the product (``backend == "kokoro"``, ``startswith("kokoro:")``, a dict keyed by
names), a third engine means edits in every package that compares it. So no product
module outside the project floor's table (engine/project/engines.py) and the
backends' registry (engine/synth/backends/registry.py) holds an engine's name or its
voice-id prefix as a string: the others ask the table (facts: label, prefix,
speakers, blends, language) or the registry (behaviour: load, cost, supports). A
docstring may name an engine; a message that quotes a longer text (``kokoro:NAME``)
is not the name.

The engines' backends share one base: the session plumbing (made on first use, warm,
run) is written once, in engine/synth/backends/base.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

from engine.project.engines import ENGINES, engine_named
from engine.synth.backends.base import LoadedVoice, VoiceBackend
from engine.synth.backends.registry import BACKENDS
from tests.support.paths import REPO

ALLOWED = {Path("engine/project/engines.py"), Path("engine/synth/backends/registry.py")}
NAMES = {e.name for e in ENGINES} | {e.prefix for e in ENGINES if e.prefix}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _use(parents: dict[int, ast.AST], node: ast.AST) -> str:
    """What a name literal is used for, as the failure names it."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.JoinedStr):
        return "built into an id"
    if isinstance(parent, ast.Compare):
        return "compared"
    if isinstance(parent, ast.Dict):
        return "a dict key" if any(k is node for k in parent.keys) else "a dict value"
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
        return "listed"
    if isinstance(parent, ast.Call):
        return f"passed to {ast.unparse(parent.func)}"
    if isinstance(parent, ast.keyword):
        return f"given as {parent.arg}="
    if isinstance(parent, ast.arguments):
        return "a default"
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        return "assigned"
    return type(parent).__name__ if parent is not None else "used"


def engine_name_literals(path: Path, root: Path = REPO) -> list[str]:
    """``file:line: 'kokoro' compared`` for every engine name or prefix written as a string."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    docstrings = _docstrings(tree)
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in NAMES
                and id(node) not in docstrings):
            found.append((node.lineno, f"{node.value!r} {_use(parents, node)}"))
    return [f"{path.relative_to(root)}:{line}: {use}" for line, use in sorted(found)]


def product_modules() -> list[Path]:
    return sorted(p for package in ("engine", "app") for p in (REPO / package).rglob("*.py")
                  if p.relative_to(REPO) not in ALLOWED)


def test_no_product_module_outside_the_table_and_the_registry_names_an_engine() -> None:
    found = [hit for path in product_modules() for hit in engine_name_literals(path)]
    assert not found, ("an engine's name written outside engine/project/engines.py (facts) and "
                       "engine/synth/backends/registry.py (behaviour); ask them instead:\n" + "\n".join(found))


def test_the_scan_sees_each_way_a_name_is_written(tmp_path: Path) -> None:
    """The check itself: a comparison, a prefix test, an id built by hand, a dict of names."""
    engine = ENGINES[-1]
    module = tmp_path / "probe.py"
    module.write_text(
        '"""Names kokoro in its docstring: allowed."""\n'
        f"def f(b, v):\n"
        f"    if b == {engine.name!r}:\n"
        f"        return v.startswith({engine.listed('')!r}) if {engine.listed('')!r} else f'{engine.listed('')}{{v}}'\n"
        f"    return {{{engine.name!r}: 1}}\n", encoding="utf-8")
    found = engine_name_literals(module, tmp_path)
    uses = [hit.split(": ", 1)[1] for hit in found]
    assert f"{engine.name!r} compared" in uses and f"{engine.name!r} a dict key" in uses
    if engine.prefix:
        assert f"{engine.prefix!r} passed to v.startswith" in uses and f"{engine.prefix!r} built into an id" in uses
    assert all(": 1:" not in hit for hit in found)  # the docstring


def test_every_engine_has_one_backend_and_every_backend_a_row() -> None:
    assert list(BACKENDS) == [e.name for e in ENGINES]
    for name, backend in BACKENDS.items():
        assert backend.engine is engine_named(name)
        # What the table says the project may write is what the backend can voice.
        assert backend.supports.speakers == backend.engine.speakers
        assert backend.supports.blends == backend.engine.blends


def test_the_backends_share_their_base() -> None:
    """Sessions made on first use, warmed, borrowed and run are the base's alone, so a
    device or binding decision (issue 53, part two) is made in one place for every engine."""
    shared = ("warm", "session", "run", "_make_sessions")
    for backend in BACKENDS.values():
        assert issubclass(backend, VoiceBackend)
        assert issubclass(backend.voice_class, LoadedVoice)
        for member in shared:
            owner = next(c for c in backend.voice_class.__mro__ if member in vars(c))
            assert owner is LoadedVoice, f"{backend.voice_class.__name__} redefines {member}"
        assert "load" not in vars(backend) and "__init__" not in vars(backend)
