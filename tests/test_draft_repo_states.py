"""Drafts filed in a repository that is in the middle of something (a rebase, a merge, a
cherry-pick, a detached HEAD on no branch): a draft is based on HEAD, so one filed there
carried a commit the operation was still rewriting, or one no branch holds, into main when
it was merged. Refused in one line, nothing filed; a plain detached HEAD on a branch's
commit still files a clean draft."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from mcpfixtures import error_text, session

from kbtools.agents.draft import create_draft
from kbtools.errors import UsageError

REPORT = {"category": "field-report", "title": "Pump leak", "body": "Seal leaked twice.",
          "author": "Ann Lee", "location": "Plant 2"}


def git(cwd: Path, *args: str, check: bool = True) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_EDITOR": "true"}
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True,
                          text=True, env=env).stdout


def commit(root: Path, name: str, text: str, message: str) -> None:
    (root / "knowledge" / name).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def note_repo(tmp_path: Path) -> Path:
    """A knowledge repository on main with one committed note."""
    root = tmp_path / "kb"
    (root / "knowledge").mkdir(parents=True)
    (root / "kb.toml").write_text("", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    commit(root, "note.md", "# Note\n\nfirst\n", "note")
    return root


@pytest.fixture
def repo(tmp_path) -> Path:
    """main with one note; branch `side` with two commits that conflict with main's last."""
    root = note_repo(tmp_path)
    git(root, "checkout", "-q", "-b", "side")
    commit(root, "side.md", "# Side\n\nside one\n", "side one")
    commit(root, "note.md", "# Note\n\nside two\n", "side two")
    git(root, "checkout", "-q", "main")
    commit(root, "note.md", "# Note\n\nmain two\n", "main two")
    return root


def drafts(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/draft").split()


def file_draft(root: Path) -> str:
    """The one-line refusal of filing REPORT in `root` (asserting nothing was filed)."""
    with pytest.raises(UsageError) as refused:
        create_draft(root, **REPORT)
    assert drafts(root) == []
    message = refused.value.message
    assert "\n" not in message
    return message


def test_a_draft_during_a_rebase_is_refused(repo):
    """Stopped mid-rebase, HEAD is a rewritten `side one` that no branch holds: the draft
    was filed on it, and merging it brought half a rebase into main."""
    git(repo, "checkout", "-q", "side")
    git(repo, "rebase", "-q", "main", check=False)  # `side two` conflicts: the rebase stops
    message = file_draft(repo)
    assert "rebase" in message and "git rebase --continue" in message


def test_a_draft_during_a_merge_or_cherry_pick_is_refused(repo):
    git(repo, "merge", "-q", "side", check=False)  # conflicts: MERGE_HEAD is left
    assert "merge" in file_draft(repo)
    git(repo, "merge", "--abort")
    git(repo, "cherry-pick", "side", check=False)  # `side two` conflicts with main's
    assert "cherry-pick" in file_draft(repo)


def test_a_detached_head_on_no_branch_is_refused_on_a_branch_is_filed(repo):
    git(repo, "checkout", "-q", "--detach", "main")
    commit(repo, "loose.md", "# Loose\n\nexperiment\n", "experiment")  # on no branch
    assert "detached" in file_draft(repo)
    git(repo, "checkout", "-q", "--detach", "side~1")  # a commit `side` holds: fine
    filed = create_draft(repo, **REPORT)
    assert git(repo, "rev-parse", f"{filed.branch}~1").strip() == \
        git(repo, "rev-parse", "side~1").strip()


def test_the_mcp_tool_refuses_it_in_one_line(repo):
    git(repo, "checkout", "-q", "side")
    git(repo, "rebase", "-q", "main", check=False)

    async def scenario(c):
        return await c.call_tool("draft_report", REPORT)

    text = error_text(session(repo, "--allow-write", scenario=scenario))
    assert "rebase" in text and "\n" not in text
    assert drafts(repo) == []
