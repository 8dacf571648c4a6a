"""The shape of the code: no import circle between modules of engine/ and app/, no module
over the size a newcomer can read in one sitting.

The graph is grimp's (import-linter's own), with the imports under ``if TYPE_CHECKING:``
counted: a circle that only the type checker walks still ties the modules together for
a reader.
"""

from __future__ import annotations

import grimp

from tests.support.paths import REPO

MAX_LINES = 450

def import_graph() -> dict[str, set[str]]:
    graph = grimp.build_graph("engine", "app", exclude_type_checking_imports=False, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
    return found


def test_circle_finder_sees_type_checking_imports():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert circles({"a": {"b"}, "b": set()}) == []
    graph = import_graph()
    # app/timeline/header.py imports TimelineView only under TYPE_CHECKING; while that import is
    # there the graph must show it (grimp counts such imports unless told not to).
    source = (REPO / "app" / "timeline" / "header.py").read_text()
    if "if TYPE_CHECKING:\n    from app.timeline.view import" in source:
        assert "app.timeline.view" in graph["app.timeline.header"]


def test_no_import_circle_between_modules():
    found = [sorted(c) for c in circles(import_graph())]
    assert not found, f"import circles: {found}"


def test_no_module_is_over_450_lines():
    too_long = {}
    for package in ("engine", "app"):
        for path in sorted((REPO / package).rglob("*.py")):
            name = path.relative_to(REPO).as_posix()
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES:
                too_long[name] = lines
    assert not too_long, f"split these modules (over {MAX_LINES} lines): {too_long}"
