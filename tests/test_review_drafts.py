"""`kb review pending` lists drafts waiting on their own branches (`kb draft new`, an agent's
report through `kb mcp`), local or fetched from a remote, not only the working tree."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from click.testing import CliRunner
from git import Repo as git_repo

from kbtools.agents.draft import Draft, create_draft
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.gitobjects import diff_trees
from kbtools.review.drafts import remote_branch
from kbtools.review.pending import pending
from tests.kbfixtures import logging_git

NOW = datetime(2026, 11, 29, 22, 5, tzinfo=timezone(timedelta(hours=8)))


def git(cwd: Path, *args: str, input: str | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True, input=input).stdout


def make_repo(root: Path) -> Path:
    (root / "knowledge" / "field_reports").mkdir(parents=True)
    (root / "kb.toml").write_text('[paths]\ndrafts = "knowledge/field_reports"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Reviewer")
    git(root, "config", "user.email", "reviewer@ex.org")
    git(root, "commit", "-q", "--allow-empty", "-m", "init")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "settings")
    return root


def test_pending_lists_drafts_on_local_and_remote_branches(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GIT_AUTHOR_DATE", NOW.isoformat())  # the drafts' commits: NOW
    field = make_repo(tmp_path / "field")  # the agent's clone, pushing to a shared remote
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(field, "push", "-q", str(bare), "main")
    local = create_draft(field, "field-report", "Pump leak", "Seal leaks after 200 h.",
                         author="agent pump-bot", location="Site 4", now=NOW)
    reviewer = tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", "-b", "main", str(bare), str(reviewer))  # the bare HEAD: master
    remote = create_draft(field, "field-report", "水泵漏水", "密封处漏水。",
                          author="巡检机器人", location="三号泵房", now=NOW)
    git(field, "checkout", "-q", remote.branch)  # an edit on the draft's branch after it
    (field / remote.path).write_text((field / remote.path).read_text() + "补充。\n")
    git(field, "commit", "-q", "-am", "补充")
    git(field, "checkout", "-q", "main")
    git(field, "push", "-q", str(bare), f"{local.branch}", f"{remote.branch}")
    git(reviewer, "fetch", "-q")
    git(reviewer, "branch", "-q", local.branch, f"origin/{local.branch}")  # checked out too
    rows = [r for r in pending(load_config(reviewer), now=NOW + timedelta(days=2))
            if r["reason"] == "draft"]
    assert [(r["doc"], r["branch"], r["author"]) for r in rows] == [  # oldest, then by path
        (remote.path, f"origin/{remote.branch}", "巡检机器人"),
        (local.path, local.branch, "agent pump-bot")]  # its remote twin: the same draft
    assert all(r["age_days"] == 2.0 and r["source"] == "field report" for r in rows)
    assert [r["commit"] for r in rows] == [remote.commit, local.commit]  # the oldest change
    monkeypatch.chdir(reviewer)
    result = CliRunner().invoke(main, ["review", "pending"])
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if remote.path in ln)
    assert line.split()[1] == "draft" and "(巡检机器人, committed by " in line
    assert line.endswith(f", on branch origin/{remote.branch})")
    result = CliRunner().invoke(main, ["review", "pending", "--json"])
    drafts = [r for r in json.loads(result.output) if r["reason"] == "draft"]
    assert [r["branch"] for r in drafts] == [f"origin/{remote.branch}", local.branch]
    # merged into main: no longer waiting
    git(reviewer, "merge", "-q", "--no-edit", local.branch)
    rows = [r for r in pending(load_config(reviewer), now=NOW) if r["reason"] == "draft"]
    assert [r["doc"] for r in rows] == [remote.path]
    # squash-merged: HEAD holds the text, so it waits no more either
    git(reviewer, "merge", "-q", "--squash", f"origin/{remote.branch}")
    git(reviewer, "commit", "-q", "-m", "squash")
    assert not [r for r in pending(load_config(reviewer), now=NOW) if r["reason"] == "draft"]


def test_drafts_of_a_remote_whose_name_holds_a_slash_are_pending(tmp_path: Path) -> None:
    field = make_repo(tmp_path / "field")
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(field, "push", "-q", str(bare), "main")
    filed = create_draft(field, "field-report", "Pump leak", "Seal leaks after 200 h.",
                         location="Site 4", now=NOW)
    git(field, "push", "-q", str(bare), filed.branch)
    reviewer = tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", "-o", "team/origin", str(bare), str(reviewer))
    rows = [r for r in pending(load_config(reviewer), now=NOW) if r["reason"] == "draft"]
    assert [(r["doc"], r["branch"]) for r in rows] == [
        (filed.path, f"team/origin/{filed.branch}")]


def test_a_remote_branch_is_read_with_the_remotes_names() -> None:
    remotes = ["team", "team/origin", "origin"]
    assert remote_branch("refs/remotes/team/origin/draft/x", remotes) == "draft/x"
    assert remote_branch("refs/remotes/team/draft/x", remotes) == "draft/x"
    assert remote_branch("refs/remotes/origin/main", remotes) == "main"
    assert remote_branch("refs/remotes/mirror/draft/x", remotes) == "draft/x"  # its own refspec


def report(root: Path, title: str, body: str, **kw: str) -> Draft:
    return create_draft(root, "field-report", title, body, location="Site 4", now=NOW, **kw)


def drafts_of(root: Path) -> list[tuple[str, str, str | None]]:
    return sorted((r["branch"], r["doc"], r["commit"]) for r in pending(load_config(root), now=NOW)
                  if r["reason"] == "draft")


def orphan_branch(root: Path, branch: str, rel: str, text: str) -> str:
    """A branch of one root commit holding only `rel` (history unrelated to main)."""
    blob = git(root, "hash-object", "-w", "--stdin", input=text).strip()
    env = {**os.environ, "GIT_INDEX_FILE": str(root / ".git" / "orphan-index")}
    subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}"],
                   cwd=root, check=True, env=env)
    tree = subprocess.run(["git", "write-tree"], cwd=root, check=True, env=env,
                          capture_output=True, text=True).stdout.strip()
    commit = git(root, "commit-tree", tree, "-m", "orphan report").strip()
    git(root, "update-ref", f"refs/heads/{branch}", commit)
    return commit


def test_drafts_of_every_shape_are_dated_by_their_oldest_change(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "kb")
    one = report(root, "Pump leak", "Seal leaks.")
    git(root, "commit", "-q", "--allow-empty", "-m", "main moves on")  # one's base: not HEAD
    two = report(root, "Fan noise", "Fan rattles.")
    git(root, "checkout", "-q", two.branch)  # a second commit on the draft's branch
    (root / two.path).write_text((root / two.path).read_text() + "Louder at night.\n")
    git(root, "commit", "-q", "-am", "more")
    git(root, "checkout", "-q", "main")
    # a draft filed on top of another draft's branch: its base is main, two commits away
    stacked = report(root, "Belt wear", "Belt frays.", base=two.branch)
    rel = "knowledge/field_reports/orphan.md"
    orphan = orphan_branch(root, "draft/orphan", rel,
                           "---\ntitle: Orphan\nverified: false\n---\n\nText.\n")
    merged = report(root, "Valve", "Valve sticks.")
    git(root, "merge", "-q", "--no-edit", "-s", "ours", merged.branch)  # HEAD holds its tip
    assert drafts_of(root) == sorted([
        (one.branch, one.path, one.commit),
        (two.branch, two.path, two.commit),  # the oldest commit touching it
        (stacked.branch, two.path, two.commit), (stacked.branch, stacked.path, stacked.commit),
        ("draft/orphan", rel, orphan)])
    git(root, "cherry-pick", one.commit)  # HEAD holds one's very text
    assert one.branch not in {branch for branch, _, _ in drafts_of(root)}


def test_pending_asks_git_the_same_number_of_times_for_any_number_of_drafts(
        tmp_path: Path, monkeypatch) -> None:
    shim, log = logging_git(tmp_path)
    root = make_repo(tmp_path / "kb")
    counts = []
    for n in (2, 8):
        while len(git(root, "branch", "--list", "draft/*").split()) < n:
            report(root, f"Report {uuid.uuid4().hex}", "Text.")
        with monkeypatch.context() as m:
            m.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
            log.write_text("")
            assert len(drafts_of(root)) == n
            counts.append(len(log.read_text().splitlines()))
    assert counts[0] == counts[1], counts


def test_diff_trees_reads_many_pairs_and_any_file_name_in_one_process(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "kb")
    base = git(root, "rev-parse", "HEAD").strip()
    odd = [":colon.md", "a b.md", "引号\".md", "new\nline.md", "unchanged.md"]
    for name in odd:
        (root / name).write_text(name)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "odd names")
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "a b.md").write_text("changed")
    git(root, "commit", "-q", "-am", "one change")
    second = git(root, "rev-parse", "HEAD").strip()
    with git_repo(root) as repo:
        found = diff_trees(repo, [(second, base), (first, None), (base, base)],
                           "--diff-filter=AM", "--", "*.md")
    assert found == {second: sorted(odd), first: sorted(odd), base: []}


def test_approve_and_diff_of_a_listed_draft_name_its_branch(tmp_path: Path, monkeypatch) -> None:
    """`kb review pending` lists a draft by its path; `kb review approve`/`diff` of that path
    on the reviewer's branch said only "no such document" (`approve`: "neither committed
    nor on disk"), `kb history` "no commits touch this document (untracked or
    misspelt?)". They now name the draft's branch as `git switch` takes it, a fetched
    one's (remote `team/origin`) too, and that command works."""
    field = make_repo(tmp_path / "field")
    bare = tmp_path / "shared.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(field, "push", "-q", str(bare), "main")
    filed = report(field, "Pump leak", "Seal leaks after 200 h.")
    git(field, "push", "-q", str(bare), filed.branch)
    reviewer = tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", "-b", "main", "-o", "team/origin", str(bare), str(reviewer))
    git(reviewer, "config", "user.email", "reviewer@ex.org")
    git(reviewer, "config", "user.name", "Reviewer")
    mine = report(reviewer, "水泵漏水", "密封处漏水。")
    monkeypatch.chdir(reviewer)
    for draft in (filed, mine):
        for command in (["review", "approve", draft.path], ["review", "diff", draft.path],
                        ["history", draft.path]):
            result = CliRunner().invoke(main, command)
            assert result.exit_code != 0 and result.output.count("\n") == 1, result.output
            assert result.output.rstrip().endswith(
                f"; it is a draft on branch {draft.branch}: review it there (git switch "
                f"{draft.branch}) or after its pull request is merged"), result.output
    result = CliRunner().invoke(main, ["review", "diff", "knowledge/nope.md"])
    assert result.output == "kb: error: knowledge/nope.md: no such document\n", result.output
    git(reviewer, "switch", "-q", filed.branch)  # as said: a tracking branch of the fetched one
    assert (reviewer / filed.path).is_file()


def test_a_draft_saved_with_windows_line_ends_is_listed_with_its_title(tmp_path: Path) -> None:
    """A draft saved on Windows (CRLF, a BOM) was listed without its title or author: its
    front matter was not read from the blob as `kb check` reads a file (`corpus.decode`)."""
    root = make_repo(tmp_path / "kb")
    orphan_branch(root, "draft/windows", "knowledge/field_reports/windows.md",
                  "\ufeff---\r\ntitle: 泵房漏水\r\nauthor: 巡检员\r\nverified: false\r\n---\r\n"
                  "\r\n密封处漏水。\r\n")
    [entry] = [r for r in pending(load_config(root), now=NOW) if r["reason"] == "draft"]
    assert (entry["title"], entry["author"]) == ("泵房漏水", "巡检员")
