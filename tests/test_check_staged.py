"""`kb check --staged` (on under pre-commit): what the next commit holds, not the work tree.

pre-commit stashes unstaged changes to tracked files, but leaves untracked files where they
are: a document linking an image never `git add`ed, or one `git rm --cached`, passed the
hook and broke on every fresh checkout; an untracked draft blocked unrelated commits.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import git
import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import PAGE

BIN = Path(sys.executable).parent


def page(title: str, body: str) -> str:
    return PAGE.format(title=title, source="test", body=body)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    """A committed knowledge repo (a document under a non-ASCII folder with a space, an
    image, a tracked symlink to a folder of images), then an uncommitted state."""
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "子 目录").mkdir(parents=True)
    (tmp_path / "assets" / "shots").mkdir(parents=True)
    (tmp_path / "assets" / "kept.png").write_bytes(b"\x89PNG")
    (tmp_path / "assets" / "shots" / "a.png").write_bytes(b"\x89PNG")
    (tmp_path / "knowledge" / "shots").symlink_to("../assets/shots")
    (tmp_path / "knowledge" / "子 目录" / "病害 说明.md").write_text(
        page("Doc", "![kept](<../../assets/kept.png>) ![a](../shots/a.png)\n\n"
                    "![new](<../../assets/新 图.png>) [old](../old.md)"), encoding="utf-8")
    (tmp_path / "knowledge" / "old.md").write_text(page("Old", "Text."))
    repo = git.Repo.init(tmp_path)
    repo.git.add(A=True)
    repo.git.commit("-qm", "start")
    # not staged: a new image; deleted from the index only: a linked document
    (tmp_path / "assets" / "新 图.png").write_bytes(b"\x89PNG")
    repo.git.rm("-q", "--cached", "knowledge/old.md")
    # an untracked draft that is not ready
    (tmp_path / "knowledge" / "draft.md").write_text("---\ntitle: wip\n---\nWIP\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    return tmp_path


def check(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(main, ["check", *args])


def test_the_work_tree_by_default(repo):
    res = check("knowledge/子 目录")
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("how", [("--staged",), ("PRE_COMMIT",)])
def test_staged_links_need_their_targets_in_the_index(repo, how):
    assert check().exit_code == 1  # the draft; results cached for the work tree
    env = {"PRE_COMMIT": "1"} if how == ("PRE_COMMIT",) else None
    res = check(*(a for a in how if a.startswith("--")), env=env)
    assert res.exit_code == 1
    doc = "knowledge/子 目录/病害 说明.md"
    assert res.stdout.splitlines() == [
        f"{doc}:15:9: error: path-missing: '../../assets/新 图.png' is not in the commit "
        "(assets/新 图.png is not staged: git add it)",
        f"{doc}:15:38: error: path-missing: '../old.md' is not in the commit "
        "(knowledge/old.md is not staged: git add it)",
    ]  # the untracked draft is not part of the commit; the symlinked folder's image is
    assert "1 document, 2 errors" in res.stderr  # old.md is no longer one of them
    git.Repo(repo).git.add("assets", "knowledge/old.md")
    assert check("--staged").exit_code == 0


def test_a_document_named_explicitly_is_checked_even_when_untracked(repo):
    res = check("--staged", "knowledge/draft.md")
    assert res.exit_code == 1 and "knowledge/draft.md:2:1: error: fm-missing-key" in res.stdout


def test_nothing_staged_in_the_folder_is_no_error(tmp_path, monkeypatch):
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "draft.md").write_text("---\ntitle: wip\n---\nWIP\n")
    git.Repo.init(tmp_path)
    monkeypatch.chdir(tmp_path)
    res = check("--staged")
    assert res.exit_code == 0, res.output
    assert "0 documents" in res.stderr


@pytest.mark.skipif(not (BIN / "pre-commit").exists(), reason="pre-commit not installed")
def test_the_scaffold_hook_checks_the_commit_not_untracked_files(tmp_path):
    target = tmp_path / "kb"
    assert CliRunner().invoke(main, ["init", str(target)]).exit_code == 0
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
           "PRE_COMMIT_HOME": str(tmp_path / "pc")}
    env.pop("PRE_COMMIT", None)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=target, env=env, capture_output=True, text=True,
                              timeout=300)

    run("git", "add", "-A")
    assert run("git", "commit", "-qm", "init", "--no-verify").returncode == 0
    assert run(sys.executable, "-m", "pre_commit", "install").returncode == 0
    doc = target / "knowledge" / "getting-started.md"
    (target / "assets" / "photo.png").write_bytes(b"\x89PNG")
    doc.write_text(doc.read_text() + "\n![p](../assets/photo.png)\n")
    run("git", "add", "knowledge/getting-started.md")
    res = run("git", "commit", "-qm", "an image left untracked")
    assert res.returncode == 1
    assert "knowledge/getting-started.md:41:6: error: path-missing: '../assets/photo.png' " \
           "is not in the commit" in res.stdout + res.stderr, res.stderr
    run("git", "add", "assets")
    assert run("git", "commit", "-qm", "with its image").returncode == 0
    (target / "knowledge" / "draft.md").write_text("---\ntitle: wip\n---\nWIP\n")
    (target / "notes.txt").write_text("x\n")
    run("git", "add", "notes.txt")
    res = run("git", "commit", "-qm", "unrelated, with a draft lying around")
    assert res.returncode == 0, res.stdout


def test_in_a_monorepo_the_hint_names_the_path_git_add_needs_from_where_kb_runs(
        tmp_path, monkeypatch):
    """pre-commit runs `kb check docs/kb/knowledge` at the Git root: `git add
    knowledge/new.md` (the path below the knowledge base) fails there."""
    kb = tmp_path / "docs" / "kb"
    (kb / "knowledge").mkdir(parents=True)
    (kb / "kb.toml").write_text("")
    (kb / "knowledge" / "a.md").write_text(page("A", "[new](new.md)"))
    r = git.Repo.init(tmp_path)
    r.git.add(A=True)
    r.git.commit("-qm", "start")
    (kb / "knowledge" / "new.md").write_text(page("New", "Text."))
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    said = {}
    for cwd in (tmp_path, kb, kb / "knowledge"):
        monkeypatch.chdir(cwd)
        res = check("--staged", os.path.relpath(kb / "knowledge", cwd))
        assert res.exit_code == 1
        said[cwd] = res.stdout.split("is not staged: ")[1].split(")")[0]
    assert said == {tmp_path: "git add docs/kb/knowledge/new.md", kb: "git add it",
                    kb / "knowledge": "git add new.md"}
    monkeypatch.chdir(tmp_path)
    subprocess.run(said[tmp_path].split(), check=True, cwd=tmp_path)  # it works as said
    assert check("--staged", "docs/kb/knowledge").exit_code == 0
    monkeypatch.chdir(tmp_path.parent)  # outside the work tree: git -C the knowledge root
    r.git.rm("-q", "--cached", "docs/kb/knowledge/new.md")
    res = check("--staged", str(kb / "knowledge"))
    assert f"is not staged: git -C {kb} add knowledge/new.md)" in res.stdout


def test_a_superseded_document_on_disk_but_not_staged_says_what_to_git_add(repo, monkeypatch):
    """A `supersedes:` target that was on disk but not in the Git index said only "no such
    document (give its path …)", though the file was right there: the fix is `git add`."""
    doc = repo / "knowledge" / "new.md"
    doc.write_text(page("New", "Text.").replace("verified: false",
                                                "verified: false\nsupersedes: knowledge/old.md"))
    git.Repo(repo).git.add("knowledge/new.md")
    res = check("--staged", "knowledge/new.md")
    assert res.exit_code == 1
    assert res.stdout.splitlines() == [
        "knowledge/new.md:9:1: error: supersedes-missing: supersedes 'knowledge/old.md': not "
        "in the commit (knowledge/old.md is not staged: git add it)"]
    monkeypatch.chdir(repo / "knowledge")
    res = check("--staged", "new.md")
    assert "(knowledge/old.md is not staged: git add old.md)" in res.stdout
    git.Repo(repo).git.add("knowledge/old.md")
    assert check("--staged", "new.md").exit_code == 0
