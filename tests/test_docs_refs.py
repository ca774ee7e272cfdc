"""What the docs point a newcomer at exists: pages, files, tests and library names.

README.md, docs/*.md, kb.toml and the code's messages send readers to `docs/<page>.md`,
to files (`kbtools/query/fusion.py`, `tests/test_x.py::test_name`) and to library calls
(`kbtools.decision.documents.evaluate_table`). A page that was never written (kb.toml
named docs/config.md), a module that moved (`kbtools/fusion.py`) or a function that lives
elsewhere leaves the reader at a dead end.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from pathlib import Path

import click
from kbfixtures import REPO

from kbtools.cli import main

DOCS = [REPO / "README.md", REPO / "benchmarks" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# where a reader is sent to a docs page: the docs, the example kb.toml, the code's messages
POINTERS = [*DOCS, REPO / "kb.toml", *sorted((REPO / "kbtools").rglob("*.py")),
            *sorted((REPO / "schemas").rglob("*.json")), *sorted((REPO / "scripts").glob("*"))]
PAGE = re.compile(r"(?<![\w/.-])docs/([\w-]+\.md)")
# a backticked repository path: `kbtools/x.py`, `tests/test_x.py::test_y`, `schemas/x.json`
REPO_PATH = re.compile(r"`((?:kbtools|tests|schemas|scripts|benchmarks)/[^`\s<>*…]+)`")
DOTTED = re.compile(r"`(kbtools(?:\.\w+)+)")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def test_every_docs_page_named_exists() -> None:
    missing = sorted({f"{p.relative_to(REPO)}: docs/{m}" for p in POINTERS if p.is_file()
                      for m in PAGE.findall(_text(p)) if not (REPO / "docs" / m).is_file()})
    assert not missing, missing


def test_every_repository_path_in_the_docs_exists() -> None:
    missing = []
    for page in DOCS:
        for ref in REPO_PATH.findall(_text(page)):
            path, _, test = ref.rstrip(".,:;").partition("::")
            file = REPO / path.split(":")[0]
            if not file.exists():
                missing.append(f"{page.name}: {ref}")
            elif test and not re.search(rf"^\s*(?:async )?def {re.escape(test)}\b",
                                        _text(file), re.MULTILINE):
                missing.append(f"{page.name}: {ref} (no such test)")
    assert not missing, missing


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            fields = {f.name for f in dataclasses.fields(obj)} if (
                isinstance(obj, type) and dataclasses.is_dataclass(obj)) else set()
            if attr in fields:  # a dataclass field without a default is no class attribute
                return attr == parts[-1]
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_library_name_in_the_docs_resolves() -> None:
    names = {n for page in DOCS for n in DOTTED.findall(_text(page))}
    assert names, "the docs name library calls"
    assert not sorted(n for n in names if not _resolves(n))


# a kb.toml setting as the docs name it: `[query] page_weight = 0.2`, `[categories.<name>]
# folder` (one backticked span), or "kb.toml release.keep" in prose and --help texts
SETTING = re.compile(r"`\[([a-z_]+(?:\.[\w<>]+)?)\] ([a-z_]+)[^`]*`"
                     r"|kb\.toml (?:\[([a-z_]+)\] |([a-z_]+)\.)([a-z_]+)\b")


def _settings(schema: dict[str, object], section: str) -> set[str]:
    node: object = schema
    for part in section.split("."):
        props = node.get("properties", {}) if isinstance(node, dict) else {}
        extra = node.get("additionalProperties") if isinstance(node, dict) else None
        node = props.get(part) if part in props else extra if part.startswith("<") else None
    return set(node.get("properties", {})) if isinstance(node, dict) else set()


def test_every_kb_toml_setting_in_the_docs_is_accepted() -> None:
    """A setting the docs tell users to write must pass kb.toml's schema (retrieval.md's
    `[query] weighting = "fixed"` was refused as an unknown key)."""
    schema = json.loads((REPO / "schemas" / "kb.schema.json").read_text(encoding="utf-8"))
    named, unknown = set(), []
    for page in [*DOCS, REPO / "kb.toml"]:
        for m in SETTING.finditer(_text(page)):
            section = m.group(1) or m.group(3) or m.group(4)
            key = m.group(2) or m.group(5)
            named.add((section, key))
            if key not in _settings(schema, section):
                unknown.append(f"{page.name}: [{section}] {key}")
    assert ("query", "page_weight") in named and ("release", "keep") in named
    assert not sorted(set(unknown)), sorted(set(unknown))


# a command the docs or a message tell the user to run: `kb sync --trusted-key PUB`
COMMAND = re.compile(r"`kb ([a-z][^`]*)`")


def test_every_kb_command_and_option_the_docs_and_messages_name_exists() -> None:
    """A message or a page that tells the user to run `kb x --flag` must name a command and
    options that exist (a guard: the CLI's own words are the user's next step)."""
    ctx, wrong, seen = click.Context(main), [], 0
    for page in [*DOCS, *sorted((REPO / "kbtools").rglob("*.py"))]:
        for span in COMMAND.findall(_text(page)):
            for line in span.split("&&"):
                cmd: click.Command = main
                words = line.split("#")[0].split()
                if "|" in words:  # `kb query … | head -1`: the rest is another program
                    words = words[:words.index("|")]
                while words and isinstance(cmd, click.Group):
                    sub = cmd.get_command(ctx, words[0])
                    if sub is None:
                        break
                    cmd, words = sub, words[1:]
                if isinstance(cmd, click.Group) or "/" in line.split()[0]:
                    continue  # `kb publish/rollback/query --engine`, `kb trust list|add` name several
                seen += 1
                opts = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
                for word in words:
                    for flag in word.strip("[]").split("|"):
                        flag = flag.split("=")[0].rstrip(",.;:)")
                        if flag.startswith("-") and flag not in {*opts, "-", "--help", "-h"}:
                            wrong.append(f"{page.relative_to(REPO)}: `kb {span}`: {flag}")
    assert seen > 100 and not wrong, wrong
