"""Drafts filed at once, again, or cut short: several agents filing one title at the same
moment, a retry from another worktree or process, a title another clone pushed first, a
filing killed midway or one Git cannot store (`kbtools.agents.draft.create_draft`)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import git
import pytest
from click.testing import CliRunner
from hostile import env

from kbtools.agents.draft import create_draft
from kbtools.agents.mcp_server import Context, tool_draft
from kbtools.cli import main
from kbtools.corpus import parse_source
from kbtools.errors import KbError
from tests.test_draft import NOW, snapshot
from tests.test_draft import repo as repo  # the fixture: a repository with a user's own state


def test_drafts_of_one_title_filed_at_once_are_all_kept(repo: git.Repo) -> None:
    """Two agents filing a report of the same title at the same moment: each gets its own
    branch (the second failed with "Reference ... does already exist" and its report was
    lost)."""
    root = Path(repo.working_tree_dir)
    start = threading.Barrier(6)

    def file(i: int) -> str:
        start.wait()
        return create_draft(root, "field-report", "水泵漏水", f"第 {i} 份报告", location="三号泵房",
                            now=NOW).branch

    with ThreadPoolExecutor(6) as pool:
        branches = list(pool.map(file, range(6)))
    assert len(set(branches)) == 6
    bodies = {parse_source((repo.commit(b).tree / repo.commit(b).stats.files.popitem()[0])
                           .data_stream.read().decode(), Path("x.md"), "x.md").body.strip()
              for b in branches}
    assert bodies == {f"第 {i} 份报告" for i in range(6)}
    assert repo.head.ref.name == "main"


def test_one_draft_retried_from_two_worktrees_at_once_is_filed_once(repo: git.Repo,
                                                                      tmp_path: Path) -> None:
    """The filing lock lived in each worktree's own git dir (`.git/worktrees/<name>/`), so a
    retry from a second worktree (`git worktree add`) ran beside the first call: both missed
    each other's draft and the report was filed twice, on `draft/...` and `draft/...-2`."""
    root = Path(repo.working_tree_dir)
    other = tmp_path / "wt"
    repo.git.worktree("add", "-q", "-b", "side", str(other))
    start = threading.Barrier(6)

    def file(i: int) -> tuple[str, bool]:
        start.wait()
        d = create_draft(root if i % 2 else other, "field-report", "Pump leak", "Seal leaks.",
                         location="Site 4", now=NOW)
        return d.branch, d.existing

    with ThreadPoolExecutor(6) as pool:
        filed = list(pool.map(file, range(6)))
    assert {b for b, _ in filed} == {"draft/2026-11-29-pump-leak"}
    assert sorted(e for _, e in filed) == [False] + [True] * 5
    assert [h.name for h in repo.heads if h.name.startswith("draft/")] == \
        ["draft/2026-11-29-pump-leak"]


def _pushed_pump_leak(repo: git.Repo, tmp_path: Path) -> tuple[Any, Path]:
    """A "Pump leak" draft filed in `repo` and pushed, with main, to a new shared remote:
    (the draft, the remote's path)."""
    shared = tmp_path / "shared.git"
    git.Repo.init(shared, bare=True, initial_branch="main")
    repo.git.push(str(shared), "main")
    first = create_draft(Path(repo.working_tree_dir), "field-report", "Pump leak", "Seal A.",
                         location="S", now=NOW)
    repo.git.push(str(shared), first.branch)
    return first, shared


def test_a_title_another_clone_filed_and_pushed_today_gets_the_next_name(repo: git.Repo,
                                                                        tmp_path: Path) -> None:
    """Two field clones filing "Pump leak" the same day: the second took the same branch
    name as the first's, already on the shared remote, so its push was refused (and the two
    files would conflict when merged)."""
    first, shared = _pushed_pump_leak(repo, tmp_path)
    other = git.Repo.clone_from(str(shared), tmp_path / "b")
    second = create_draft(Path(other.working_tree_dir), "field-report", "Pump leak", "Seal B.",
                          location="S", now=NOW)
    assert second.branch == first.branch + "-2"
    assert second.path == first.path.removesuffix(".md") + "-2.md"
    other.git.push("origin", second.branch)  # refused when it was the same name


def test_a_remote_named_with_a_slash_is_read_by_its_name(repo: git.Repo, tmp_path: Path) -> None:
    """A clone whose remote is `team/origin` took `refs/remotes/team/origin/draft/x` for a
    branch `origin/draft/x` (split at the first slash), and filed the same name again."""
    first, shared = _pushed_pump_leak(repo, tmp_path)
    other = git.Repo.clone_from(str(shared), tmp_path / "b", origin="team/origin")
    second = create_draft(Path(other.working_tree_dir), "field-report", "Pump leak", "Seal B.",
                          location="S", now=NOW)
    assert second.branch == first.branch + "-2"
    other.git.push("team/origin", second.branch)


KILLED_DRAFT = """
import os, signal, sys
from pathlib import Path
from kbtools.agents import draft, draft_git

def killed(repo, data):  # the private index holds the base tree by now
    os.kill(os.getpid(), signal.SIGKILL)

draft_git.write_blob = killed
draft.create_draft(Path(sys.argv[1]), "field-report", "Killed", "b", location="x")
"""


def test_a_killed_draft_leaves_no_private_index_behind(repo: git.Repo, tmp_path: Path) -> None:
    """`kb draft new` killed while it committed left its private index file, a copy of the
    whole tree's index, as /tmp/kb-draft-index-* for good: one per killed run."""
    root = Path(repo.working_tree_dir)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.run([sys.executable, "-c", KILLED_DRAFT, str(root)],
                          env={**env(tmp_path / "home"), "TMPDIR": str(tmp)},
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert list(tmp.iterdir()) == []  # nothing outside the repository
    private = Path(repo.git_dir) / "kb"
    left = [p.name for p in private.iterdir() if p.name != "draft.lock"]  # inside the repository
    assert len(left) == 1 and left[0].startswith(".draft-index.build-")
    d = create_draft(root, "field-report", "Next", "b", location="x", now=NOW)
    assert repo.commit(d.branch).message.startswith("Draft: Next")
    assert [p.name for p in private.iterdir()] == ["draft.lock"]  # the killed one's index: gone


def test_a_draft_git_cannot_store_is_one_line_and_files_nothing(repo: git.Repo,
                                                                monkeypatch) -> None:
    """Git refusing to store a draft (a full disk, a read-only object store, a branch named
    `draft` that leaves no room for `draft/...`) ended `kb draft new` with "unexpected
    error: GitCommandError" and a traceback, and the agent with "internal error"."""
    root = Path(repo.working_tree_dir)
    before = snapshot(repo)
    repo.git.branch("draft")  # refs/heads/draft is a file: no draft/... branch can be made
    with pytest.raises(KbError, match=r"\.git: cannot write the draft into the repository: "
                                      r".*'refs/heads/draft' exists.*; nothing was filed$"):
        create_draft(root, "field-report", "T", "b", location="x", now=NOW)
    repo.git.branch("-D", "draft")
    # an object store Git cannot add to, whoever runs it (root too): every loose-object
    # folder is a file, the objects Git has are in a pack
    repo.git.repack("-a", "-d", "-q")
    objects = Path(repo.git_dir) / "objects"
    for n in range(256):
        folder = objects / f"{n:02x}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.write_bytes(b"")
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, ["draft", "new", "--category", "field-report", "--title", "T",
                                    "--location", "x", "--from", "-"], input="b\n")
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith("kb: error: ") and res.stderr.count("\n") == 1
    assert "cannot write the draft into the repository: " in res.stderr
    assert "nothing was filed" in res.stderr and "unexpected" not in res.stderr
    assert [h.name for h in repo.heads] == ["main"] and snapshot(repo) == before
    assert [p.name for p in (Path(repo.git_dir) / "kb").iterdir()] == ["draft.lock"]


RETRY = """
import sys
from pathlib import Path
from kbtools.agents.mcp_server import Context, tool_draft
d = tool_draft(Context(root=Path(sys.argv[1])), "field-report", "泵P-101 密封泄漏",
               "已更换机械密封。\\n", author="agent", location="二号车间")
print(d["branch"], d["path"], d["commit"], d["existing"])
"""


def test_a_retried_draft_is_filed_once(repo: git.Repo, tmp_path: Path, monkeypatch) -> None:
    """An agent whose `draft_report` timed out calls it again with the same arguments: that
    filed a second draft branch (…-2) for one report, and a reviewer had two to merge. The
    same inputs on the same day now return the draft filed first, also when the two calls run
    at the same moment (the timed-out one still running) in two processes."""
    root = Path(repo.working_tree_dir)
    runs = [subprocess.Popen([sys.executable, "-c", RETRY, str(root)], env=env(tmp_path / "h"),
                             stdout=subprocess.PIPE, text=True) for _ in range(4)]
    said = [run.communicate()[0].split() for run in runs]
    assert {tuple(s[:3]) for s in said} == {tuple(said[0][:3])}  # one draft for four calls
    assert sorted(s[3] for s in said) == ["False", "True", "True", "True"]
    assert len(repo.git.branch("--list", "draft/*").split()) == 1
    again = tool_draft(Context(root=root), "field-report", "泵P-101 密封泄漏",
                       "已更换机械密封。\n", author="agent", location="二号车间")
    assert again["existing"] is True and again["branch"] == said[0][0]
    assert again["path"] == said[0][1] and "already filed" in again["next"]
    # anything else is a report of its own: another body, location or author
    for change in ({"body": "密封再次泄漏。\n"}, {"location": "三号车间"}, {"author": "tech"}):
        args = {"category": "field-report", "title": "泵P-101 密封泄漏",
                "body": "已更换机械密封。\n", "author": "agent", "location": "二号车间", **change}
        other = tool_draft(Context(root=root), **args)
        assert other["existing"] is False and other["branch"] != said[0][0]
    monkeypatch.chdir(root)  # `kb draft new` run twice: the second says so, on stderr
    args = ["draft", "new", "--category", "field-report", "--title", "Seal leak", "--location",
            "bay 2", "--from", "-", "--json"]
    first, second = (CliRunner().invoke(main, args, input="Replaced the seal.\n") for _ in "12")
    assert json.loads(first.stdout)["existing"] is False and first.stderr == ""
    assert json.loads(second.stdout) == {**json.loads(first.stdout), "existing": True}
    assert second.exit_code == 0 and "already filed" in second.stderr


def _merged_upstream_then_fetched(repo: git.Repo, tmp_path: Path) -> tuple[Any, git.Repo]:
    """Clone B made from the shared remote; then clone A's "Pump leak" draft is merged into
    the remote's main and its branch deleted; B fetches but does not pull (its main is
    behind: the branch moved since B last synced). (A's draft, clone B.)"""
    shared = tmp_path / "shared.git"
    git.Repo.init(shared, bare=True, initial_branch="main")
    repo.git.push(str(shared), "main")
    other = git.Repo.clone_from(str(shared), tmp_path / "b")
    first = create_draft(Path(repo.working_tree_dir), "field-report", "Pump leak", "Seal A.",
                         location="S", now=NOW)
    repo.git.merge("--no-edit", first.branch)
    repo.git.push(str(shared), "main")
    other.git.fetch("origin")
    assert other.head.commit != other.commit("origin/main")
    return first, other


def test_a_clone_behind_its_remote_never_files_at_a_merged_reports_path(repo: git.Repo,
                                                                       tmp_path: Path) -> None:
    """A field clone that fetched but did not pull filed "Pump leak" at the path of the
    report of that title merged into the remote's main today: same branch name, same file,
    so merging it met an add/add conflict between two reports, where resolving it could
    drop one. It takes the next name now, and merges into the remote's main cleanly."""
    first, other = _merged_upstream_then_fetched(repo, tmp_path)
    second = create_draft(Path(other.working_tree_dir), "field-report", "Pump leak", "Seal B.",
                          location="S", now=NOW)
    assert second.branch == first.branch + "-2", second
    assert second.path == first.path.removesuffix(".md") + "-2.md"
    other.git.checkout("-q", "origin/main")
    other.git.merge("--no-edit", second.branch)  # no conflict: both reports kept
    assert {first.path, second.path} <= set(other.git.ls_files("knowledge").split("\n"))
    assert "Seal A." in (Path(other.working_tree_dir) / first.path).read_text(encoding="utf-8")


def test_a_retry_from_a_clone_behind_its_remote_finds_the_merged_draft(repo: git.Repo,
                                                                      tmp_path: Path) -> None:
    """The same report filed again from a clone behind the remote whose main merged it
    (an agent's retry on another device): it was filed a second time; now it is found
    merged, and nothing is written."""
    first, other = _merged_upstream_then_fetched(repo, tmp_path)
    heads = {h.name for h in other.heads}
    again = create_draft(Path(other.working_tree_dir), "field-report", "Pump leak", "Seal A.",
                         location="S", now=NOW)
    assert again.existing and again.merged and again.path == first.path, again
    assert {h.name for h in other.heads} == heads
