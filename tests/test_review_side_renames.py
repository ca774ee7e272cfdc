"""A side branch's edit made under an earlier name of a document that the main line renamed:
`kb history`, `kb review pending`, `kb review check`, the `verification-lapsed` finding and
the build's `verified` credit the edit to the side commit that made it (under the name it
had there), never to whoever merged the branch. Real repositories made with git."""

from __future__ import annotations

from pathlib import Path

import pytest
from reviewkb import REVIEWERS_TOML as KB_TOML
from reviewkb import git

from kbtools.build.verified import coverages
from kbtools.check.verification import lapse_findings
from kbtools.config import load_config
from kbtools.corpus import iter_documents
from kbtools.provenance import open_repo
from kbtools.review.history import doc_history
from kbtools.review.lapse import review_coverage
from kbtools.review.lineage import changes_of, histories_of, scan
from kbtools.review.pending import pending
from kbtools.review.policy import check_range

LINES = [f"Pump {i} needs {i % 5} litres of oil every {i * 7 % 11} days." for i in range(12)]


def doc(body: list[str], by: str | None = None, project: str = "demo") -> str:
    review = (f'verified: true\nverified_by: {by}\nverified_at: "2026-02-02T09:00:00+00:00"\n'
              if by else "verified: false\n")
    return (f"---\ntitle: Pump oil\ncategory: engineering\nproject: {project}\nsource: SOP\n"
            f"author: Alice\ntimestamp: \"2026-01-01T09:00:00+08:00\"\n{review}tags: [pump]\n"
            "---\n\n# Pump oil\n\n" + "\n".join(body) + "\n")


def put(root: Path, rel: str, text: str, message: str, who: str, date: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, who=who, date=date)


def mv(root: Path, old: str, new: str, who: str, date: str) -> None:
    (root / new).parent.mkdir(parents=True, exist_ok=True)
    git(root, "mv", old, new)
    git(root, "commit", "-q", "-m", f"rename {old} to {new}", who=who, date=date)


def side_edit_under_old_name(root: Path, reviewed: bool = True) -> Path:
    """main: a.md added by Alice, verified by Rita, renamed to b.md by Lee; a branch forked
    before the rename: Mallory edits a.md (a line and its `project`); Max merges it (git applies the edit to b.md);
    Lee renames b.md to c.md."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    put(root, "knowledge/a.md", doc(LINES), "Add pump oil", "alice@ex.org",
        "2026-02-01T09:00:00+00:00")
    if reviewed:
        put(root, "knowledge/a.md", doc(LINES, by="rita@ex.org"), "Verify", "rita@ex.org",
            "2026-02-02T09:00:00+00:00")
    git(root, "tag", "base")
    git(root, "checkout", "-q", "-b", "side")
    edited = LINES[:5] + ["Pump 5 needs 9 litres of oil, not 0."] + LINES[6:]
    put(root, "knowledge/a.md", doc(edited, "rita@ex.org" if reviewed else None, "oil"),
        "More oil for pump 5", "mallory@ex.org", "2026-02-03T09:00:00+00:00")
    git(root, "checkout", "-q", "main")
    mv(root, "knowledge/a.md", "knowledge/b.md", "lee@ex.org", "2026-02-04T09:00:00+00:00")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge side", "side", who="max@ex.org",
        date="2026-02-05T09:00:00+00:00")
    assert "9 litres" in (root / "knowledge/b.md").read_text(encoding="utf-8")
    mv(root, "knowledge/b.md", "knowledge/c.md", "lee@ex.org", "2026-02-06T09:00:00+00:00")
    return root


def test_kb_history_credits_the_side_edit_to_its_author(tmp_path: Path) -> None:
    root = side_edit_under_old_name(tmp_path / "kb")
    h = doc_history(root, "knowledge/c.md", frozenset({"tags"}))
    rows = [(c["author_email"], c["path"], c["changes"]) for c in h["commits"]]
    assert rows == [
        ("lee@ex.org", "knowledge/c.md", ["no content change"]),
        ("mallory@ex.org", "knowledge/a.md", ["body", "front matter project"]),
        ("lee@ex.org", "knowledge/b.md", ["no content change"]),
        ("rita@ex.org", "knowledge/a.md", ["verified by rita@ex.org"]),
        ("alice@ex.org", "knowledge/a.md", ["created"])], rows


def test_pending_names_the_side_author_not_the_merger(tmp_path: Path) -> None:
    root = side_edit_under_old_name(tmp_path / "kb")
    rows = pending(load_config(root))
    assert [(r["doc"], r["reason"], r["git_author_email"]) for r in rows] == [
        ("knowledge/c.md", "changed-since-verification", "mallory@ex.org")]


def test_review_check_judges_the_side_author(tmp_path: Path) -> None:
    """Mallory's edit rides in a commit that keeps Rita's verification: Rita never saw it.
    Credited to Max's merge, the finding named the merge; it names Mallory's commit."""
    root = side_edit_under_old_name(tmp_path / "kb")
    cfg = load_config(root)
    findings, _ = check_range(cfg, "base")
    side = git(root, "rev-parse", "side").strip()
    merge = git(root, "rev-parse", "HEAD^").strip()
    said = " ".join(f.message for f in findings)
    assert [f.code for f in findings] == ["review-unverified-change"], said
    assert side[:10] in said and "mallory@ex.org" in said, said
    assert merge[:10] not in said and "max@ex.org" not in said, said


def test_lapse_and_the_builds_verified_name_the_side_commit(tmp_path: Path) -> None:
    root = side_edit_under_old_name(tmp_path / "kb")
    cfg = load_config(root)
    repo = open_repo(root)
    assert repo is not None
    text = (root / "knowledge/c.md").read_text(encoding="utf-8")
    verify = git(root, "rev-parse", "base").strip()
    with repo:
        for lineage in (scan(repo), None):
            cov = review_coverage(repo, cfg, "knowledge/c.md", text, lineage=lineage)
            assert cov.review is not None and cov.review.commit == verify, cov
            assert cov.reason is not None and "project" in cov.reason, cov
            assert "Mallory" in cov.reason and "Max" not in cov.reason, cov.reason
    [src] = [s for s in iter_documents(root, root / "knowledge")]
    built = coverages(cfg, [src], {})["knowledge/c.md"]  # the build's `verified`
    assert built.reason is not None and "Mallory" in built.reason, built
    assert "Max" not in built.reason, built.reason
    [finding] = lapse_findings(cfg, ["knowledge/c.md"])
    assert "Mallory" in finding.message and "Max" not in finding.message, finding.message


@pytest.mark.parametrize("reviewed", [True, False])
def test_every_name_on_every_line_is_followed(tmp_path: Path, reviewed: bool) -> None:
    """The history read once for many documents and the one read for one document agree."""
    root = side_edit_under_old_name(tmp_path / "kb", reviewed)
    repo = open_repo(root)
    assert repo is not None
    with repo:
        lineage = scan(repo)
        assert lineage is not None
        histories_of(repo, lineage, ["knowledge/c.md"])
        changes = changes_of(repo, lineage.head.sha, "knowledge/c.md", lineage=lineage)
    assert [(ch.commit.author_email, ch.path) for ch in changes] == [
        ("lee@ex.org", "knowledge/c.md"), ("mallory@ex.org", "knowledge/a.md"),
        ("lee@ex.org", "knowledge/b.md")] + [("rita@ex.org", "knowledge/a.md")] * reviewed + [
        ("alice@ex.org", "knowledge/a.md")]
