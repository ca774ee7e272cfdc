"""kb review approve as a team meets it: several approvals in one checkout at once, a commit
landing right after an approval's, a detached HEAD, a document named twice, a document saved
while it is approved (`kbtools.review.approve`)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from reviewkb import ALICE, DOC, KB, RAY, RITA, doc_text, written

from kbtools.config import load_config
from kbtools.errors import ReviewError
from kbtools.review import approve as approve_module
from kbtools.review.approve import approve

OTHERS = [f"knowledge/crops/other-{n}.md" for n in range(4)]


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    return KB(tmp_path / "kb")


def _as(monkeypatch: pytest.MonkeyPatch, email: str) -> None:
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", email.split("@")[0])
        monkeypatch.setenv(f"GIT_{who}_EMAIL", email)


def _approve_when_all_are_ready(root: str, doc: str, email: str, barrier, results) -> None:
    barrier.wait()
    try:
        got = approve(load_config(Path(root)), [doc], email)
        results.put((doc, email, got.commit, None))
    except ReviewError as exc:
        results.put((doc, email, None, str(exc)))


def test_approvals_at_once_in_one_checkout_each_commit_their_own(kb: KB, monkeypatch) -> None:
    """Run at once, approvals met git's index.lock (and restored a file another had just
    committed), or wrote each other's front matter; two reviewers approving one document
    both committed."""
    written(kb)
    for rel in OTHERS:
        kb.put(doc_text(title=rel), f"Add {rel}", ALICE, "2026-02-01T11:00:00+08:00", rel=rel)
    _as(monkeypatch, RITA.email)
    runs = [(DOC, RITA.email), (DOC, RAY.email)] + [
        (rel, (RITA, RAY)[n % 2].email) for n, rel in enumerate(OTHERS)]
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(len(runs)), ctx.Queue()
    procs = [ctx.Process(target=_approve_when_all_are_ready,
                         args=(str(kb.root), doc, email, barrier, results))
             for doc, email in runs]
    for p in procs:
        p.start()
    got = [results.get(timeout=120) for _ in runs]
    for p in procs:
        p.join(timeout=30)
    done = {(doc, email): (commit, error) for doc, email, commit, error in got}
    for rel in OTHERS:
        commit, error = next(v for (d, _), v in done.items() if d == rel)
        assert error is None
        assert list(kb.repo.commit(commit).stats.files) == [rel]  # its own commit
    on_doc = [done[(DOC, RITA.email)], done[(DOC, RAY.email)]]
    assert sorted(error is None for _, error in on_doc) == [False, True]
    (commit, _), (_, refused) = sorted(on_doc, key=lambda v: v[1] is not None)
    assert refused is not None and "already verified by" in refused
    trailer = kb.repo.commit(commit).message.split("Reviewed-by: ")[1]
    approver = trailer.split("<")[1].split(">")[0]
    text = (kb.root / DOC).read_text()  # the front matter names the approval's reviewer
    assert f"verified_by: {approver}" in text and "verified: true" in text
    assert not kb.repo.is_dirty(untracked_files=True)
    assert len(list(kb.repo.iter_commits("HEAD", paths=DOC))) == 2  # added, approved once


def test_a_commit_landing_right_after_is_not_reported_as_the_approval(kb: KB,
                                                                       monkeypatch) -> None:
    written(kb)
    _as(monkeypatch, RITA.email)
    commit_approval = approve_module.commit_approval

    def and_then_another(repo, planned, message):
        commit_approval(repo, planned, message)
        repo.git.commit("--allow-empty", "-m", "someone else's commit, just after")

    monkeypatch.setattr(approve_module, "commit_approval", and_then_another)
    hook = Path(kb.repo.git_dir) / "hooks" / "prepare-commit-msg"  # rewords every message
    hook.parent.mkdir(exist_ok=True)
    hook.write_text('#!/bin/sh\necho "Ticket: KB-1" >> "$1"\n')
    hook.chmod(0o755)
    result = approve(load_config(kb.root), [DOC])
    approval = kb.repo.head.commit.parents[0]
    assert result.commit == approval.hexsha != kb.repo.head.commit.hexsha
    assert "Reviewed-by: rita <rita@ex.org>" in approval.message
    assert "Ticket: KB-1" in approval.message


def test_a_detached_head_is_refused_and_nothing_written(kb: KB, monkeypatch) -> None:
    """Committed on a detached HEAD, the approval was on no branch and left behind at the
    next checkout, with nothing said."""
    written(kb)
    _as(monkeypatch, RITA.email)
    kb.repo.git.checkout("--detach")
    head = kb.repo.head.commit.hexsha
    with pytest.raises(ReviewError, match=r"HEAD is detached \(at [0-9a-f]{7}"):
        approve(load_config(kb.root), [DOC])
    assert kb.repo.head.commit.hexsha == head and not kb.repo.is_dirty()


def test_a_document_named_twice_is_approved_once(kb: KB, monkeypatch) -> None:
    """`kb review approve knowledge/crops/*.md knowledge/crops/rust.md`: the commit said
    "verify 2 documents" and listed the one document twice."""
    written(kb)
    _as(monkeypatch, RITA.email)
    monkeypatch.chdir(kb.root / "knowledge")
    result = approve(load_config(kb.root), [DOC, "crops/rust.md", "./crops/rust.md"])
    assert result.docs == (DOC,)
    assert kb.repo.head.commit.message.startswith(f"Review: verify {DOC}\n\n- {DOC}\n\n")


def test_a_save_while_approving_is_kept_and_nothing_committed(kb: KB, monkeypatch) -> None:
    """The author saved the document while the approval checked it (or the other documents
    named): the approval wrote the bytes it had read before over the saved edit, lost, and
    committed them as approved."""
    written(kb)
    _as(monkeypatch, RITA.email)
    head = kb.repo.head.commit.hexsha
    plan = approve_module.plan_approval

    def saved_meanwhile(cfg, repo, at, doc, who):
        planned = plan(cfg, repo, at, doc, who)
        with (kb.root / DOC).open("a", encoding="utf-8") as f:
            f.write("An edit saved meanwhile.\n")
        return planned

    monkeypatch.setattr(approve_module, "plan_approval", saved_meanwhile)
    with pytest.raises(ReviewError, match=f"{DOC}: changed on disk while it was being approved"):
        approve(load_config(kb.root), [DOC])
    text = (kb.root / DOC).read_text()
    assert text.endswith("An edit saved meanwhile.\n") and "verified: false" in text
    assert kb.repo.head.commit.hexsha == head
