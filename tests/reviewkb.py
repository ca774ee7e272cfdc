"""A knowledge repository for review tests: commits by several identities at chosen dates,
the reviewers' kb.toml and a document's text (tests/test_review.py, tests/test_review_commands.py)."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import git as gitpython
from git.util import Actor

from kbtools.config import load_config
from kbtools.review.policy import check_range

ALICE = Actor("Alice Writer", "alice@ex.org")  # writes documents; not a reviewer
RITA = Actor("Rita Reviewer", "rita@ex.org")  # reviewer for knowledge/**
RAY = Actor("Ray Reviewer", "ray@ex.org")  # reviewer for knowledge/**
MALLORY = Actor("Mallory", "mallory@ex.org")  # nobody's reviewer
LEAD = Actor("Lead", "lead@ex.org")

KB_TOML = """\
[review]
non_content_fields = ["tags", "urgency"]

[review.reviewers]
"knowledge/**" = ["rita@ex.org", "Ray@ex.org"]
"knowledge/eng/**" = ["eve@ex.org"]
"""
DOC = "knowledge/crops/rust.md"
# the reviewers of the review-history tests (tests/test_review_histories.py, _lineage.py)
REVIEWERS_TOML = """\
[review]
non_content_fields = ["tags"]

[review.reviewers]
"knowledge/**" = ["rita@ex.org", "ray@ex.org"]
"""
AT = "2026-02-02T09:00:00+00:00"  # when those tests' commits are made, unless they say


def git(root: Path, *args: str, who: str = "alice@ex.org", date: str = AT) -> str:
    """`git ARGS` in `root` as the person `who` (name from the address) at `date`."""
    name = who.split("@")[0].title()
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": who,
           "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": who,
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True,
                          text=True).stdout


def doc_text(body: str = "# Rust\n\nSpray at first sign.\n", *, verified: bool = False,
             by: str | None = None, at: str | None = None, title: str = "Wheat rust",
             tags: tuple[str, ...] = ("wheat",), author: str = "Alice") -> str:
    lines = ["---", f"title: {title}", "category: crop-protection", "source: SOP",
             f"author: {author}", 'timestamp: "2026-01-01T09:00:00+08:00"',
             f"verified: {'true' if verified else 'false'}"]
    if by:
        lines.append(f"verified_by: {by}")
    if at:
        lines.append(f'verified_at: "{at}"')
    lines += ["crop: [wheat]", "disease: [rust]", f"tags: [{', '.join(tags)}]", "---", ""]
    return "\n".join(lines) + body


class KB:
    """A knowledge repository with commits by several identities at chosen dates."""

    def __init__(self, root: Path):
        self.root = root
        self.repo = gitpython.Repo.init(root, initial_branch="main")
        (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
        self.base = self.commit(["kb.toml"], "Initial settings", LEAD, "2026-01-01T00:00:00+00:00")

    def commit(self, files: list[str], message: str, actor: Actor, date: str,
               committed: str | None = None) -> str:
        self.repo.index.add(files)
        when = datetime.fromisoformat(date)
        c = self.repo.index.commit(message, author=actor, committer=actor, author_date=when,
                                   commit_date=datetime.fromisoformat(committed or date))
        return c.hexsha

    def put(self, text: str, message: str, actor: Actor, date: str, rel: str = DOC,
            committed: str | None = None) -> str:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return self.commit([rel], message, actor, date, committed)

    def check(self, base: str | None = None) -> list:
        findings, _ = check_range(load_config(self.root), base or self.base, "HEAD")
        return findings

    def codes(self, base: str | None = None) -> list[str]:
        return sorted(f.code for f in self.check(base))


def written(kb: KB) -> None:
    kb.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")


def as_identity(monkeypatch: Any, actor: Actor) -> None:
    """Git commits of this test (and of kb's own git calls) made as `actor`."""
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", actor.name)
        monkeypatch.setenv(f"GIT_{who}_EMAIL", actor.email)
