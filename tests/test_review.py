"""Review policy and reviewers: real Git repositories in tmp_path (the commands approve,
pending, diff and the CLI: tests/test_review_commands.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from git.util import Actor
from reviewkb import (
    ALICE,
    DOC,
    KB,
    KB_TOML,
    LEAD,
    MALLORY,
    RAY,
    RITA,
    as_identity,
    doc_text,
    written,
)

from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import ReviewError, UsageError
from kbtools.review.approve import approve
from kbtools.review.pending import pending
from kbtools.review.policy import check_range, matches, reviewers_for


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    return KB(tmp_path / "kb")


# ---------------------------------------------------------------- reviewers


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("knowledge/**", "knowledge/a/b/c.md", True),
    ("knowledge/**", "other/knowledge/c.md", False),
    ("knowledge/*.md", "knowledge/a/c.md", False),
    ("knowledge/*.md", "knowledge/c.md", True),
    ("knowledge/**/rust.md", "knowledge/rust.md", True),
    ("knowledge/**/rust.md", "knowledge/x/y/rust.md", True),
    ("*.md", "deep/down/file.md", True),
    ("knowledge/crops/", "knowledge/crops/x/y.md", True),
    ("/knowledge/crops", "knowledge/crops/y.md", True),
    ("knowledge/crop?/[a-z]*.md", "knowledge/crops/rust.md", True),
    ("knowledge/crop?/[a-z]*.md", "knowledge/crops/9.md", False),
])
def test_patterns(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_reviewers_last_match_wins(kb: KB) -> None:
    cfg = load_config(kb.root)
    assert reviewers_for("knowledge/crops/rust.md", cfg) == ["rita@ex.org", "ray@ex.org"]
    assert reviewers_for("knowledge/eng/api.md", cfg) == ["eve@ex.org"]
    assert reviewers_for("README.md", cfg) == []


# ---------------------------------------------------------------- kb review check


def test_verification_by_reviewer_passes(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify rust SOP", RITA, "2026-02-02T09:00:00+08:00")
    assert kb.check() == []


def test_verification_by_trailer_passes(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="ray@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify rust SOP\n\nReviewed-by: Ray Reviewer <Ray@ex.org>", ALICE,
           "2026-02-02T09:00:00+08:00")
    assert kb.check() == []


def test_non_reviewer_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="mallory@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", MALLORY, "2026-02-02T09:00:00+08:00")
    [f] = kb.check()
    assert (f.path, f.line, f.level, f.code) == (DOC, 8, "error", "review-not-reviewer")
    assert "rita@ex.org, ray@ex.org" in f.message


def test_missing_verified_by_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, at="2026-02-02T09:00:00+08:00"), "Verify", RITA,
           "2026-02-02T09:00:00+08:00")
    findings = kb.check()
    assert ("review-not-reviewer", "verified: true without verified_by") in [
        (f.code, f.message) for f in findings]


def test_self_review_fails(kb: KB) -> None:
    kb.put(doc_text(author="Rita"), "Add", RITA, "2026-02-01T10:00:00+08:00")
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00",
                    author="Rita"), "Verify", RITA, "2026-02-02T09:00:00+08:00")
    assert kb.codes() == ["review-self-review"]


def test_self_review_in_one_commit_fails(kb: KB) -> None:
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Add and verify", RITA, "2026-02-02T09:00:00+08:00")
    assert kb.codes() == ["review-self-review"]


@pytest.mark.parametrize(("author", "own"), [
    ("margarita@ex.org", False),  # contains the reviewer's address, names someone else
    ("Wen <wen.rita@ex.org>", False),
    ("Rita Reviewer <Rita@ex.org>", True),
    ("张伟（rita@ex.org）", True),
    ("Alice, rita@ex.org.", True),
])
def test_author_field_names_the_reviewer_as_a_whole_address(kb: KB, monkeypatch, author: str,
                                                             own: bool) -> None:
    kb.put(doc_text(author=author), "Add", ALICE, "2026-02-01T10:00:00+08:00")
    as_identity(monkeypatch, RITA)
    if own:
        with pytest.raises(ReviewError, match="cannot approve their own change"):
            approve(load_config(kb.root), [DOC])
        kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00",
                        author=author), "Verify", RITA, "2026-02-02T09:00:00+08:00")
        assert kb.codes() == ["review-self-review"]
    else:
        approve(load_config(kb.root), [DOC])
        assert kb.check() == []


def test_body_edit_without_reverification_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", RITA, "2026-02-02T09:00:00+08:00")
    kb.put(doc_text("# Rust\n\nSpray twice.\n", verified=True, by="rita@ex.org",
                    at="2026-02-02T09:00:00+08:00"), "Edit", ALICE, "2026-02-03T09:00:00+08:00")
    findings = kb.check()
    # one problem, one line: the edit is not also reported as a stale verified_at
    assert [f.code for f in findings] == ["review-unverified-change"]
    assert "body changed in" in findings[0].message and "alice@ex.org" in findings[0].message
    # only the edit is in the range: the document is still judged as a whole
    assert kb.codes(base=kb.repo.commit("HEAD~1").hexsha) == ["review-unverified-change"]


def test_reverification_after_edit_passes(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", RITA, "2026-02-02T09:00:00+08:00")
    kb.put(doc_text("# Rust\n\nSpray twice.\n", verified=False), "Edit", ALICE,
           "2026-02-03T09:00:00+08:00")
    kb.put(doc_text("# Rust\n\nSpray twice.\n", verified=True, by="ray@ex.org",
                    at="2026-02-04T09:00:00+08:00"), "Verify again", RAY,
           "2026-02-04T09:00:00+08:00")
    assert kb.check() == []


def test_stale_verified_at_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-01-15T09:00:00+08:00"),
           "Verify", RITA, "2026-02-02T09:00:00+08:00")
    [f] = kb.check()
    assert f.code == "review-stale-verification" and f.line == 9
    assert "earlier than the last content change" in f.message


def test_future_verified_at_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2027-02-02T09:00:00+08:00"),
           "Verify", RITA, "2026-02-02T09:00:00+08:00")
    assert kb.codes() == ["review-verified-at-future"]


@pytest.mark.parametrize(("written_at", "offset", "code"), [
    # Beijing: the clock time written with Z is eight hours late, after the commit
    ("2026-02-01T10:00:00+08:00", "+08:00", "review-verified-at-future"),
    # New York: five hours early, before the edit it covers
    ("2026-02-02T08:00:00-05:00", "-05:00", "review-stale-verification"),
])
def test_verified_at_in_local_time_with_another_offset_says_which(
        kb: KB, written_at: str, offset: str, code: str) -> None:
    """A reviewer writes their clock time with Z. The finding showed one clock time twice
    ("10:00:00Z is later than … 10:00:00+08:00"); it names the commit's offset and the value
    meant."""
    kb.put(doc_text(), "Add rust SOP", ALICE, written_at)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00Z"), "Verify",
           RITA, f"2026-02-02T09:00:00{offset}")
    [f] = kb.check()
    assert f.code == code and f.message.endswith(
        f": its offset is not the commit's ({offset}): written in local time? write "
        f'verified_at: "2026-02-02T09:00:00{offset}"'), f.message


def test_trailer_from_wrong_person_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify\n\nReviewed-by: Ray Reviewer <ray@ex.org>", ALICE,
           "2026-02-02T09:00:00+08:00")
    [f] = kb.check()
    assert f.code == "review-wrong-trailer" and "names ray@ex.org" in f.message


def test_trailer_outside_trailer_block_does_not_count(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify\n\nReviewed-by: Rita <rita@ex.org>\n\nmore text", ALICE,
           "2026-02-02T09:00:00+08:00")
    assert kb.codes() == ["review-unattested"]


@pytest.mark.parametrize("trailer", [
    "Reviewed-by : Rita Reviewer <rita@ex.org>",  # a blank before the colon
    "reviewed-BY:\tRita <RITA@ex.org>",
    "Reviewed-by: Rita Reviewer < rita@ex.org >",  # blanks inside the brackets
    "Reviewed-by: Rita Reviewer\n  <rita@ex.org>",  # a folded (continuation) line
    "Signed-off-by: Alice <alice@ex.org>\nReviewed-by: Ray <ray@ex.org>\n"
    "Reviewed-by :Rita <rita@ex.org>",
])
def test_trailer_as_git_reads_it_attests(kb: KB, trailer: str, monkeypatch) -> None:
    message = f"Verify\n\n{trailer}\n"
    parsed = subprocess.run(["git", "interpret-trailers", "--parse"], input=message,
                            capture_output=True, text=True, check=True).stdout
    assert "rita@ex.org" in parsed.lower()  # git itself reads a trailer naming Rita
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           message, ALICE, "2026-02-02T09:00:00+08:00")
    assert kb.codes() == []
    monkeypatch.chdir(kb.root)
    result = CliRunner().invoke(main, ["history", DOC, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [event] = json.loads(result.output)["verifications"]
    assert "rita@ex.org" in event["reviewed_by"]


def test_verification_without_trailer_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", MALLORY, "2026-02-02T09:00:00+08:00")
    [f] = kb.check()
    assert f.code == "review-unattested" and "Reviewed-by: Name <rita@ex.org>" in f.message


def test_non_content_change_passes_content_change_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", RITA, "2026-02-02T09:00:00+08:00")
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00",
                    tags=("wheat", "fungus")), "Tag", ALICE, "2026-02-05T09:00:00+08:00")
    assert kb.check() == []
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00",
                    tags=("wheat", "fungus"), title="Wheat leaf rust"), "Retitle", ALICE,
           "2026-02-06T09:00:00+08:00")
    findings = kb.check()
    assert "review-unverified-change" in [f.code for f in findings]
    assert "title changed" in findings[0].message


def test_unverified_and_unchanged_documents_are_ignored(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="mallory@ex.org", at="2026-02-02T09:00:00+08:00"),
           "bad", MALLORY, "2026-02-02T09:00:00+08:00", rel="knowledge/crops/other.md")
    kb.put(doc_text("# changed\n"), "Edit unverified", ALICE, "2026-02-03T09:00:00+08:00")
    assert kb.check(base=kb.repo.commit("HEAD~1").hexsha) == []  # other.md not in range
    assert kb.codes() == ["review-not-reviewer", "review-self-review"]


def test_rename_into_other_reviewers_folder_fails(kb: KB) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", RITA, "2026-02-02T09:00:00+08:00")
    (kb.root / "knowledge/eng").mkdir()
    kb.repo.index.move([DOC, "knowledge/eng/rust.md"])
    kb.commit([], "Move", ALICE, "2026-02-03T09:00:00+08:00")
    findings = kb.check()
    assert [(f.path, f.code) for f in findings] == [("knowledge/eng/rust.md",
                                                     "review-not-reviewer")]


def test_bulk_import_commit_rules(kb: KB) -> None:
    """What the example knowledge's import must look like (see docs/review.md)."""
    text = doc_text(verified=True, by="rita@ex.org", at="2026-03-01T09:00:00+08:00")
    # author date before every verified_at, commit date after: passes
    kb.put(text, "Import\n\nReviewed-by: Rita Reviewer <rita@ex.org>", LEAD,
           "2026-02-28T09:00:00+08:00", committed="2026-11-29T09:00:00+08:00")
    assert kb.check() == []
    # authored after verified_at: stale
    kb.put(text.replace("Wheat rust", "Rust"), "Import later\n\nReviewed-by: Rita <rita@ex.org>",
           LEAD, "2026-11-29T09:00:00+08:00", rel="knowledge/crops/b.md")
    assert kb.codes() == ["review-stale-verification"]


def test_reviewers_come_from_the_base_revision(kb: KB) -> None:
    written(kb)
    (kb.root / "kb.toml").write_text(KB_TOML.replace('"Ray@ex.org"', '"mallory@ex.org"'))
    settings = kb.commit(["kb.toml"], "Make me a reviewer", MALLORY, "2026-02-02T08:00:00+08:00")
    kb.put(doc_text(verified=True, by="mallory@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", MALLORY, "2026-02-02T09:00:00+08:00")
    findings = kb.check()
    assert [(f.path, f.level, f.code) for f in findings] == [
        ("kb.toml", "warning", "review-config-changed"),
        (DOC, "error", "review-not-reviewer")]
    # once merged, the new settings are the base of the next change
    assert kb.check(base=settings) == []


def merge(kb: KB, branch: str) -> None:
    env = {"GIT_AUTHOR_NAME": "Lead", "GIT_AUTHOR_EMAIL": "lead@ex.org",
           "GIT_COMMITTER_NAME": "Lead", "GIT_COMMITTER_EMAIL": "lead@ex.org"}
    kb.repo.git.merge("--no-ff", "-m", f"Merge {branch}", branch, env=env)


def test_merge_commit_of_a_reviewed_branch_passes(kb: KB) -> None:
    written(kb)
    kb.repo.git.checkout("-b", "pr")
    kb.put(doc_text("# Rust\n\nSpray at first sign.\nRepeat after 7 days.\n"), "Edit", ALICE,
           "2026-02-02T09:00:00+08:00")
    kb.put(doc_text("# Rust\n\nSpray at first sign.\nRepeat after 7 days.\n", verified=True,
                    by="rita@ex.org", at="2026-02-03T09:00:00+08:00"), "Verify", RITA,
           "2026-02-03T09:00:00+08:00")
    kb.repo.git.checkout("main")
    kb.put(doc_text(tags=("wheat", "fungus")), "Tags on main", ALICE, "2026-02-04T09:00:00+08:00")
    merge(kb, "pr")  # combines main's tags with the branch's reviewed body
    assert "fungus" in (kb.root / DOC).read_text() and "7 days" in (kb.root / DOC).read_text()
    assert kb.check() == []


def test_merge_bringing_unreviewed_content_fails(kb: KB) -> None:
    written(kb)
    kb.repo.git.checkout("-b", "side")
    kb.put(doc_text("# Rust\n\nSpray at first sign.\nUse any fungicide.\n"), "Sneaky edit",
           ALICE, "2026-02-02T09:00:00+08:00")
    kb.repo.git.checkout("main")
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-03T09:00:00+08:00"), "Verify",
           RITA, "2026-02-03T09:00:00+08:00")
    merge(kb, "side")  # verified (main) + unreviewed body (side) in one file
    text = (kb.root / DOC).read_text()
    assert "verified_by: rita@ex.org" in text and "any fungicide" in text
    # one problem, one line: the merge (dated after verified_at) is not also "stale"
    assert kb.codes() == ["review-unverified-change"]


def test_check_and_pending_name_the_author_of_an_edit_a_merge_brought(kb: KB) -> None:
    """The unreviewed edit is Alice's; Lead only merged it: both commands name Alice."""
    written(kb)
    kb.repo.git.checkout("-b", "side")
    edit = kb.put(doc_text("# Rust\n\nSpray at first sign.\nUse any fungicide.\n"),
                  "Sneaky edit", ALICE, "2026-02-02T09:00:00+08:00")
    kb.repo.git.checkout("main")
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-03T09:00:00+08:00"), "Verify",
           RITA, "2026-02-03T09:00:00+08:00")
    merge(kb, "side")
    [finding] = kb.check()
    assert finding.code == "review-unverified-change"
    assert f"changed in {edit[:10]} by alice@ex.org" in finding.message
    [entry] = pending(load_config(kb.root))
    assert (entry["reason"], entry["git_author_email"], entry["commit"]) == (
        "changed-since-verification", "alice@ex.org", edit)


def test_stale_verification_is_judged_on_the_content_it_covers(kb: KB) -> None:
    written(kb)  # 2026-02-01T10:00+08:00
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-01-15T09:00:00+08:00"),
           "Verify", RITA, "2026-02-02T09:00:00+08:00")
    kb.put(doc_text("# Rust\n\nSpray twice.\n", verified=True, by="rita@ex.org",
                    at="2026-01-15T09:00:00+08:00"), "Edit", ALICE, "2026-02-03T09:00:00+08:00")
    findings = {f.code: f.message for f in kb.check()}
    assert sorted(findings) == ["review-stale-verification", "review-unverified-change"]
    assert "2026-02-01T10:00:00+08:00" in findings["review-stale-verification"]


def test_unknown_revision_is_a_usage_error(kb: KB) -> None:
    with pytest.raises(UsageError, match="unknown Git revision 'nope'"):
        check_range(load_config(kb.root), "nope")


def mailmapped(kb: KB) -> str:
    """The base revision maps Rita's old address to her reviewer address; returns it."""
    (kb.root / ".mailmap").write_text("# people\nRita Reviewer <rita@ex.org> Rita <RITA@old.org>\n",
                                      encoding="utf-8")
    return kb.commit([".mailmap"], "Mailmap", LEAD, "2026-01-02T00:00:00+00:00")


def test_mailmap_of_the_base_names_the_reviewer_as_git_log_use_mailmap_does(kb: KB) -> None:
    """Rita's commit under an old address is her own (as `git log --use-mailmap` shows),
    for `kb review check` and for `kb check` / pending alike; her content under that
    address is hers to no review; addresses match in any case."""
    base = mailmapped(kb)
    written(kb)
    kb.put(doc_text(verified=True, by="Rita@Ex.org", at="2026-02-03T09:00:00+08:00"), "Verify",
           Actor("Rita", "rita@OLD.org"), "2026-02-03T09:00:00+08:00")
    assert kb.codes(base) == []
    assert pending(load_config(kb.root)) == []
    kb.put(doc_text("# Rust\n\nSpray twice.\n"), "Edit", Actor("Rita", "rita@old.org"),
           "2026-02-04T09:00:00+08:00")
    kb.put(doc_text("# Rust\n\nSpray twice.\n", verified=True, by="rita@ex.org",
                    at="2026-02-05T09:00:00+08:00"), "Verify", RITA, "2026-02-05T09:00:00+08:00")
    assert kb.codes(base) == ["review-self-review"]


def test_a_mailmap_the_change_adds_makes_nobody_a_reviewer(kb: KB) -> None:
    base = kb.base
    written(kb)
    (kb.root / ".mailmap").write_text("Rita <rita@ex.org> <mallory@ex.org>\n", encoding="utf-8")
    kb.repo.index.add([".mailmap"])  # in the commit that verifies: its own base lacks it
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-03T09:00:00+08:00"), "Verify",
           MALLORY, "2026-02-03T09:00:00+08:00")
    assert kb.codes(base) == ["review-unattested"]
    assert [e["reason"] for e in pending(load_config(kb.root))] == ["verification-lapsed"]


def test_a_squash_merged_approval_is_one_finding_saying_why(kb: KB) -> None:
    """A pull request holding Alice's edit and Rita's approval, squash-merged by Alice as
    GitHub writes it: Rita's Reviewed-by trailer lands above the last paragraph, Rita is a
    co-author, and the squash is dated after verified_at. That was three errors with three
    pieces of advice (another reviewer, a Reviewed-by trailer, a fresh verified_at); it is one
    now, naming the squash merge and what to do (a merge commit passes: above)."""
    written(kb)
    body = "# Rust\n\nSpray at first sign.\nRepeat after 7 days.\n"
    kb.put(doc_text(body, verified=True, by="rita@ex.org", at="2026-02-03T09:00:00+08:00"),
           "Rust SOP (#3)\n\n* Edit rust\n\n* Verify rust\n\nReviewed-by: Rita Reviewer "
           "<rita@ex.org>\n\n---------\n\nCo-authored-by: Rita Reviewer <rita@ex.org>", ALICE,
           "2026-02-03T10:00:00+08:00")
    [f] = kb.check()
    assert (f.line, f.code) == (8, "review-self-review")
    assert f.message.startswith(f"rita@ex.org's verification was squash-merged into "
                                f"{kb.repo.head.commit.hexsha[:10]} by alice@ex.org")
    assert "merge reviewed pull requests with a merge commit" in f.message
