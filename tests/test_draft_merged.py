"""A report filed again after its first draft was merged (an agent retrying a call that
timed out while a reviewer merged, and deleted, the draft branch): the retry found no draft
branch and filed the same report again as `…-2`, a duplicate to review and merge. It now
finds the draft in the history of what it would be based on and files nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcpfixtures import data, session

from kbtools.agents.draft import create_draft
from tests.test_draft_repo_states import drafts, git, note_repo

EN = {"category": "field-report", "title": "Pump leak", "body": "Seal leaked twice.",
      "author": "Ann Lee", "location": "Plant 2"}
ZH = {"category": "field-report", "title": "三号温室卷帘机异响", "body": "卷帘机运行时有异响。",
      "author": "王工", "location": "三号温室"}


@pytest.fixture
def repo(tmp_path) -> Path:
    return note_repo(tmp_path)


@pytest.mark.parametrize("report", [EN, ZH], ids=["en", "zh"])
@pytest.mark.parametrize("how", [["merge", "-q", "--no-ff", "--no-edit"], ["merge", "-q"],
                                 ["merge", "-q", "--squash"]], ids=["no-ff", "ff", "squash"])
def test_a_report_merged_already_is_not_filed_again(repo, report, how):
    first = create_draft(repo, **report)
    git(repo, *how, first.branch)
    if "--squash" in how:  # git's squash message quotes the draft's, trailer and all
        git(repo, "commit", "-q", "--no-edit")
    git(repo, "branch", "-q", "-D", first.branch)
    again = create_draft(repo, **report)
    assert (again.existing, again.merged, again.path) == (True, True, first.path)
    assert drafts(repo) == []  # no `…-2` branch
    other = create_draft(repo, **{**report, "body": report["body"] + " Again today."})
    assert (other.existing, other.merged) == (False, False)  # another report is filed
    assert other.path != first.path


def test_a_merged_draft_that_was_removed_since_is_filed_again(repo):
    first = create_draft(repo, **EN)
    git(repo, "merge", "-q", first.branch)
    git(repo, "branch", "-q", "-D", first.branch)
    git(repo, "rm", "-q", first.path)
    git(repo, "commit", "-q", "-m", "withdrawn")
    again = create_draft(repo, **EN)
    assert not again.existing and drafts(repo) == [again.branch]


def test_the_mcp_tool_says_it_was_merged(repo):
    async def scenario(c):
        first = data(await c.call_tool("draft_report", ZH))
        git(repo, "merge", "-q", "--no-ff", "--no-edit", first["branch"])  # a reviewer
        git(repo, "branch", "-q", "-D", first["branch"])
        return first, data(await c.call_tool("draft_report", ZH))

    first, again = session(repo, "--allow-write", scenario=scenario)
    assert (again["existing"], again["merged"], again["path"]) == (True, True, first["path"])
    assert first["merged"] is False
    assert "merged since" in again["next"]
    assert drafts(repo) == []


def test_a_report_pushed_and_deleted_here_is_not_filed_again(repo, tmp_path):
    """The draft branch pushed for review and deleted here (`git push -u origin …`, then
    `git branch -d`): the retry saw `origin/draft/…` as a taken name and filed `…-2`."""
    git(tmp_path, "init", "-q", "--bare", "shared.git")
    git(repo, "remote", "add", "team/origin", str(tmp_path / "shared.git"))
    first = create_draft(repo, **ZH)
    git(repo, "push", "-q", "team/origin", first.branch)
    git(repo, "branch", "-q", "-D", first.branch)
    again = create_draft(repo, **ZH)
    assert (again.existing, again.merged) == (True, False)
    assert (again.branch, again.path, again.commit) == (first.branch, first.path, first.commit)
    assert drafts(repo) == []
