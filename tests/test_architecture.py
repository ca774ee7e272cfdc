"""The package's shape: no import cycles, and the library never depends on the CLI.

The graph is read from the source with `ast` (every import statement, including those inside
functions), so a cycle hidden behind a function-local import is still a cycle.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "kbtools"
CLI_MODULES = {"kbtools.cli", "kbtools.clidocs", "kbtools.__main__"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """Every kbtools module (and third-party top-level name) `path` imports, anywhere."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            for alias in node.names:  # `from kbtools.index import vectors` imports a module
                if f"{base}.{alias.name}" in known:
                    found.add(f"{base}.{alias.name}")
    return found


@functools.cache
def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(path, name, known) for name, path in mods.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in edges:
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycle_among_kbtools_modules():
    edges = {name: {d for d in deps if d.startswith("kbtools")} for name, deps in graph().items()}
    cycle = find_cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_finds_a_hidden_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("name", sorted(n for n in modules()
                                        if n not in CLI_MODULES and not n.startswith("kbtools.commands")))
def test_library_module_does_not_import_the_cli(name):
    deps = graph()[name]
    bad = sorted(d for d in deps if d == "click" or d.startswith("click.")
                 or d == "kbtools.commands" or d.startswith("kbtools.commands."))
    assert not bad, f"{name} imports {bad}: library code must not depend on the CLI"


def test_every_package_says_what_it_owns():
    for init in sorted(PKG.rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree)
        assert doc and len(doc) > 40, f"{init.relative_to(PKG.parent)} needs a docstring"


def test_shipping_runs_git_only_through_its_git_layer():
    ship = {n: deps for n, deps in graph().items() if n.startswith("kbtools.ship.")}
    runners = sorted(n for n, deps in ship.items() if deps & {"subprocess", "git"})
    assert runners == ["kbtools.ship.git"]


def test_device_directory_module_knows_nothing_of_sync_or_release():
    deps = graph()["kbtools.ship.device"]
    assert not deps & {"kbtools.ship.sync", "kbtools.ship.release", "kbtools.ship.operate",
                       "kbtools.ship.git"}


def test_commands_import_only_the_library_and_shared_output():
    for name, deps in sorted(graph().items()):
        if name.startswith("kbtools.commands.") and name != "kbtools.commands.output":
            bad = sorted(d for d in deps if d.startswith("kbtools.commands")
                         and d != "kbtools.commands.output")
            assert not bad, f"{name} imports {bad}: move shared helpers into the library"
