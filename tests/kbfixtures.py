"""Helpers to make small knowledge repos for tests (real files, real git, real builds)."""

from __future__ import annotations

import shutil
from pathlib import Path

import git

REPO = Path(__file__).resolve().parents[1]

# Front matter that passes the default schemas (category engineering needs a project).
GOOD_FM = """---
title: Generated
category: engineering
project: demo
source: test
author: alice@example.org
timestamp: "2026-03-14T09:30:00+08:00"
verified: false
---
"""


def copy_example(dest: Path, docs: list[str] | None = None) -> Path:
    """Copy kb.toml, schemas and the example knowledge (or some of its docs) into `dest`
    and commit it, so builds there have a real source commit."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "kb.toml", dest / "kb.toml")
    shutil.copytree(REPO / "assets", dest / "assets")
    if (REPO / "schemas").is_dir():
        shutil.copytree(REPO / "schemas", dest / "schemas")
    if docs is None:
        shutil.copytree(REPO / "knowledge", dest / "knowledge")
    else:
        for rel in docs:
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / rel, target)
    repo = git.Repo.init(dest)
    repo.index.add([str(p.relative_to(dest)) for p in dest.rglob("*")
                    if p.is_file() and ".git" not in p.parts])
    repo.index.commit("example knowledge")
    return dest
