"""kb recent: Git history in a repository, index document records on a device."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.agents.recent import from_doc_records
from kbtools.cli import main

NOW = datetime(2026, 6, 30, 12, 0, tzinfo=UTC)
DOCS = [
    {"doc": "knowledge/a.md", "title": "A", "verified": 1, "last_commit": "a" * 40,
     "last_author": "Ann", "last_changed": "2026-06-29T10:00:00+08:00"},
    {"doc": "knowledge/b.md", "title": "B", "verified": 0, "last_commit": "b" * 40,
     "last_author": "Bo", "last_changed": "2026-05-01T10:00:00+00:00"},
    {"doc": "knowledge/c.md", "title": "C", "verified": 0, "last_commit": "c" * 40,
     "last_author": "Cy", "last_changed": "2026-06-30T08:00:00Z"},
    {"doc": "knowledge/d.md", "title": "D", "last_changed": None},
]


def test_from_doc_records_newest_first():
    out = from_doc_records(DOCS, now=NOW)
    assert [c["doc"] for c in out] == ["knowledge/c.md", "knowledge/a.md", "knowledge/b.md"]
    first = out[0]
    assert first["author"] == "Cy" and first["source"] == "index"
    assert first["summary"] == "last changed in commit cccccccccc"
    assert out[1]["verified"] is True and out[0]["verified"] is False


def test_from_doc_records_days_and_n():
    assert [c["doc"] for c in from_doc_records(DOCS, days=7, now=NOW)] == [
        "knowledge/c.md", "knowledge/a.md"]
    assert [c["doc"] for c in from_doc_records(DOCS, n=1, now=NOW)] == ["knowledge/c.md"]


@pytest.mark.parametrize(("zone", "today"), [
    ("UTC", ["knowledge/c.md"]),  # 08:00Z on the 30th; a.md is 02:00Z on the 29th
    ("Asia/Shanghai", ["knowledge/c.md"]),  # now 20:00 local: since 16:00Z on the 29th
    ("Pacific/Kiritimati", [])])  # now 02:00 on July 1st there: nothing changed today
def test_days_0_is_what_changed_today_not_nothing(monkeypatch, zone, today):
    """An agent asking `recent` for `days: 0` asks what changed today: since midnight of
    the machine's local day (it was every change at or after this very instant: none)."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        assert [c["doc"] for c in from_doc_records(DOCS, days=0, now=NOW)] == today
    finally:
        monkeypatch.undo()
        time.tzset()


def git(cwd: Path, *args: str, date: str | None = None) -> str:
    env = dict(os.environ)
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env=env).stdout


DOC = """---
title: {title}
category: engineering
source: test
author: someone
timestamp: "2026-01-01T00:00:00+00:00"
verified: false
---

# {title}

{body}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "kb.toml").write_text("", encoding="utf-8")
    git(tmp_path, "init", "-q", "-b", "main")
    old = (tmp_path / "knowledge" / "old.md")
    old.write_text(DOC.format(title="Old", body="first"), encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "add old", date="2020-01-01T00:00:00+00:00")
    new = tmp_path / "knowledge" / "new.md"
    new.write_text(DOC.format(title="New", body="hello"), encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "add new")
    old.write_text(DOC.format(title="Old", body="second"), encoding="utf-8")
    git(tmp_path, "commit", "-qam", "edit old")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cli_recent_from_git(repo):
    res = CliRunner().invoke(main, ["recent", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["source"] == "git"
    assert [(c["doc"], c["change"]) for c in data["changes"]] == [
        ("knowledge/old.md", "modified"), ("knowledge/new.md", "added")]
    assert data["changes"][0]["summary"] == "body"
    assert data["changes"][0]["author"] == os.environ["GIT_AUTHOR_NAME"]
    res = CliRunner().invoke(main, ["recent", "-n", "1"])
    assert res.exit_code == 0
    assert "modified knowledge/old.md  Old" in res.output and "new.md" not in res.output


def test_cli_recent_days(repo):
    res = CliRunner().invoke(main, ["recent", "--days", "3650", "--json"])
    assert len(json.loads(res.output)["changes"]) == 2

    res = CliRunner().invoke(main, ["recent", "--days", "0", "--json"])  # today: both
    assert [c["doc"] for c in json.loads(res.output)["changes"]] == [
        "knowledge/old.md", "knowledge/new.md"], res.output


@pytest.mark.parametrize("args,code,needle", [
    (["--days", "-1"], 2, "--days must be 0 or more"),
    (["-n", "0"], 2, "-n must be 1 or more"),
])
def test_cli_recent_bad_options(repo, args, code, needle):
    res = CliRunner().invoke(main, ["recent", *args])
    assert res.exit_code == code and needle in res.output


def test_cli_recent_without_repo_or_index(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["recent"])
    assert res.exit_code == 1 and "no index here" in res.output
    res = CliRunner().invoke(main, ["recent", "--index", str(tmp_path / "nope")])
    assert res.exit_code == 1 and "no index here" in res.output


def test_recent_days_go_by_author_date_in_git_as_on_a_device(repo):
    """A commit made today of a change authored long ago (`git commit --date`, an imported
    history) is not a change of the last week: `--days` reads the author date of a
    document's newest change, the date `kb recent` shows and a device's index keeps
    (`last_changed`), so the repository and a device list the same documents."""
    old = repo / "knowledge" / "old.md"
    old.write_text(DOC.format(title="Old", body="third"), encoding="utf-8")
    git(repo, "commit", "-qam", "import the 2019 revision", "--date=2019-06-01T10:00:00+08:00")
    res = CliRunner().invoke(main, ["recent", "--days", "7", "--json"])
    assert res.exit_code == 0, res.output
    changes = json.loads(res.output)["changes"]
    assert [(c["doc"], c["message"]) for c in changes] == [("knowledge/new.md", "add new")]
    res = CliRunner().invoke(main, ["recent", "--json"])  # without --days it is the newest
    assert json.loads(res.output)["changes"][0]["message"] == "import the 2019 revision"


def test_recent_shows_where_it_read_without_the_devices_layout(tmp_path, monkeypatch):
    """`recent`'s ``root`` was the server's absolute path (``/home/ann/…/dist``), which told
    an agent the device's file layout: it is now relative to the knowledge repository when
    inside it ("." for its Git history, "dist" for its build), else the release directory's
    own name, in `kb recent --json` and the MCP tool alike."""
    from kbtools.agents.mcp_server import Context, tool_recent
    from kbtools.agents.recent import recent
    from tests.hostile import built_repo_index

    dist = built_repo_index(tmp_path / "repo", {}, model="test-hash")
    repo = dist.parent
    device = tmp_path / "device" / "releases" / "kb-r7"
    shutil.copytree(dist, device)
    monkeypatch.chdir(repo)
    got = {"git": recent(repo), "dist": recent(repo, index=dist),
           "mcp-git": tool_recent(Context(root=repo)),
           "mcp-dist": tool_recent(Context(index=dist, root=repo)),
           "mcp-device": tool_recent(Context(index=device, root=tmp_path)),
           "cli": json.loads(CliRunner().invoke(main, ["recent", "--json", "--index",
                                                       str(dist)]).output)}
    assert {k: v["root"] for k, v in got.items()} == {
        "git": ".", "dist": "dist", "mcp-git": ".", "mcp-dist": "dist",
        "mcp-device": "kb-r7", "cli": "dist"}
    assert [v["source"] for v in got.values()] == ["git", "index", "git", "index", "index",
                                                    "index"]
    assert all(str(tmp_path) not in json.dumps(v) for v in got.values())
    assert got["mcp-device"]["changes"] and got["dist"]["changes"]
