"""The import graph of catad/ (docs/design.md, "The pipeline"): no cycle, and every arrow
points down the pipeline.

The graph is read from the source with `ast`, not by importing: a node per module, an
edge per import of a catad module (relative imports resolved; `from .x import name` is an
import of the module x.name when there is one, else of x). Module-level imports and imports
inside functions both count, with one exception: an import inside a function of a module
of the same package. A term's ``__str__`` calls its own package's printer, which imports
the terms; that import runs after both modules are loaded, and it stays within the
package, which is one stage. An import inside a function from another package counts like
any other: deferring an import is no way to hide a loop between stages. Modules of one
package that import each other are one node when cycles are looked for (test_no_import_cycle).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

CATAD = Path(__file__).resolve().parent.parent / "catad"


def modules() -> dict[str, Path]:
    out = {}
    for path in CATAD.rglob("*.py"):
        parts = list(path.relative_to(CATAD.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = modules()


def package(module: str) -> str:
    """catad.lang.terms -> catad.lang; a top-level module (catad.api) is its own package."""
    path = MODULES[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0] if module.count(".") > 1 else module


def top_level(module: str) -> bool:
    """catad itself or a module catad/x.py (not a package's)."""
    return module == "catad" or MODULES[module].parent == CATAD and MODULES[module].name != "__init__.py"


def imported(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The catad modules an import statement in `module` loads (the innermost that exist)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            here = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
            here = here[:len(here) - (node.level - 1)]
            base = ".".join(here + ([node.module] if node.module else []))
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    out = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name:
            out.append(name)
    return out


def imports(module: str) -> set[str]:
    """What `module` imports, as counted here (see the module's docstring)."""
    tree = ast.parse(MODULES[module].read_text())
    out: set[str] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in imported(module, child):
                    if target != module and not (in_function and package(target) == package(module)):
                        out.add(target)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    visit(tree, False)
    return out


GRAPH = {m: imports(m) for m in MODULES}


def a_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, as the list of its modules, or None (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_graph_is_read():
    assert "catad.pipeline" in GRAPH["catad.differentiate"]
    assert "catad.rewrite.engine" in GRAPH["catad.rewrite.stages"]
    assert "catad.lang.terms" in GRAPH["catad.rewrite.catalogue"]  # `from ..lang.terms import ...`
    assert "catad.lang.printer" not in GRAPH["catad.lang.terms"]  # a term's __str__: same package


def test_the_cycle_finder_finds_cycles():
    assert a_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert a_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def collapsed(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """graph with each group of modules of one package that import each other in a loop made
    one node (named by its modules): such modules are parts of one stage calling each other
    (the backend's concerns), while a loop through two packages is what must not be."""
    group = {m: m for m in graph}
    changed = True
    while changed:  # merge groups until no loop stays inside one package (the graph is small)
        changed = False
        inner = {}
        for m, targets in graph.items():
            inner.setdefault(group[m], set()).update(group[t] for t in targets
                                                     if package(t) == package(m) and group[t] != group[m])
        cycle = a_cycle(inner)
        if cycle:
            name = " + ".join(sorted(set(cycle)))
            for m in graph:
                if group[m] in cycle:
                    group[m] = name
            changed = True
    out: dict[str, set[str]] = {}
    for m, targets in graph.items():
        out.setdefault(group[m], set()).update(group[t] for t in targets if group[t] != group[m])
    return out


def test_no_import_cycle():
    """No module imports itself through another package: modules of one package that import
    each other are one node here (see collapsed), and no loop passes through two packages."""
    cycle = a_cycle(collapsed(GRAPH))
    assert cycle is None, "catad imports in a loop: " + " -> ".join(cycle)


def test_loops_within_a_package_are_collapsed_and_loops_across_packages_are_not():
    graph = {"catad.lang.terms": {"catad.lang.types"}, "catad.lang.types": {"catad.lang.terms"},
             "catad.api": {"catad.lang.terms"}}
    assert a_cycle(collapsed(graph)) is None
    graph["catad.lang.types"] = {"catad.api"}
    assert a_cycle(collapsed(graph)) is not None


def reach(module: str) -> set[str]:
    seen, todo = set(), [module]
    while todo:
        for m in GRAPH[todo.pop()]:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def test_rewrite_only_rewrites():
    """rewrite/ neither differentiates, converts to CL nor compiles: it reaches none of ad/,
    combinators/ or backend/ (nor the pipeline and the API above them)."""
    for m in (m for m in MODULES if m.startswith("catad.rewrite")):
        bad = {x for x in reach(m) if package(x) in ("catad.ad", "catad.combinators", "catad.backend")
               or top_level(x) and x not in ("catad._node", "catad.errors", "catad.tangents")}
        assert not bad, f"{m} imports {sorted(bad)}"


@pytest.mark.parametrize("stage", ["catad.frontend", "catad.ad", "catad.backend"])
def test_the_pipeline_strings_the_stages(stage):
    """Outside its own package, only catad.pipeline runs the front end, AD or the backend."""
    users = {m for m, targets in GRAPH.items() if package(m) != stage
             and any(package(t) == stage for t in targets)}
    assert users == {"catad.pipeline"}


def test_the_api_layers_are_one_way():
    """explain and differentiate are built on the pipeline, and neither on the other;
    nothing below them imports them or the API."""
    top = {"catad", "catad.api", "catad.differentiate", "catad.explain", "catad.cli"}
    assert not GRAPH["catad.explain"] & top and not GRAPH["catad.differentiate"] & top
    assert not reach("catad.pipeline") & top
