"""The engine's packages import each other in one direction only.

Every module under colosseum/ is read with ast, and every import counts, including those inside
functions and under ``if TYPE_CHECKING:``: an import that only a type checker follows still ties
the packages together for a reader. A module's package is the second dotted component of its name
(colosseum.graph.dag -> graph); the root modules (colosseum/__init__.py, __main__.py) are the
package's face and left out.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "colosseum"

# the pipeline, in order: a package imports only packages to its left (and settings, core)
PIPELINE = ("core", "latex", "project", "link", "graph", "checks", "index")
ANYWHERE = {"core", "settings"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The colosseum modules a module names in its imports (relative ones resolved)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # ``from colosseum import graph`` names a package
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == "colosseum"}


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (ENGINE / parts[1]).is_dir() else None


@cache
def _modules() -> tuple[tuple[Path, str, ast.Module], ...]:
    """(path, module name, syntax tree) of every module of the engine, read once per test run."""
    return tuple((path, _module_name(path), ast.parse(path.read_text(encoding="utf-8"), str(path)))
                 for path in sorted(ENGINE.rglob("*.py")))


def package_imports() -> dict[str, dict[str, set[str]]]:
    """package -> package it imports -> the modules whose imports make that edge."""
    graph: dict[str, dict[str, set[str]]] = {}
    for path, module, tree in _modules():
        package = _package(module)
        if package is None:
            continue  # the face: colosseum/__init__.py, __main__.py
        graph.setdefault(package, {})
        for name in _imported(tree, module, path.name == "__init__.py"):
            other = _package(name)
            if other is not None and other != package:
                graph[package].setdefault(other, set()).add(module)
    return graph


def package_cycles(graph: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """The groups of packages that import each other (strongly connected, more than one)."""
    order, low, on_stack, stack, groups = {}, {}, set(), [], []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(groups)


def test_no_cycle_between_packages():
    graph = package_imports()
    cycles = package_cycles(graph)
    detail = {
        " <-> ".join(cycle): {f"{a} -> {b}": sorted(graph[a][b]) for a in cycle for b in cycle if b in graph[a]}
        for cycle in cycles
    }
    assert not cycles, f"import cycles between packages: {detail}"


def test_only_the_adapters_sit_on_the_application_layer():
    """The use cases (app/) are called by the CLI (and the server, outside the engine); no engine
    package below them reaches up into app/ or into the CLI."""
    graph = package_imports()
    wrong = [f"{package} -> {other} ({', '.join(sorted(modules))})"
             for package, imports in sorted(graph.items()) for other, modules in sorted(imports.items())
             if (other == "cli" and package != "cli") or (other == "app" and package not in ("app", "cli"))]
    assert not wrong, "; ".join(wrong)


def test_the_pipeline_imports_only_to_its_left():
    """scan -> chunk -> walk -> link -> graph -> checks -> index: each stage may use the stages
    before it (and settings, core), never one after it."""
    graph = package_imports()
    wrong = []
    for position, package in enumerate(PIPELINE):
        allowed = set(PIPELINE[:position]) | ANYWHERE
        for other, modules in sorted(graph.get(package, {}).items()):
            if other not in allowed:
                wrong.append(f"{package} -> {other} ({', '.join(sorted(modules))})")
    assert not wrong, "imports against the pipeline's order: " + "; ".join(wrong)


def test_the_reader_sees_function_local_and_type_checking_imports():
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from colosseum.index import ProjectIndex\n"
        "def f():\n    from colosseum.graph.dag import DependencyGraph\n    import colosseum.link.state\n"
        "from . import splice\n"
    )
    found = _imported(ast.parse(source), "colosseum.link.linker", False)
    assert {"colosseum.index", "colosseum.graph.dag", "colosseum.link.state", "colosseum.link.splice"} <= found
    assert package_cycles({"a": {"b": set()}, "b": {"c": set()}, "c": {"a": set()}, "d": {"a": set()}}) \
        == [["a", "b", "c"]]


def test_the_pipeline_imports_its_own_modules_at_the_top():
    """An import of an engine module inside a function is how an import circle hides: the
    pipeline's packages import each other only at the top of a module (an import that costs,
    like networkx for the graph's mirror, may still wait until it is needed)."""
    hidden = []
    for path, module, tree in _modules():
        if _package(module) not in PIPELINE:
            continue
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            inner = ast.Module(body=function.body, type_ignores=[])
            for name in sorted(_imported(inner, module, path.name == "__init__.py")):
                hidden.append(f"{module}.{function.name} imports {name}")
    assert not hidden, "; ".join(hidden)
