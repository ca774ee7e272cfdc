"""This repository's own pre-commit hooks pass on everything it tracks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pre_commit.clientlib import load_manifest
from pre_commit.commands.run import filter_by_include_exclude

from tests.kbfixtures import REPO


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
def test_pre_commit_all_files_passes(tmp_path):
    bindir = Path(sys.executable).parent
    pre_commit = shutil.which("pre-commit", path=str(bindir)) or shutil.which("pre-commit")
    assert pre_commit, "pre-commit is a dependency"
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
               PRE_COMMIT_HOME=str(tmp_path / "pc"))
    res = subprocess.run([pre_commit, "run", "--all-files"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "kb check" in res.stdout and "Passed" in res.stdout


def test_the_hook_repository_checks_the_knowledge_folder_only():
    """Used from another repository (`repo: <kbtools>`, `id: kb-check`), the hook once took
    every *.md: a commit touching README.md or docs/guide.md failed on `fm-missing`."""
    hook = next(h for h in load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
                if h["id"] == "kb-check")
    names = ["README.md", "CHANGELOG.md", "docs/guide.md", ".github/PULL_REQUEST_TEMPLATE.md",
             "knowledge/a.md", "knowledge/设备/手册.md", "knowledge/Notes.MD",
             "knowledge/guide.markdown", "knowledge/_synonyms.txt", "knowledge/notes.txt",
             "knowledge/clip.mp4", "assets/x.png"]
    picked = list(filter_by_include_exclude(names, hook["files"], hook["exclude"]))
    assert picked == ["knowledge/a.md", "knowledge/设备/手册.md", "knowledge/Notes.MD",
                      "knowledge/guide.markdown", "knowledge/_synonyms.txt"]
