"""This repository's own pre-commit hooks pass on everything it tracks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
