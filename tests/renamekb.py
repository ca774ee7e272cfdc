"""A committed knowledge base whose files the tests then rename in Git history (`git mv`),
shared by the tests of rename hints for standard links and for Obsidian wikilinks
(`kbtools.check.renames`), and the helpers they run git and `kb check` with."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kbtools.cli import main
from tests.kbfixtures import PAGE

IDENTITY = {"GIT_AUTHOR_NAME": "Rename Test", "GIT_AUTHOR_EMAIL": "rename@example.com",
            "GIT_COMMITTER_NAME": "Rename Test", "GIT_COMMITTER_EMAIL": "rename@example.com"}


def page(title: str, body: str) -> str:
    return PAGE.format(title=title, source="test", body=body)


def git(root: Path, *args: str) -> str:
    env = {**os.environ, **IDENTITY}
    return subprocess.run(["git", "-C", str(root), *args], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def short(root: Path) -> str:
    """The abbreviated hash of HEAD, as a rename hint names its commit."""
    return git(root, "log", "-1", "--format=%h")


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def check(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", *args])


def committed_kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pump_body: str) -> Path:
    """A committed knowledge base at `tmp_path/kb`, the working directory: a guide (headings
    Usage, Setup), a picture assets/pump.png, and knowledge/faq/pump.md whose body is
    `pump_body` (its links to both); git's identity set for the commits a test makes."""
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "kb"
    write(root, "kb.toml", "")
    write(root, "knowledge/guide.md", page("Guide", "## Usage\n\nUse it.\n\n## Setup\n\nSet.\n"))
    write(root, "knowledge/faq/pump.md", page("Pump", pump_body))
    (root / "assets").mkdir()
    (root / "assets" / "pump.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    git(root, "init", "-q")
    git(root, "add", "kb.toml", "knowledge", "assets")
    git(root, "commit", "-qm", "start")
    monkeypatch.chdir(root)
    return root
