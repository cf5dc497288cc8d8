"""The house rules: no import cycles, modules small enough to read, the CLI a leaf.

Complements tests/test_layering.py (which checks the layers with import-linter and an import
blocker): these read the package's import graph (grimp, the library import-linter uses).
"""

from __future__ import annotations

import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gpuadvisor"

#: Modules that are data tables rather than logic may be longer (none today).
DATA_TABLES: frozenset[str] = frozenset()
#: "~600 lines": a module may run a little over while it is being split.
MAX_LINES = 650


@pytest.fixture(scope="module")
def graph():
    sys.path.insert(0, str(ROOT))
    return grimp.build_graph("gpuadvisor")


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(
                        child)))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle():
    # Negative control on a graph with a known circle a -> b -> c -> a and a tail d -> a.
    fake = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"):
        fake.add_module(name)
    for importer, imported in (("pkg.a", "pkg.b"), ("pkg.b", "pkg.c"), ("pkg.c", "pkg.a"),
                               ("pkg.d", "pkg.a")):
        fake.add_import(importer=importer, imported=imported)
    assert _cycles(fake) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_no_import_cycles_inside_the_package(graph):
    assert _cycles(graph) == []


def test_nothing_imports_the_command_line(graph):
    importers = set(graph.find_modules_that_directly_import("gpuadvisor.cli"))
    for module in graph.modules:
        if module.startswith("gpuadvisor.cli."):
            importers |= graph.find_modules_that_directly_import(module)
    outside = sorted(m for m in importers
                     if m != "gpuadvisor.__main__" and not m.startswith("gpuadvisor.cli"))
    assert outside == []


def test_no_module_is_over_about_six_hundred_lines():
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and name not in DATA_TABLES:
            long.append(f"{name}: {lines}")
    assert long == []
