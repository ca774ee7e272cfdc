"""`kb review pending` lists drafts waiting on their own branches (`kb draft new`, an agent's
report through `kb mcp`), local or fetched from a remote, not only the working tree."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

from click.testing import CliRunner

from kbtools.agents.draft import create_draft
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.review.drafts import remote_branch
from kbtools.review.pending import pending

NOW = datetime(2026, 11, 29, 22, 5, tzinfo=timezone(timedelta(hours=8)))


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


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
