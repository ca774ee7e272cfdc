"""An approval says what it approved (`Kb-Reviewed-Content:`), so history rewriting cannot
move it onto text its reviewer never saw: a cherry-pick or a fixup squash onto an edit is
refused by `kb review check`, `kb check` and the build's verdict (`review_coverage`); a
rebase or a rename that keeps the content keeps the document verified. Real git, real
approvals (`kb review approve`), several identities (tests/reviewkb.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from reviewkb import ALICE, DOC, KB, RITA, as_identity, doc_text, git, written

from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import decode
from kbtools.provenance import open_repo, state_from_text
from kbtools.review.approve import approve
from kbtools.review.diff import review_diff
from kbtools.review.lapse import review_coverage
from kbtools.review.verification import content_digest, recorded_digests

EDITED = "# Rust\n\nSpray at first sign, 3× the label dose (未经审核的剂量).\n"
OTHER = "knowledge/crops/other.md"


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    return KB(tmp_path / "kb")


def coverage_reason(kb: KB) -> str | None:
    cfg = load_config(kb.root)
    repo = open_repo(kb.root)
    assert repo is not None
    with repo:
        cov = review_coverage(repo, cfg, DOC, decode((kb.root / DOC).read_bytes())[0])
    return cov.reason


def review_check(kb: KB, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(kb.root)
    res = CliRunner().invoke(main, ["review", "check", "--base", kb.base])
    return res.exit_code, res.stdout


def edit_on_branch(kb: KB, branch: str) -> None:
    """Alice edits the body on `branch` (dated before any approval), nobody reviews it."""
    git(kb.root, "checkout", "-q", "-b", branch)
    kb.put(doc_text(EDITED), "Raise the dose", ALICE, "2026-02-01T12:00:00+08:00")
    git(kb.root, "checkout", "-q", "main")


def test_approval_records_the_content_it_approved(kb: KB, monkeypatch) -> None:
    written(kb)
    kb.put(doc_text(title="Other"), "Add other", ALICE, "2026-02-01T11:00:00+08:00", rel=OTHER)
    as_identity(monkeypatch, RITA)
    approve(load_config(kb.root), [DOC, OTHER])
    message = kb.repo.head.commit.message
    digests = {content_digest(state_from_text((kb.root / rel).read_text("utf-8"), rel))
               for rel in (DOC, OTHER)}
    assert recorded_digests(message) == digests and len(digests) == 2
    # a squash keeps them above its own last paragraph: still read
    assert recorded_digests(message + "\n\nFix typo\n") == digests
    assert recorded_digests("x\n\nKb-Reviewed-Content: sha256:abc\n") == frozenset()


def rewritten_at() -> str:
    """A rewrite's commit date: a minute from now, after the approval it rewrites (whose
    verified_at is the moment `approve` ran; a fixed date passes for a few hours only)."""
    return (datetime.now(UTC) + timedelta(minutes=1)).isoformat(timespec="seconds")

def test_cherry_picked_approval_onto_an_unreviewed_edit_is_refused(kb: KB, monkeypatch) -> None:
    """The gap: Rita approved the body on main; her approval commit, cherry-picked onto a
    branch where Alice changed the dose earlier, credited Rita with the new dose (dates
    cannot tell: the pick keeps her as author and the edit is older than verified_at)."""
    written(kb)
    edit_on_branch(kb, "dose")
    as_identity(monkeypatch, RITA)
    approval = approve(load_config(kb.root), [DOC]).commit
    assert review_check(kb, monkeypatch) == (0, "")
    git(kb.root, "checkout", "-q", "dose")
    git(kb.root, "cherry-pick", approval, who="alice@ex.org", date=rewritten_at())
    assert EDITED in (kb.root / DOC).read_text("utf-8")
    assert "verified: true" in (kb.root / DOC).read_text("utf-8")
    code, out = review_check(kb, monkeypatch)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 1, out
    assert lines[0].startswith(f"{DOC}:7:1: error: review-moved-approval: the approval in ")
    assert "cherry-picked, rebased or squashed" in lines[0]
    assert lines[0].endswith(f"(kb review approve {DOC})")
    reason = coverage_reason(kb)  # kb check and the build: the whole document lapses
    assert reason is not None and "review-moved-approval" not in reason
    assert reason.startswith("review not valid: the approval in ")
    # kb review diff shows the reviewer what awaits them: the text the approval recorded
    # (found in the history by its digest) against the document now; it said "no change"
    shown = review_diff(load_config(kb.root), DOC)
    assert shown["changed"] and shown["verification"]["moved"] is True
    assert "-Spray at first sign." in shown["diff"].split("\n")
    assert "+" + EDITED.split("\n")[2] in shown["diff"].split("\n")
    # approving it as it is (another reviewer than the editor) makes it verified again
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ray Reviewer")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "ray@ex.org")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "ray@ex.org")
    approve(load_config(kb.root), [DOC])
    assert review_check(kb, monkeypatch) == (0, "")
    assert coverage_reason(kb) is None


@pytest.mark.parametrize("on_main, refused", [
    # another document added on main: the approved text is what main holds, still verified
    (lambda kb: kb.put(doc_text(title="Other"), "Add other", ALICE,
                       "2026-02-03T11:00:00+08:00", rel=OTHER), False),
    # the approved document edited on main: the rebased approval lands on unreviewed text
    (lambda kb: kb.put(doc_text(EDITED), "Raise the dose", ALICE,
                       "2026-02-01T12:00:00+08:00"), True),
], ids=["same-content", "onto-an-edit"])
def test_a_rebased_approval_stays_verified_only_on_the_content_it_approved(
        kb: KB, monkeypatch, on_main: Callable[[KB], object], refused: bool) -> None:
    written(kb)
    git(kb.root, "checkout", "-q", "-b", "review")
    as_identity(monkeypatch, RITA)
    approve(load_config(kb.root), [DOC])
    git(kb.root, "checkout", "-q", "main")
    on_main(kb)
    git(kb.root, "checkout", "-q", "review")
    git(kb.root, "rebase", "-q", "main", who="alice@ex.org", date=rewritten_at())
    code, out = review_check(kb, monkeypatch)
    if refused:
        assert code == 1 and "review-moved-approval" in out
        assert coverage_reason(kb) is not None
        [warning] = kb_check(kb, monkeypatch).splitlines()
        assert "review-moved-approval" not in warning  # kb check's code says it
        assert warning.count("kb review approve") == 1, warning  # it said it twice
    else:
        assert (kb.root / OTHER).exists()
        assert (code, out) == (0, "")
        assert coverage_reason(kb) is None


def test_approval_squashed_with_a_later_edit_is_refused(kb: KB, monkeypatch) -> None:
    """`git rebase -i` fixup of Alice's later edit into Rita's approval: the squash keeps
    Rita's message (trailers and all) and Rita as its author."""
    written(kb)
    base = kb.repo.head.commit.hexsha
    as_identity(monkeypatch, RITA)
    approval = approve(load_config(kb.root), [DOC]).commit
    text = (kb.root / DOC).read_text("utf-8")
    kb.put(text.replace("Spray at first sign.\n", EDITED.split("\n\n", 1)[1]),
           "Raise the dose", ALICE, "2026-12-06T09:00:00+00:00")
    git(kb.root, "reset", "-q", "--soft", base, who="rita@ex.org")
    git(kb.root, "commit", "-q", "-C", approval, who="rita@ex.org",
        date=rewritten_at())
    code, out = review_check(kb, monkeypatch)
    assert code == 1
    assert [ln.split(": ")[2] for ln in out.splitlines()] == ["review-moved-approval"]
    assert coverage_reason(kb) is not None


def test_cherry_picked_approval_onto_a_rename_of_the_same_content_stays_verified(
        kb: KB, monkeypatch) -> None:
    written(kb)
    git(kb.root, "checkout", "-q", "-b", "move")
    moved = "knowledge/crops/wheat-rust.md"
    git(kb.root, "mv", DOC, moved)
    git(kb.root, "commit", "-q", "-m", "Rename", who="alice@ex.org")
    git(kb.root, "checkout", "-q", "main")
    as_identity(monkeypatch, RITA)
    approval = approve(load_config(kb.root), [DOC]).commit
    git(kb.root, "checkout", "-q", "move")
    git(kb.root, "cherry-pick", approval, who="alice@ex.org", date=rewritten_at())
    assert "verified: true" in (kb.root / moved).read_text("utf-8")
    assert review_check(kb, monkeypatch) == (0, "")


def test_approval_after_a_rename_of_an_unchanged_body_is_verified(kb: KB, monkeypatch) -> None:
    written(kb)
    moved = "knowledge/crops/wheat-rust.md"
    git(kb.root, "mv", DOC, moved)
    git(kb.root, "commit", "-q", "-m", "Rename", who="alice@ex.org")
    as_identity(monkeypatch, RITA)
    approve(load_config(kb.root), [moved])
    assert review_check(kb, monkeypatch) == (0, "")
    cfg = load_config(kb.root)
    repo = open_repo(kb.root)
    assert repo is not None
    with repo:
        cov = review_coverage(repo, cfg, moved, (kb.root / moved).read_text("utf-8"))
    assert cov.covers_all()


@pytest.mark.parametrize("autocrlf, bom", [("true", ""), ("false", ""), ("false", "\ufeff")])
def test_approval_of_a_crlf_document_stays_verified(kb: KB, monkeypatch, autocrlf: str,
                                                    bom: str) -> None:
    """A Windows author's CRLF document (Notepad's BOM too), committed as CRLF or
    (core.autocrlf) as LF: the record is of the content, as the checks read it. It named
    the raw CRLF text, which no check could find: every such approval was refused."""
    git(kb.root, "config", "core.autocrlf", autocrlf)
    kb.put(bom + doc_text("# 锈病\r\n\r\n发病初期喷药。\r\n").replace("\n", "\r\n").replace("\r\r", "\r"),
           "Add", ALICE, "2026-02-01T10:00:00+08:00")
    as_identity(monkeypatch, RITA)
    approve(load_config(kb.root), [DOC])
    assert review_check(kb, monkeypatch) == (0, "")
    assert coverage_reason(kb) is None


def test_a_moved_approval_of_two_documents_refuses_only_the_edited_one(kb: KB, monkeypatch
                                                                       ) -> None:
    written(kb)
    kb.put(doc_text(title="Other"), "Add other", ALICE, "2026-02-01T11:00:00+08:00", rel=OTHER)
    edit_on_branch(kb, "dose")
    as_identity(monkeypatch, RITA)
    approval = approve(load_config(kb.root), [DOC, OTHER]).commit
    git(kb.root, "checkout", "-q", "dose")
    git(kb.root, "cherry-pick", approval, who="alice@ex.org", date=rewritten_at())
    code, out = review_check(kb, monkeypatch)
    assert code == 1
    assert [ln.split(":")[0] for ln in out.splitlines()] == [DOC]


def later() -> str:
    """A commit time after the approvals `approve` makes in a test (they are made now)."""
    return (datetime.now(UTC) + timedelta(minutes=10)).isoformat(timespec="seconds")


def by_hand(kb: KB) -> str:
    """Rita verifies DOC as a kb older than session 37 did (or by hand): the three lines and
    a Reviewed-by trailer, no record of the content; committed as made."""
    text = (kb.root / DOC).read_text("utf-8").replace(
        "verified: false", 'verified: true\nverified_by: rita@ex.org\n'
        'verified_at: "2026-02-02T10:00:00+08:00"')
    return kb.put(text, "Verify rust\n\nReviewed-by: Rita Reviewer <rita@ex.org>\n", RITA,
                  "2026-02-02T10:00:00+08:00")


def kb_check(kb: KB, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(kb.root)
    return CliRunner().invoke(main, ["check", DOC]).stdout


@pytest.mark.parametrize("how", ["reworded", "older-kb"])
def test_a_rewritten_approval_without_its_record_is_refused_once_approvals_record_it(
        kb: KB, monkeypatch, how: str) -> None:
    """Rita's approval, cherry-picked onto Alice's earlier-dated edit, without the
    `Kb-Reviewed-Content` line: dropped by a reword, or never written (a kb older than
    session 37). The history records approvals' content already (Rita's approval of
    another document), so a rewritten approval recording none could stand on any text: it
    passed on the date rules, Rita credited with the raised dose she never saw."""
    written(kb)
    kb.put(doc_text(title="Other"), "Add other", ALICE, "2026-02-01T11:00:00+08:00", rel=OTHER)
    as_identity(monkeypatch, RITA)
    approve(load_config(kb.root), [OTHER])  # from here on, approvals record their content
    edit_on_branch(kb, "dose")
    approval = approve(load_config(kb.root), [DOC]).commit if how == "reworded" else by_hand(kb)
    git(kb.root, "checkout", "-q", "dose")
    git(kb.root, "cherry-pick", approval, who="alice@ex.org", date=later())
    if how == "reworded":  # `git commit --amend`, `git rebase -i` reword: the line dropped
        message = kb.repo.head.commit.message
        assert "Kb-Reviewed-Content: sha256:" in message
        kept = "\n".join(ln for ln in message.split("\n")
                         if not ln.startswith("Kb-Reviewed-Content"))
        git(kb.root, "commit", "-q", "--amend", "-m", kept, who="alice@ex.org", date=later())
    code, out = review_check(kb, monkeypatch)
    assert code == 1
    [line] = out.splitlines()
    assert line.startswith(f"{DOC}:7:1: error: review-unrecorded-approval: the approval in ")
    assert "was rewritten (authored 2026-" in line and "records no Kb-Reviewed-Content" in line
    assert line.endswith(f"(kb review approve {DOC})")
    reason = coverage_reason(kb)  # kb check and the build: the whole document lapses
    assert reason is not None and "records no Kb-Reviewed-Content" in reason
    [warning] = kb_check(kb, monkeypatch).splitlines()
    assert warning.startswith(f"{DOC}:7:1: warning: verification-lapsed: ")
    assert warning.count("kb review approve") == 1, warning  # the advice, said once
    assert warning.endswith(f"(kb review approve {DOC}); served as unverified until then")
    # kb review diff: what it approved is unknown, so the whole body awaits the reviewer
    # (it said there was no change since the verification)
    shown = review_diff(load_config(kb.root), DOC)
    assert shown["changed"] and shown["verification"]["moved"] is True
    assert "+" + EDITED.split("\n")[2] in shown["diff"].split("\n")
    assert "rewritten without its Kb-Reviewed-Content" in shown["diff"].split("\n")[0]


@pytest.mark.parametrize("recorded", [True, False], ids=["landed-as-made", "before-records"])
def test_an_approval_without_a_record_keeps_the_other_rules(kb: KB, monkeypatch,
                                                            recorded: bool) -> None:
    """Approvals recording nothing are trusted by the date and authorship rules when they
    landed as made (a reviewer on an older kb, or one verifying by hand, in a history that
    records), or were rewritten before the history recorded any (rebase-merged before
    session 37): the record cannot be asked of them."""
    written(kb)
    kb.put(doc_text(title="Other"), "Add other", ALICE, "2026-02-01T11:00:00+08:00", rel=OTHER)
    if recorded:
        as_identity(monkeypatch, RITA)
        approve(load_config(kb.root), [OTHER])
        by_hand(kb)
    else:  # rebased onto main after another document was added there
        git(kb.root, "checkout", "-q", "-b", "review")
        by_hand(kb)
        git(kb.root, "checkout", "-q", "main")
        kb.put(doc_text(title="Third"), "Add third", ALICE, "2026-02-03T11:00:00+08:00",
               rel="knowledge/crops/third.md")
        git(kb.root, "checkout", "-q", "review")
        git(kb.root, "rebase", "-q", "main", who="alice@ex.org", date=later())
        assert kb.repo.head.commit.committed_datetime > kb.repo.head.commit.authored_datetime
    assert review_check(kb, monkeypatch) == (0, "")
    assert coverage_reason(kb) is None


@pytest.mark.parametrize("edited", [False, True], ids=["moved", "moved-and-edited"])
def test_a_verified_document_moved_in_the_commit_being_made_keeps_its_review(
        kb: KB, monkeypatch, edited: bool) -> None:
    """`git mv` of a verified document (a folder reorganised), edited or not, staged: `kb
    check`, as the pre-commit hook runs it, said "verification lapsed: uncommitted change:
    the document is not committed, so it has no review" for each one, though the commit
    keeps every review (`kb review check` passes it). Now nothing for a move, and for an
    edit its line alone."""
    written(kb)
    as_identity(monkeypatch, RITA)
    approve(load_config(kb.root), [DOC])
    moved = "knowledge/wheat/rust.md"
    (kb.root / "knowledge" / "wheat").mkdir()
    git(kb.root, "mv", DOC, moved)
    if edited:
        path = kb.root / moved
        path.write_text(path.read_text("utf-8").replace("first sign.", "first sign, twice."),
                        "utf-8")
        git(kb.root, "add", moved)
    monkeypatch.chdir(kb.root)
    for env in ("", "1"):  # by hand, and as the hook (PRE_COMMIT: the Git index's text)
        monkeypatch.setenv("PRE_COMMIT", env)
        lines = CliRunner().invoke(main, ["check", moved]).stdout.splitlines()
        if edited:
            assert len(lines) == 1 and lines[0].startswith(
                f"{moved}:16:1: warning: verification-lapsed: line 16 of this verified "
                "document: uncommitted change (reviewed "), lines
        else:
            assert lines == []
