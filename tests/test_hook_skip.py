"""The pre-commit hook's quick way out: a commit that only adds or edits files `kb check`
never reads (code, say) passes at once, without importing the check stack; every commit
that could change a finding is checked as before (`kbtools/check/untouched.py`).

Each commit paid about a second for the folder check (0.66 s of CPU in a copy of the
example knowledge with one source file edited; 0.28 s now, most of it Python and click
starting). The hook runs `kb check --staged` (PRE_COMMIT=1) from the repository's root;
here it is run as the hook runs it, on a real Git index.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kbfixtures import authored_repo, titled_page

SKIPPED = "kb check: skipped: the commit only adds or edits files kb check never reads"


class Project:
    """A repository holding code beside a knowledge base in `prefix` (the root or a
    subfolder): a document links a script and a README and shows a picture of the knowledge
    base's folder outside its knowledge/ and assets/."""

    def __init__(self, root: Path, prefix: str) -> None:
        self.root, self.prefix = root, prefix
        self.repo = authored_repo(root)
        kb = root / prefix
        assert self.run("init", str(kb)).returncode == 0
        self.write("src/app.py", "x = 1\n")
        self.write(f"{prefix}/scripts/setup.sh", "echo setup\n")
        self.write(f"{prefix}/media/logo.png", "\x89PNG\r\n")
        self.write(f"{prefix}/README.md", "# Project\n\n## Install\n")
        self.write(f"{prefix}/knowledge/运行.md", titled_page(
            "运行", "见 [setup](../scripts/setup.sh) 与 [安装](../README.md#install)。\n\n"
            "![标志](../media/logo.png)"))
        self.repo.git.add(A=True)
        self.repo.git.commit("-qm", "start", "--no-verify")

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PRE_COMMIT": "1"}
        return subprocess.run([sys.executable, "-X", "importtime", "-m", "kbtools", *args],
                              cwd=self.root, env=env, capture_output=True, text=True,
                              timeout=300)

    def hook(self) -> tuple[int, bool, str]:
        """The hook's exit code, whether the check stack was imported, and its findings."""
        args = ["check"] + ([f"{self.prefix}/knowledge"] if self.prefix != "." else [])
        done = self.run(*args)
        imported = "kbtools.check.engine" in done.stderr
        assert (SKIPPED in done.stderr) is not imported, done.stderr[-2000:]
        return done.returncode, imported, done.stdout


@pytest.fixture(params=[".", "docs/知识 库"])
def project(request, tmp_path: Path) -> Project:
    return Project(tmp_path / "p", request.param)


def test_a_commit_of_code_alone_passes_without_the_check(project):
    project.write("src/app.py", "x = 2\n")
    project.write("src/新模块.py", "y = 1\n")
    project.repo.git.add(A=True)
    assert project.hook() == (0, False, "")


@pytest.mark.parametrize("change,code,finding", [
    # a link to a file the commit deletes or renames: caught, though no document changed
    (lambda p: p.repo.git.rm("-q", f"{p.prefix}/scripts/setup.sh"), 1, "error: path-missing"),
    (lambda p: p.repo.git.mv(f"{p.prefix}/scripts/setup.sh", f"{p.prefix}/scripts/i.sh"), 1,
     "error: path-missing"),
    # a picture (its bytes are read), Markdown (a link may name its headings)
    (lambda p: (p.write(f"{p.prefix}/media/logo.png", "<html>"), p.repo.git.add(A=True)), 0,
     "warning: image-not-picture"),
    (lambda p: (p.write(f"{p.prefix}/README.md", "# P\n"), p.repo.git.add(A=True)), 1,
     "error: link-anchor"),
])
def test_a_commit_that_can_change_a_finding_is_checked(project, change, code, finding):
    change(project)
    exit_code, imported, found = project.hook()
    assert (exit_code, imported) == (code, True), found
    assert "运行.md:13:" in found and finding in found


@pytest.mark.parametrize("rel", ["kb.toml", "schemas/frontmatter.schema.json",
                                 "knowledge/_dict.txt", "assets/notes.txt", ".gitignore",
                                 "src/.gitignore"])
def test_a_commit_touching_the_knowledge_base_or_gitignore_is_checked(project, rel):
    kb_file = not rel.startswith(("src/", ".gitignore"))
    path = project.root / (f"{project.prefix}/{rel}" if kb_file else rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write("\n" if path.suffix != ".txt" else "新词\n")
    project.repo.git.add(A=True)
    code, imported, found = project.hook()
    assert imported, found


def test_a_commit_to_one_knowledge_base_of_a_monorepo_skips_the_others(tmp_path):
    """docs/b's hook passes at once on a commit that changes docs/a alone, deletions
    included (a link from docs/b into docs/a is an error whatever it names); docs/a's is
    checked."""
    a = Project(tmp_path / "mono", "docs/a")
    b = Project.__new__(Project)
    b.root, b.prefix, b.repo = a.root, "docs/b", a.repo
    assert b.run("init", str(a.root / "docs/b")).returncode == 0
    a.repo.git.add(A=True)
    a.repo.git.commit("-qm", "b", "--no-verify")
    a.repo.git.rm("-q", "docs/a/scripts/setup.sh")
    assert b.hook() == (0, False, "")
    assert a.hook()[:2] == (1, True)
