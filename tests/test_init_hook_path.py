"""`kb init`'s hooks run from a Git app whose PATH lacks the virtualenv holding `kb`.

Authors commit from GitHub Desktop, VS Code or Obsidian Git, started from the desktop: Git
runs the hook with the app's PATH (/usr/bin:/bin), and pre-commit, found through the
interpreter `pre-commit install` recorded, said only "Executable `kb` not found" for a
`language: system` hook whose entry is `kb check`. The hooks now run `kb` from PATH, else
from that recorded interpreter, else fail with one line saying what to do.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from kbfixtures import authored_repo

from kbtools.cli import main

BIN = Path(sys.executable).parent
GIT = shutil.which("git")
# what a Git app started from the desktop has: git, the shell and sed, no virtualenv
APP_PATH = os.pathsep.join(dict.fromkeys([str(Path(GIT).parent) if GIT else "/usr/bin",
                                          "/usr/bin", "/bin"]))

pytestmark = [
    pytest.mark.skipif(not (BIN / "pre-commit").exists() or GIT is None,
                       reason="pre-commit or git not installed"),
    pytest.mark.skipif(shutil.which("kb", path=APP_PATH) is not None,
                       reason="a kb outside the virtualenv is on the system PATH"),
]


def _knowledge_repo(tmp_path: Path, sub: str) -> tuple[Path, Path]:
    """(Git root, knowledge base) after `kb init` and a first commit; in a subfolder the
    hook configuration is moved to the Git root, as `kb init` says to."""
    root = tmp_path / "repo"
    repo = authored_repo(root)
    kb = root / sub if sub else root
    result = CliRunner().invoke(main, ["init", str(kb)])
    assert result.exit_code == 0, result.output
    if sub:
        (kb / ".pre-commit-config.yaml").rename(root / ".pre-commit-config.yaml")
    repo.git.add(A=True)
    repo.git.commit("-qm", "start", "--no-verify")
    return root, kb


def _env(tmp_path: Path, path: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PRE_COMMIT")}
    return {**env, "PATH": path, "PRE_COMMIT_HOME": str(tmp_path / "pc")}


@pytest.mark.parametrize("sub", ["", "docs/知识 库"], ids=["root", "monorepo-subfolder"])
def test_a_commit_from_a_git_app_without_kb_on_its_path_is_checked(tmp_path, sub):
    root, kb = _knowledge_repo(tmp_path, sub)
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=root,
                               env=_env(tmp_path, f"{BIN}{os.pathsep}{APP_PATH}"),
                               capture_output=True, text=True, timeout=120)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    app = _env(tmp_path, APP_PATH)

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        subprocess.run(["git", "add", "-A"], cwd=root, env=app, check=True)
        return subprocess.run(["git", "commit", "-qm", message], cwd=root, env=app,
                              capture_output=True, text=True, timeout=300)

    doc = kb / "knowledge" / "getting-started.md"
    good = doc.read_text(encoding="utf-8")
    doc.write_text(good.replace("category: engineering", "category: 无此类"), encoding="utf-8")
    refused = commit("a category nobody declared")
    said = refused.stdout + refused.stderr
    assert refused.returncode == 1, said
    assert "not found" not in said
    rel = doc.relative_to(kb).as_posix()  # findings name paths from kb.toml's folder
    assert f"{rel}:3:1: error: fm-unknown-category: unknown category '无此类'" in said
    assert said.count("error: fm-unknown-category") == 1  # once (was twice: two hooks)
    doc.write_text(good + "\nOne more line, committed from the app.\n", encoding="utf-8")
    passed = commit("fixed")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert git.Repo(root).git.status("--porcelain") == ""


def test_without_kb_anywhere_the_hook_says_in_one_line_what_to_do(tmp_path):
    """No `kb` on PATH and no hook installed from kb's environment (the hooks folder is
    empty): each hook fails with one line naming the command that installs it, and changes
    nothing."""
    root, _kb = _knowledge_repo(tmp_path, "")
    hooks = tmp_path / "no-hooks"
    hooks.mkdir()
    git.Repo(root).git.config("core.hooksPath", str(hooks))
    run = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=root,
                         env=_env(tmp_path, APP_PATH), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    said = [line for line in run.stdout.splitlines() if line.startswith("kb check: ")]
    assert len(said) == 1, run.stdout  # one hook, one line, nothing else
    assert all("kb is not on PATH" in line and "python -m pre_commit install" in line
               for line in said), said
    assert "Traceback" not in run.stdout + run.stderr
    assert git.Repo(root).git.status("--porcelain") == ""


def test_the_python_a_hook_file_written_on_windows_names_is_found(tmp_path):
    """pre-commit on Windows writes .git/hooks/pre-commit with CRLF line ends, and a
    virtualenv under `C:\\Users\\Jane Doe` has a space (pre-commit quotes it): the Python
    it records is read without the CR and whole (else no kb was found there)."""
    root, kb = _knowledge_repo(tmp_path, "")
    venv = tmp_path / "Jane Doe" / "虚拟 环境"
    venv.parent.mkdir()
    venv.symlink_to(Path(sys.prefix), target_is_directory=True)
    python = venv / Path(sys.executable).relative_to(sys.prefix)
    subprocess.run([str(python), "-m", "pre_commit", "install"], cwd=root, check=True,
                   env=_env(tmp_path, f"{BIN}{os.pathsep}{APP_PATH}"), capture_output=True)
    for name in ("pre-commit", "pre-merge-commit"):
        hook = root / ".git" / "hooks" / name
        assert f"INSTALL_PYTHON='{python}'" in hook.read_text(encoding="utf-8")
        hook.write_bytes(hook.read_bytes().replace(b"\n", b"\r\n"))
    doc = kb / "knowledge" / "getting-started.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("category: engineering",
                                                           "category: nonsense"),
                   encoding="utf-8")
    git.Repo(root).git.add(A=True)
    run = subprocess.run([sys.executable, "-m", "pre_commit", "run"], cwd=root,
                         env=_env(tmp_path, APP_PATH), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "knowledge/getting-started.md:3:1: error: fm-unknown-category" in run.stdout
    assert "kb is not on PATH" not in run.stdout
