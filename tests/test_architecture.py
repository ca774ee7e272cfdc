"""The package's shape: no import cycles, and the library never depends on the CLI.

The graph is read from the source with `ast` (every import statement, including those inside
functions), so a cycle hidden behind a function-local import is still a cycle.
"""

from __future__ import annotations

import ast
import functools
import re
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
    assert runners == ["kbtools.ship.git", "kbtools.ship.gitrun"]


@pytest.mark.parametrize("name", ["kbtools.ship.device", "kbtools.ship.devicelock",
                                  "kbtools.ship.devicestate"])
def test_device_directory_modules_know_nothing_of_sync_or_release(name):
    deps = graph()[name]
    assert not deps & {"kbtools.ship.sync", "kbtools.ship.release", "kbtools.ship.operate",
                       "kbtools.ship.git", "kbtools.ship.gitrun", "kbtools.ship.worktree"}


def test_device_directory_modules_import_downwards_only():
    """device (the directory) <- devicelock (its lock) <- devicestate (its records)."""
    deps = {n: graph()[n] for n in ("kbtools.ship.device", "kbtools.ship.devicelock")}
    assert not deps["kbtools.ship.device"] & {"kbtools.ship.devicelock",
                                              "kbtools.ship.devicestate"}
    assert "kbtools.ship.devicestate" not in deps["kbtools.ship.devicelock"]


def test_commands_import_only_the_library_and_shared_output():
    for name, deps in sorted(graph().items()):
        if name.startswith("kbtools.commands.") and name != "kbtools.commands.output":
            bad = sorted(d for d in deps if d.startswith("kbtools.commands")
                         and d != "kbtools.commands.output")
            assert not bad, f"{name} imports {bad}: move shared helpers into the library"


# The stages as layers: a module may import from its own package and from lower layers only
# (docs/architecture.md draws the same picture). `kbtools` itself (the version) is importable
# everywhere: it imports nothing.
LAYERS = [
    {"errors", "pathspecs", "textfind", "gitbatch", "linkscope", "base_identity", "docfiles",
     "beneath"},
    {"fsutil", "workers", "cachedb", "gitobjects", "ignored"},
    {"schemas", "findings"},
    {"config"},
    {"corpus"},
    {"markdown", "provenance", "embed"},
    {"blame_runs", "doc_changes", "knowledge_dir"},
    {"render", "decision", "review", "index"},
    {"check", "query"},
    {"build"},
    {"ship"},
    {"words"},
    {"earlier_hooks"},
    {"hookconfig"},
    {"agents", "scaffold"},
    {"engine"},
    {"serve"},
    {"api", "cli", "commands"},
    {"clidocs", "__main__"},
]


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "kbtools"


def layer_of(package: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if package in layer)


def test_every_package_has_a_layer():
    assert {package_of(m) for m in modules()} - {"kbtools"} == set().union(*LAYERS)


def test_packages_import_only_lower_layers():
    wrong = []
    for name, deps in graph().items():
        here = package_of(name)
        if here == "kbtools":
            continue
        for dep in deps:
            there = package_of(dep)
            if dep.startswith("kbtools") and there not in (here, "kbtools") \
                    and layer_of(there) >= layer_of(here):
                wrong.append(f"{name} -> {dep}")
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def test_architecture_doc_lists_exactly_the_modules_that_exist():
    """docs/architecture.md's tree table names every module, and only modules that exist."""
    doc = (PKG.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = doc.split("## The tree", 1)[1].split("\n\n", 2)[1]
    named = set()
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        package = cells[0].strip("`").rstrip("/") if cells[0].startswith("`") else ""
        for name in re.findall(r"`([a-z_0-9]+\.py)`", cells[1]):
            named.add(f"{package}/{name}" if package else name)
    on_disk = {p.relative_to(PKG).as_posix() for p in PKG.rglob("*.py")
               if p.name not in ("__init__.py", "__main__.py") and p.parent.name != "commands"}
    assert sorted(named - on_disk) == [], "named in docs/architecture.md but missing"
    assert sorted(on_disk - named) == [], "modules missing from docs/architecture.md"


def defined_names(path: Path) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) else []
        names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def test_decision_names_are_imported_from_where_they_live():
    """`decision.conditions` re-exported `normalize_cell`, `column_key` and five more names
    of `cell_text` and `headers` (`x as x`), and `model`, `matching`, the check and the
    chunker imported them through it: who owns a name was two hops away, and a change to
    `conditions`' imports broke modules that use nothing of its own. Every name imported
    from a module of the decision package is one that module defines."""
    known = modules()
    through = []
    for path in [*known.values(), *sorted(PKG.parent.glob("tests/*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            home = known.get(node.module or "") if isinstance(node, ast.ImportFrom) else None
            if home is None or home.name == "__init__" or \
                    not (node.module or "").startswith("kbtools.decision."):
                continue
            through += [f"{path.name}: {a.name} from {node.module}" for a in node.names
                        if a.name not in defined_names(home)]
    assert through == []
