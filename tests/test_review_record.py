"""A verification made by hand (the three front-matter lines edited in an editor, committed
with `git commit`) gets its `Kb-Reviewed-Content:` record from the commit-msg hook `kb
review record` (.pre-commit-hooks.yaml `kb-review-record`): a rebase that keeps the text
keeps the approval, one onto an edit is refused naming the document, its line and `kb
review approve`. Real git, a real commit-msg hook, several identities (tests/reviewkb.py)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from reviewkb import ALICE, DOC, KB, RITA, as_identity, doc_text, git, written

from kbtools.cli import main
from kbtools.config import load_config
from kbtools.provenance import state_from_text
from kbtools.review.approve import approve
from kbtools.review.verification import content_digest, recorded_digests

OTHER = "knowledge/crops/other.md"
EDITED = "# Rust\n\nSpray at first sign, 3× the label dose (未经审核的剂量).\n"


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    return KB(tmp_path / "kb")


def soon(minutes: int) -> str:
    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat(timespec="seconds")


def with_hook(kb: KB) -> None:
    """The commit-msg hook as `pre-commit install --hook-type commit-msg` runs it: `kb
    review record` given the message file."""
    hook = kb.root / ".git" / "hooks" / "commit-msg"
    hook.write_text("#!/bin/sh\nexec " + shlex.join([sys.executable, "-m", "kbtools"])
                    + ' review record "$1"\n', "utf-8")
    hook.chmod(0o755)


def verify_by_hand(kb: KB, who: str = "rita@ex.org") -> str:
    """Rita edits the three lines in her editor and commits them with `git commit`."""
    at = datetime.now(UTC).isoformat(timespec="seconds")
    path = kb.root / DOC
    path.write_text(path.read_text("utf-8").replace(
        "verified: false", f'verified: true\nverified_by: rita@ex.org\nverified_at: "{at}"'),
        "utf-8")
    git(kb.root, "add", DOC, who=who)
    git(kb.root, "commit", "-q", "-m", "Verify rust", "-m",
        "Reviewed-by: Rita Reviewer <rita@ex.org>", who=who, date=at)
    return kb.repo.head.commit.hexsha


def review_check(kb: KB, monkeypatch: pytest.MonkeyPatch, base: str) -> tuple[int, str]:
    monkeypatch.chdir(kb.root)
    res = CliRunner().invoke(main, ["review", "check", "--base", base])
    return res.exit_code, res.stdout


def digest_of(kb: KB) -> str:
    text = (kb.root / DOC).read_text("utf-8")
    return content_digest(state_from_text(text, DOC))


def test_a_hand_verification_is_recorded_by_the_commit_msg_hook(kb: KB) -> None:
    written(kb)
    with_hook(kb)
    verify_by_hand(kb)
    message = kb.repo.head.commit.message
    assert recorded_digests(message) == {digest_of(kb)}
    # a trailer of the message's last paragraph, beside the reviewer's own
    assert message.rstrip("\n").split("\n")[-2:] == [
        "Reviewed-by: Rita Reviewer <rita@ex.org>", f"Kb-Reviewed-Content: {digest_of(kb)}"]
    # amended (the hook runs again): still one record
    git(kb.root, "commit", "-q", "--amend", "--no-edit", who="rita@ex.org")
    assert kb.repo.head.commit.message.count("Kb-Reviewed-Content") == 1
    # a commit that sets no verification gets none; an edit of a verified document neither
    kb.put(doc_text(title="Other"), "Add other", ALICE, soon(1), rel=OTHER)
    path = kb.root / DOC
    path.write_text(path.read_text("utf-8").replace("first sign.", "first sign!"), "utf-8")
    git(kb.root, "add", DOC)
    git(kb.root, "commit", "-q", "-m", "Edit", date=soon(2))
    assert "Kb-Reviewed-Content" not in kb.repo.head.commit.message


def test_kb_review_record_prints_the_staged_records(kb: KB, monkeypatch) -> None:
    written(kb)
    path = kb.root / DOC
    path.write_text(path.read_text("utf-8").replace(
        "verified: false", 'verified: true\nverified_by: rita@ex.org\n'
        'verified_at: "2026-02-02T10:00:00+08:00"'), "utf-8")
    monkeypatch.chdir(kb.root)
    assert CliRunner().invoke(main, ["review", "record"]).stdout == ""  # not staged yet
    git(kb.root, "add", DOC)
    res = CliRunner().invoke(main, ["review", "record"])
    assert (res.exit_code, res.stdout) == (0, f"Kb-Reviewed-Content: {digest_of(kb)}\n")


@pytest.mark.parametrize("recording", [False, True], ids=["first-record", "recording"])
@pytest.mark.parametrize("edited", [False, True], ids=["same-text", "onto-an-edit"])
def test_a_rebased_hand_verification_is_judged_by_its_record(
        kb: KB, monkeypatch, edited: bool, recording: bool) -> None:
    """Without a record it was review-unrecorded-approval either way in a history whose
    approvals record their content (`recording`: Rita approved another document with `kb
    review approve`), and passed either way in one that records none yet: Rita credited
    with the raised dose she never saw."""
    written(kb)
    kb.put(doc_text(title="Other"), "Add other", ALICE, "2026-02-01T11:00:00+08:00", rel=OTHER)
    if recording:
        as_identity(monkeypatch, RITA)
        approve(load_config(kb.root), [OTHER])
    base = kb.repo.head.commit.hexsha
    git(kb.root, "checkout", "-q", "-b", "review")
    with_hook(kb)
    verify_by_hand(kb)
    (kb.root / ".git" / "hooks" / "commit-msg").unlink()
    git(kb.root, "checkout", "-q", "main")
    if edited:  # Alice raised the dose on main meanwhile (dated before the approval)
        kb.put(doc_text(EDITED), "Raise the dose", ALICE, "2026-02-01T12:00:00+08:00")
    else:
        kb.put(doc_text(title="Third"), "Add third", ALICE, "2026-02-03T11:00:00+08:00",
               rel="knowledge/crops/third.md")
    git(kb.root, "checkout", "-q", "review")
    git(kb.root, "rebase", "-q", "main", who="rita@ex.org", date=soon(5))
    head = kb.repo.head.commit
    assert head.committed_datetime > head.authored_datetime  # rewritten
    code, out = review_check(kb, monkeypatch, base)
    if not edited:
        assert (code, out) == (0, "")
        return
    assert EDITED in (kb.root / DOC).read_text("utf-8")
    assert code == 1
    [line] = out.splitlines()
    assert line.startswith(f"{DOC}:7:1: error: review-moved-approval: ")
    assert line.endswith(f"(kb review approve {DOC})")


def test_the_hook_is_offered_to_other_repositories() -> None:
    """`.pre-commit-hooks.yaml` lists kb-review-record at the commit-msg stage."""
    import yaml

    hooks = yaml.safe_load(Path(__file__).parents[1].joinpath(".pre-commit-hooks.yaml")
                           .read_text("utf-8"))
    [hook] = [h for h in hooks if h["id"] == "kb-review-record"]
    assert hook["stages"] == ["commit-msg"] and hook["entry"] == "kb review record"
    assert subprocess.run([sys.executable, "-m", "kbtools", "review", "record", "--help"],
                          capture_output=True, check=False).returncode == 0


def test_the_hook_finds_a_knowledge_base_in_a_subfolder(tmp_path: Path) -> None:
    """A monorepo (kb.toml in docs/kb): the hook runs at the repository's root, where `kb`
    finds no kb.toml; `--kb docs/kb` names it, and the record is of its document."""
    kb = KB(tmp_path / "mono" / "docs" / "kb")
    written(kb)
    top = tmp_path / "mono"
    shutil.rmtree(kb.root / ".git")  # the knowledge base's repository becomes a folder
    git(tmp_path, "init", "-q", str(top))
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "import")
    path = kb.root / DOC
    path.write_text(path.read_text("utf-8").replace(
        "verified: false", 'verified: true\nverified_by: rita@ex.org\n'
        'verified_at: "2026-02-02T10:00:00+08:00"'), "utf-8")
    git(top, "add", "-A")
    message = top / "msg.txt"
    message.write_text("Verify rust\n", "utf-8")
    run = [sys.executable, "-m", "kbtools", "review", "record"]
    lost = subprocess.run([*run, str(message)], cwd=top, capture_output=True, text=True,
                          check=False)
    assert lost.returncode == 2 and "no kb.toml here" in lost.stderr
    res = subprocess.run([*run, "--kb", "docs/kb", str(message)], cwd=top,
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    digest = content_digest(state_from_text(path.read_text("utf-8"), DOC))
    assert message.read_text("utf-8") == f"Verify rust\n\nKb-Reviewed-Content: {digest}\n"
