"""kb watch and Git: HEAD moving (a commit, a checkout) is noticed from the files git always
writes, without a reflog and in a linked worktree, and said in an author's words with the
documents it changed, never as git's own files (`kbtools.build.watch_git`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from kbtools.build.watch_git import HeadState, describe, head_state
from kbtools.cli import main
from tests.kbfixtures import copy_example
from tests.test_release_helpers import git
from tests.test_watch_history import append_text, watching

TEST_HASH = 'model = "test-hash"\nlanguages = { en = "test-hash" }'
SCAB = "knowledge/crops/wheat-scab.md"
ADR = "knowledge/engineering/adr-0001-sqlite-on-devices.md"
DOCS = [SCAB, "knowledge/crops/sprayer-calibration.md", "knowledge/crops/field-survey-methods.md",
        "knowledge/crops/pesticide-dilution-and-phi.md",
        "knowledge/crops/pesticide-operator-safety.md", ADR]


def _repo(path: Path) -> Path:
    repo = copy_example(path, DOCS)
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    git(repo, "commit", "-qam", "test-hash")
    git(repo, "branch", "-M", "main")
    return repo


def _short(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", "--short=7", rev).strip()


def test_commits_and_checkouts_are_seen_without_a_reflog_and_said_in_words(tmp_path):
    repo = _repo(tmp_path / "repo")
    git(repo, "config", "core.logAllRefUpdates", "false")  # git writes no logs/HEAD
    shutil.rmtree(repo / ".git/logs")  # (but would append to one there is)
    updates, stop, thread = watching(repo, tmp_path / "watched")
    try:
        assert updates.get(timeout=180).error is None
        append_text(repo / SCAB, "\n扬花期前三天开始巡查。\n")
        git(repo, "commit", "-qam", "Scout three days before flowering")
        while (u := updates.get(timeout=60)).git is None:
            assert u.changed == (SCAB,)  # the save, if seen before the commit
        assert u.error is None
        assert u.git == f"commit {_short(repo)} on main: Scout three days before flowering"
        assert u.changed == (SCAB,)
        assert not (repo / ".git/logs/HEAD").exists()

        git(repo, "branch", "other")  # HEAD stays: no update; the next one is the checkout
        git(repo, "checkout", "-q", "--detach")
        u = updates.get(timeout=60)
        assert u.git == f"checkout of {_short(repo)} (detached HEAD)" and u.changed == ()

        git(repo, "checkout", "-q", "-b", "team/draft", "HEAD~1")
        u = updates.get(timeout=60)
        assert u.git == f"checkout of branch team/draft ({_short(repo)})"
        assert u.changed == (SCAB,)  # it differs from the commit checked out before
    finally:
        stop.set()
        thread.join(timeout=30)


def test_a_commit_in_a_linked_worktree_names_no_git_folder(tmp_path):
    main = _repo(tmp_path / "repo")
    tree = tmp_path / "tree"
    git(main, "worktree", "add", "-q", str(tree), "-b", "wt")
    updates, stop, thread = watching(tree, tmp_path / "watched")
    try:
        assert updates.get(timeout=180).error is None
        git(main, "commit", "-q", "--allow-empty", "-m", "on main only")  # not this HEAD
        append_text(tree / ADR, "\nOne more line.\n")
        git(tree, "commit", "-qam", "An edit in the worktree")
        while (u := updates.get(timeout=60)).git is None:
            assert u.changed == (ADR,)
        assert u.git == f"commit {_short(tree)} on wt: An edit in the worktree"
        assert u.changed == (ADR,)
    finally:
        stop.set()
        thread.join(timeout=30)


def test_describe_a_reset_several_commits_and_a_first_commit(tmp_path):
    repo = _repo(tmp_path / "repo")
    first = head_state(repo)
    assert first is not None and first.branch == "main"
    append_text(repo / SCAB, "\nA.\n")
    git(repo, "commit", "-qam", "one")
    append_text(repo / ADR, "\nB.\n")
    git(repo, "commit", "-qam", "two")
    after = head_state(repo)
    assert after is not None
    assert describe(repo, first, after) == (
        f"2 commits on main, up to {_short(repo)}: two", [SCAB, ADR])
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    append_text(repo / ADR, "\nC.\n")
    git(repo, "commit", "-qam", "three")
    reset = head_state(repo)
    assert reset is not None
    assert describe(repo, after, reset) == (
        f"main moved to {_short(repo)} (was {after.commit[:7]}): three", [SCAB, ADR])
    words, files = describe(repo, HeadState("main", ""), reset)
    assert words.startswith(f"first commit {_short(repo)} on main") and SCAB in files


def test_a_watcher_started_outside_git_notices_git_init_and_the_commits_after(tmp_path):
    """The author starts `kb watch` in a folder, then makes it a repository and commits:
    the commit is built and said (it was missed: no HEAD was watched), and so is the next
    one, which changes no file the watcher sees after the save it follows."""
    repo = _repo(tmp_path / "repo")
    shutil.rmtree(repo / ".git")
    out = tmp_path / "watched"
    updates, stop, thread = watching(repo, out)
    try:
        first = updates.get(timeout=180)
        assert first.error is None and first.git is None
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "kb.toml", "assets", "schemas", "knowledge")
        git(repo, "commit", "-qm", "first")
        u = updates.get(timeout=60)
        assert u.error is None
        assert u.git == f"first commit {_short(repo)} on main: first"
        append_text(repo / SCAB, "\n扬花期前三天开始巡查。\n")
        assert updates.get(timeout=60).changed == (SCAB,)  # the save, built as dirty
        git(repo, "commit", "-qam", "Scout three days before flowering")
        u = updates.get(timeout=60)
        assert u.git == f"commit {_short(repo)} on main: Scout three days before flowering"
        source = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["source"]
        assert source["commit"] == git(repo, "rev-parse", "HEAD").strip()
        assert source["dirty"] is False
    finally:
        stop.set()
        thread.join(timeout=30)


def test_a_commit_of_code_alone_is_said_as_no_document_changed(tmp_path, monkeypatch):
    """A commit that changes no file the index holds (a script, the README) rebuilds with
    the new source commit; `kb build` and `kb watch` say "no document changed" instead of
    "0 embedded, 0 reused"; an edit is still counted."""
    repo = _repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    out = tmp_path / "dist"
    assert CliRunner().invoke(main, ["build", "--quiet", "--out", str(out)]).exit_code == 0
    (repo / "build.sh").write_text("echo hi\n", encoding="utf-8")
    git(repo, "add", "build.sh")
    git(repo, "commit", "-qm", "A script")
    built = CliRunner().invoke(main, ["build", "--quiet", "--out", str(out)])
    assert built.exit_code == 0 and "chunks (no document changed)," in built.output
    updates, stop, thread = watching(repo, out)
    try:
        assert updates.get(timeout=180).stats.unchanged
        (repo / "build.sh").write_text("echo hello\n", encoding="utf-8")
        git(repo, "commit", "-qam", "The script again")
        u = updates.get(timeout=60)
        assert u.git == f"commit {_short(repo)} on main: The script again" and u.changed == ()
        assert u.stats.unchanged
        append_text(repo / SCAB, "\n扬花期前三天开始巡查。\n")
        u = updates.get(timeout=60)
        assert u.changed == (SCAB,) and not u.stats.unchanged and u.stats.embedded > 0
    finally:
        stop.set()
        thread.join(timeout=30)
