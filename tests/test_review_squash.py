"""A reviewed pull request squash-merged (`git merge --squash`, GitHub's squash merge): the
squashed commit carries the approval's `Kb-Reviewed-Content:` record, and the document it
lands is the content that record names, so the reviewer approved exactly it. Real git, real
approvals (`kb review approve`), several identities (tests/reviewkb.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from reviewkb import ALICE, DOC, KB, RITA, as_identity, doc_text, git, written

from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import decode
from kbtools.provenance import open_repo
from kbtools.review.approve import approve
from kbtools.review.lapse import review_coverage

EDITED = "# Rust\n\nSpray at first sign; repeat after 7 days (第二次施药).\n"


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    return KB(tmp_path / "kb")


def soon(minutes: int = 1) -> str:
    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat(timespec="seconds")


def review_check(kb: KB, monkeypatch: pytest.MonkeyPatch, base: str) -> tuple[int, str]:
    monkeypatch.chdir(kb.root)
    res = CliRunner().invoke(main, ["review", "check", "--base", base])
    return res.exit_code, res.stdout


def reviewed_branch(kb: KB, monkeypatch: pytest.MonkeyPatch) -> str:
    """Alice edits the body on branch `pr`, Rita approves it there; back on main. Returns
    main's commit before the merge."""
    written(kb)
    git(kb.root, "checkout", "-q", "-b", "pr")
    kb.put(doc_text(EDITED), "Repeat the spray", ALICE, "2026-02-01T12:00:00+08:00")
    as_identity(monkeypatch, RITA)
    approve(load_config(kb.root), [DOC])
    git(kb.root, "checkout", "-q", "main")
    return kb.repo.head.commit.hexsha


def squash(kb: KB, who: str, message: str | None = None) -> None:
    git(kb.root, "merge", "-q", "--squash", "pr", who=who, date=soon())
    if message is None:  # git's own SQUASH_MSG: every commit's message, indented
        git(kb.root, "commit", "-q", "--no-edit", who=who, date=soon())
    else:
        git(kb.root, "commit", "-q", "-m", message, who=who, date=soon())


def coverage_reason(kb: KB) -> str | None:
    """What `kb check` and the build say of the document at HEAD (None: verified)."""
    cfg = load_config(kb.root)
    repo = open_repo(kb.root)
    assert repo is not None
    with repo:
        return review_coverage(repo, cfg, DOC, decode((kb.root / DOC).read_bytes())[0]).reason


def github_message(kb: KB) -> str:
    """What GitHub's squash merge writes: the title, each commit's message as a bullet,
    the reviewer named as a co-author (her approval commit) in the last paragraph."""
    approval = kb.repo.commit("pr").message.strip()
    return ("Repeat the spray (#12)\n\n* Repeat the spray\n\n* " + approval
            + "\n\n---------\n\nCo-authored-by: Rita Reviewer <rita@ex.org>\n")


@pytest.mark.parametrize("message", [None, "github"], ids=["git-merge-squash", "github"])
def test_squash_merged_approval_of_the_squashed_content_is_verified(
        kb: KB, monkeypatch, message: str | None) -> None:
    """Was review-unattested + review-stale-verification (git merge --squash: Alice's
    commit, dated after the approval, the trailer quoted indented) or review-self-review
    (GitHub: Rita a co-author) though the record shows Rita approved exactly this text."""
    base = reviewed_branch(kb, monkeypatch)
    squash(kb, "alice@ex.org", github_message(kb) if message else None)
    assert EDITED in (kb.root / DOC).read_text("utf-8")
    assert review_check(kb, monkeypatch, base) == (0, "")
    assert coverage_reason(kb) is None


def test_squash_of_an_edit_made_after_the_approval_lapses(kb: KB, monkeypatch) -> None:
    base = reviewed_branch(kb, monkeypatch)
    git(kb.root, "checkout", "-q", "pr")
    text = (kb.root / DOC).read_text("utf-8")
    kb.put(text.replace("7 days", "3 days"), "Sooner", ALICE, soon())
    git(kb.root, "checkout", "-q", "main")
    squash(kb, "alice@ex.org")
    code, out = review_check(kb, monkeypatch, base)
    assert code == 1
    [line] = out.splitlines()
    assert line.startswith(f"{DOC}:7:1: error: review-moved-approval: ")
    assert line.endswith(f"(kb review approve {DOC})")
    assert coverage_reason(kb) is not None


def test_squash_without_the_reviewers_trailer_beside_the_record_is_not_an_approval(
        kb: KB, monkeypatch) -> None:
    """The record alone names nobody: a squash keeping it but dropping her Reviewed-by
    line is judged as before (unattested)."""
    base = reviewed_branch(kb, monkeypatch)
    record = next(ln for ln in kb.repo.commit("pr").message.split("\n")
                  if ln.startswith("Kb-Reviewed-Content"))
    squash(kb, "alice@ex.org", f"Repeat the spray\n\n{record}\n")
    code, out = review_check(kb, monkeypatch, base)
    assert code == 1 and "review-unattested" in out


def test_squash_committed_by_the_reviewer_is_one_self_review(kb: KB, monkeypatch) -> None:
    base = reviewed_branch(kb, monkeypatch)
    squash(kb, "rita@ex.org")
    code, out = review_check(kb, monkeypatch, base)
    assert code == 1
    [line] = out.splitlines()
    assert line.startswith(f"{DOC}:8:1: error: review-self-review: rita@ex.org approved this "
                           "content, then committed it in ")
