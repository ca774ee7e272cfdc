"""This repository's own pre-commit hooks pass on everything it tracks."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from pre_commit.clientlib import load_manifest
from pre_commit.commands.run import filter_by_include_exclude

from kbtools.cli import main
from tests.kbfixtures import REPO, copy_example

GIT = shutil.which("git")
# what a Git app started from the desktop has: git, the shell and sed, no virtualenv
APP_PATH = os.pathsep.join(dict.fromkeys([str(Path(GIT).parent) if GIT else "/usr/bin",
                                          "/usr/bin", "/bin"]))


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


@pytest.mark.skipif(not (REPO / ".git").exists() or GIT is None, reason="not a git checkout")
@pytest.mark.skipif(any(shutil.which(tool, path=APP_PATH) for tool in ("kb", "ruff", "mypy")),
                    reason="kbtools' tools are on the system PATH")
def test_this_repositorys_hooks_run_from_a_git_app(tmp_path):
    """This repository's hooks were `language: system` with `kb`, `ruff` and `mypy` taken
    from PATH: a commit from a Git app whose PATH lacks the virtualenv stopped on
    "Executable `kb` not found". They run through scripts/hook.sh now, which finds the
    tools as kb init's hook finds kb (or in .venv), else says in one line what to run."""
    clone = tmp_path / "kbtools"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PRE_COMMIT")}
    env.update(PATH=APP_PATH, PRE_COMMIT_HOME=str(tmp_path / "pc"))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=600)

    lost = run("run", "ruff", "--files", "kbtools/errors.py")
    assert lost.returncode == 1 and "Executable" not in lost.stdout, lost.stdout
    assert [line for line in lost.stdout.splitlines() if line.startswith("ruff: ")] == [
        f"ruff: not on PATH ({APP_PATH}), nor importable by the Python of "
        ".git/hooks/pre-commit or by .venv: run bash scripts/setup.sh test, then "
        ".venv/bin/python -m pre_commit install"]
    assert run("install").returncode == 0  # from kbtools' environment, as a developer does
    (clone / "kbtools" / "unused.py").write_text("import os\n", encoding="utf-8")
    doc = clone / "knowledge" / "engineering" / "api-authentication.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("category: engineering",
                                                           "category: 无此类", 1),
                   encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=clone, env=env, check=True)
    ruff = run("run", "ruff", "--files", "kbtools/unused.py")
    assert ruff.returncode == 1 and "F401" in ruff.stdout, ruff.stdout
    check = run("run", "kb-check")
    assert check.returncode == 1, check.stdout
    assert check.stdout.count("error: fm-unknown-category") == 1, check.stdout  # once
    assert "fm-unknown-category: unknown category '无此类'" in check.stdout


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


@pytest.mark.parametrize("cache", [None, "build/cache"])
def test_the_caches_stay_out_of_git_without_a_gitignore_naming_them(tmp_path, monkeypatch,
                                                                     cache):
    """A repository using the hook repository has no `kb init` .gitignore (nor does one
    whose kb.toml names another cache folder): the hook's `kb check` left .kb-cache/'s
    SQLite files untracked, and the next `git add -A` committed them. The cache folder now
    ignores itself, whichever command makes it."""
    kr = copy_example(tmp_path / "kr", ["knowledge/engineering/adr-0001-sqlite-on-devices.md"])
    if cache:
        text = (kr / "kb.toml").read_text()
        (kr / "kb.toml").write_text(text.replace("[paths]\n", f'[paths]\ncache = "{cache}"\n'))
        git.Repo(kr).git.commit("-qam", "another cache folder")
    monkeypatch.chdir(kr)
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert CliRunner().invoke(main, ["check"]).exit_code == 0
    monkeypatch.delenv("PRE_COMMIT")
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["build", "-q", "--out", str(out)]).exit_code == 0
    made = kr / (cache or ".kb-cache")
    assert (made / "embeddings.sqlite").is_file() and (made / "check-results.sqlite").is_file()
    assert git.Repo(kr).git.status("--porcelain", "--untracked-files=all") == ""


@pytest.mark.slow
@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
def test_another_repository_uses_this_one_as_its_hook_repository(tmp_path):
    """`pre-commit try-repo <this checkout> <hook>` from a knowledge repository with its own
    kb.toml (its knowledge in `docs/知识 库/`): pre-commit installs kbtools from here, and
    `kb-check-all` checks the folder that kb.toml names, staged, with a Chinese file name.
    Run as a Git app runs it, with a PATH that lacks the virtualenv: a hook repository's
    `language: python` hooks run in the environment pre-commit makes for them."""
    kr = tmp_path / "kr"
    assert CliRunner().invoke(main, ["init", str(kr)]).exit_code == 0
    (kr / ".pre-commit-config.yaml").unlink()  # the hooks come from this repository instead
    (kr / "docs").mkdir()
    (kr / "knowledge").rename(kr / "docs" / "知识 库")
    toml = kr / "kb.toml"
    toml.write_text(toml.read_text().replace('knowledge = "knowledge"',
                                             'knowledge = "docs/知识 库"'))
    doc = kr / "docs" / "知识 库" / "入门 指南.md"
    (kr / "docs" / "知识 库" / "getting-started.md").rename(doc)
    env = {**{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")},
           "PRE_COMMIT_HOME": str(tmp_path / "pc"), "KB_HOME": str(tmp_path / "home"),
           "PATH": APP_PATH}
    repo = git.Repo(kr)

    def try_repo() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO),
                               "kb-check-all"], cwd=kr, env=env, capture_output=True,
                              text=True, timeout=900)

    repo.git.add(A=True)
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "kb check (whole folder)" in passed.stdout and "Passed" in passed.stdout
    good = doc.read_text(encoding="utf-8")
    doc.write_text(good.replace("category: engineering", "category: 无此类"), encoding="utf-8")
    repo.git.add(A=True)
    doc.write_text(good, encoding="utf-8")  # fixed in the work tree only: the commit is not
    failed = try_repo()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "docs/知识 库/入门 指南.md:3:1: error: fm-unknown-category" in failed.stdout


@pytest.mark.skipif(not (REPO / ".git").exists() or GIT is None, reason="not a git checkout")
@pytest.mark.skipif(any(shutil.which(tool, path=APP_PATH) for tool in ("kb",)),
                    reason="kbtools' tools are on the system PATH")
def test_a_hand_verification_in_a_fresh_clone_gets_its_record(tmp_path):
    """`pre-commit install` in a fresh clone installs the commit-msg hook too
    (`default_install_hook_types`): a reviewer's verification made by hand and committed
    with `git commit` (from a Git app's PATH) carries the Kb-Reviewed-Content line `kb
    review approve` writes, so a rebase keeping its text keeps it (tests/test_review_record.py)."""
    clone = tmp_path / "kbtools"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PRE_COMMIT")}
    env.update(PATH=APP_PATH, PRE_COMMIT_HOME=str(tmp_path / "pc"),
               GIT_AUTHOR_NAME="Wang", GIT_AUTHOR_EMAIL="wang@ex.org",
               GIT_COMMITTER_NAME="Wang", GIT_COMMITTER_EMAIL="wang@ex.org")
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=clone, env=env,
                   check=True, capture_output=True, timeout=300)
    assert (clone / ".git" / "hooks" / "commit-msg").is_file()
    doc = clone / "knowledge" / "field_reports" / "2025-08-corn-rust-scouting.md"
    doc.write_text(doc.read_text("utf-8").replace(
        "verified: false", 'verified: true\nverified_by: li.ming@example.org\n'
        'verified_at: "2026-03-01T09:00:00+08:00"', 1), "utf-8")
    subprocess.run(["git", "add", str(doc)], cwd=clone, env=env, check=True)
    res = subprocess.run(["git", "commit", "-q", "-m", "Verify corn rust scouting", "-m",
                          "Reviewed-by: Li Ming <li.ming@example.org>"], cwd=clone, env=env,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    message = git.Repo(clone).head.commit.message
    assert message.rstrip("\n").split("\n")[-2].startswith("Reviewed-by: Li Ming")
    assert re.fullmatch(r"Kb-Reviewed-Content: sha256:[0-9a-f]{64}",
                        message.rstrip("\n").split("\n")[-1])
