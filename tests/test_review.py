"""Review policy, reviewers, approve/pending/diff: real Git repositories in tmp_path."""

from __future__ import annotations

import json
import math
import subprocess
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from git.util import Actor
from reviewkb import ALICE, DOC, KB, KB_TOML, LEAD, MALLORY, RAY, RITA, doc_text, written

from kbtools.cli import main
from kbtools.commands import review as review_cmd
from kbtools.config import load_config
from kbtools.errors import ReviewError, UsageError
from kbtools.review.approve import approve, set_verification
from kbtools.review.diff import review_diff
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


# ---------------------------------------------------------------- set_verification


def test_set_verification_edits_only_those_lines() -> None:
    raw = doc_text(title="A  title # kept").replace("\n", "\r\n") + "trailing  \r\n"
    out = set_verification("\ufeff" + raw, "rita@ex.org", "2026-05-01T10:00:00+08:00")
    assert out.startswith("\ufeff---\r\n")
    old, new = raw.split("\r\n"), out[1:].split("\r\n")
    assert [ln for ln in new if not ln.startswith("verified")] == [
        ln for ln in old if not ln.startswith("verified")]
    assert new[6:9] == ["verified: true", "verified_by: rita@ex.org",
                        'verified_at: "2026-05-01T10:00:00+08:00"']


def test_set_verification_replaces_existing_values() -> None:
    raw = doc_text(verified=True, by="old@ex.org", at="2026-01-01T00:00:00Z")
    out = set_verification(raw, "rita@ex.org", "2026-05-01T10:00:00+08:00")
    assert out.count("verified_by:") == 1 and "old@ex.org" not in out
    assert out.replace("rita@ex.org", "old@ex.org").replace(
        "2026-05-01T10:00:00+08:00", "2026-01-01T00:00:00Z") == raw
    with pytest.raises(ValueError):
        set_verification("no front matter\n", "a@b.c", "x")


# ---------------------------------------------------------------- approve, pending, diff


def as_identity(monkeypatch: pytest.MonkeyPatch, actor: Actor) -> None:
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", actor.name)
        monkeypatch.setenv(f"GIT_{who}_EMAIL", actor.email)


def test_approve_commits_with_trailer_and_passes_check(kb: KB, monkeypatch) -> None:
    written(kb)
    as_identity(monkeypatch, RITA)
    before = (kb.root / DOC).read_text()
    result = approve(load_config(kb.root), [DOC])
    head = kb.repo.head.commit
    assert result.commit == head.hexsha and result.docs == (DOC,)
    assert head.message.rstrip().endswith("Reviewed-by: Rita Reviewer <rita@ex.org>")
    assert head.author.email == "rita@ex.org"
    after = (kb.root / DOC).read_text()
    assert "verified: true\nverified_by: rita@ex.org\nverified_at: \"" in after
    assert after.replace("verified: true", "verified: false").split("\n")[:7] == \
        before.split("\n")[:7]
    assert not kb.repo.is_dirty(untracked_files=True)
    assert kb.check() == []


def test_approve_while_another_git_holds_the_index_fails_in_one_line(kb: KB, monkeypatch) -> None:
    """Another author's `git commit` running at that moment (its index.lock): the error was
    GitPython's dump, the whole command line and git's wrapped paragraph over 12 lines."""
    written(kb)
    as_identity(monkeypatch, RITA)
    before = (kb.root / DOC).read_bytes()
    head = kb.repo.head.commit.hexsha
    (Path(kb.repo.git_dir) / "index.lock").write_text("")
    with pytest.raises(ReviewError) as err:
        approve(load_config(kb.root), [DOC])
    message = str(err.value)
    assert "\n" not in message and "cmdline" not in message
    assert "commit failed, files restored: Unable to create" in message
    assert "index.lock': File exists. Another git process seems to be running" in message
    assert (kb.root / DOC).read_bytes() == before and kb.repo.head.commit.hexsha == head


def test_approve_as_other_reviewer_commits_only_the_doc(kb: KB, monkeypatch) -> None:
    written(kb)
    (kb.root / "notes.txt").write_text("staged, not part of the review\n")
    kb.repo.index.add(["notes.txt"])
    as_identity(monkeypatch, LEAD)
    approve(load_config(kb.root), [DOC], "ray@ex.org")
    head = kb.repo.head.commit
    assert list(head.stats.files) == [DOC]
    assert "Reviewed-by: ray <ray@ex.org>" in head.message
    assert kb.repo.index.diff("HEAD")[0].a_path == "notes.txt"  # still staged
    assert kb.check() == []


def test_approve_several_documents_in_one_commit(kb: KB, monkeypatch) -> None:
    written(kb)
    kb.put(doc_text(title="Other"), "Add other", ALICE, "2026-02-01T11:00:00+08:00",
           rel="knowledge/crops/other.md")
    as_identity(monkeypatch, RAY)
    monkeypatch.chdir(kb.root / "knowledge" / "crops")  # paths relative to the cwd work too
    result = approve(load_config(kb.root), ["rust.md", "other.md"])
    assert result.docs == (DOC, "knowledge/crops/other.md")
    assert sorted(kb.repo.head.commit.stats.files) == ["knowledge/crops/other.md", DOC]
    assert "Review: verify 2 documents" in kb.repo.head.commit.message
    assert kb.check() == []


def test_approve_refuses_self_approval(kb: KB, monkeypatch) -> None:
    kb.put(doc_text(), "Add", RITA, "2026-02-01T10:00:00+08:00")
    as_identity(monkeypatch, RITA)
    head = kb.repo.head.commit.hexsha
    with pytest.raises(ReviewError, match="cannot approve their own change"):
        approve(load_config(kb.root), [DOC])
    assert kb.repo.head.commit.hexsha == head and not kb.repo.is_dirty()


def test_approve_refuses_a_co_author_named_as_git_spells_the_trailer(kb: KB, monkeypatch
                                                                     ) -> None:
    kb.put(doc_text(), "Add\n\nCo-Authored-By : Rita R\n <RITA@ex.org>", ALICE,
           "2026-02-01T10:00:00+08:00")
    as_identity(monkeypatch, RITA)
    head = kb.repo.head.commit.hexsha
    with pytest.raises(ReviewError, match="cannot approve their own change"):
        approve(load_config(kb.root), [DOC])
    assert kb.repo.head.commit.hexsha == head and not kb.repo.is_dirty()
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify\n\nReviewed-by: Rita <rita@ex.org>", ALICE, "2026-02-02T09:00:00+08:00")
    assert kb.codes() == ["review-self-review"]


def test_approve_refuses_non_reviewer_and_bad_states(kb: KB, monkeypatch) -> None:
    written(kb)
    cfg = load_config(kb.root)
    as_identity(monkeypatch, MALLORY)
    with pytest.raises(ReviewError, match="mallory@ex.org is not a reviewer for this path"):
        approve(cfg, [DOC])
    as_identity(monkeypatch, RITA)
    (kb.root / "knowledge/crops/new.md").write_text(doc_text())
    with pytest.raises(ReviewError, match="not committed"):
        approve(cfg, [DOC, "knowledge/crops/new.md"])
    assert "verified: false" in (kb.root / DOC).read_text()  # nothing written
    with pytest.raises(ReviewError, match="no such document") as missing:
        approve(cfg, ["knowledge/crops/nowhere.md"])
    assert "not committed" not in str(missing.value)
    (kb.root / DOC).write_text(doc_text("# edited\n"))
    with pytest.raises(ReviewError, match="uncommitted changes"):
        approve(cfg, [DOC])
    kb.repo.git.checkout("--", DOC)
    approve(cfg, [DOC])
    with pytest.raises(ReviewError, match="already verified by rita@ex.org"):
        approve(cfg, [DOC])


def test_a_verification_that_is_no_review_can_be_approved(kb: KB, monkeypatch) -> None:
    """A knowledge folder moved into a new repository arrives `verified: true` in a commit
    that is no review (Mallory's, no trailer). `kb check` warns verification-lapsed and says
    to run `kb review approve`, but approve refused ("already verified ... nothing changed
    since") and `kb review pending` listed nothing: the document stayed unverified."""
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Import the knowledge folder", MALLORY, "2026-02-02T09:00:00+08:00")
    cfg = load_config(kb.root)
    rows = pending(cfg)
    assert [(r["doc"], r["reason"], r["git_author_email"]) for r in rows] == [
        (DOC, "verification-lapsed", "mallory@ex.org")]
    as_identity(monkeypatch, RITA)
    result = approve(cfg, [DOC])
    assert kb.repo.head.commit.hexsha == result.commit and kb.check() == []
    assert pending(cfg) == []
    with pytest.raises(ReviewError, match="already verified by rita@ex.org"):
        approve(cfg, [DOC])


def test_a_self_review_is_not_approved_again_by_its_reviewer(kb: KB, monkeypatch) -> None:
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Add and verify", RITA, "2026-02-02T09:00:00+08:00")
    cfg = load_config(kb.root)
    assert [r["reason"] for r in pending(cfg)] == ["verification-lapsed"]
    as_identity(monkeypatch, RITA)
    with pytest.raises(ReviewError, match="cannot approve their own change"):
        approve(cfg, [DOC])
    as_identity(monkeypatch, RAY)
    approve(cfg, [DOC])
    assert kb.check() == [] and pending(cfg) == []


def test_pending_lists_unverified_and_changed_oldest_first(kb: KB, monkeypatch) -> None:
    written(kb)
    kb.put(doc_text(title="Newer"), "Add newer", RAY, "2026-03-01T10:00:00+08:00",
           rel="knowledge/crops/newer.md")
    rows = pending(load_config(kb.root))
    assert [(r["doc"], r["reason"], r["git_author_email"]) for r in rows] == [
        (DOC, "unverified", "alice@ex.org"), ("knowledge/crops/newer.md", "unverified",
                                              "ray@ex.org")]
    assert rows[0]["age_days"] > rows[1]["age_days"] > 0
    as_identity(monkeypatch, RITA)
    approve(load_config(kb.root), [DOC])
    assert [r["doc"] for r in pending(load_config(kb.root))] == ["knowledge/crops/newer.md"]
    kb.put((kb.root / DOC).read_text().replace("first sign", "second sign"), "Edit", ALICE,
           "2026-11-01T10:00:00+08:00")
    rows = pending(load_config(kb.root))
    assert (rows[-1]["doc"], rows[-1]["reason"]) == (DOC, "changed-since-verification")
    assert rows[-1]["since"] == "2026-11-01T10:00:00+08:00" and rows[-1]["author"] == "Alice"
    (kb.root / "knowledge/crops/draft.md").write_text(doc_text())
    assert ("knowledge/crops/draft.md", "uncommitted") in [
        (r["doc"], r["reason"]) for r in pending(load_config(kb.root))]


def test_pending_age_of_a_commit_dated_ahead_is_zero(kb: KB, monkeypatch) -> None:
    """`kb review pending` showed "-29.8d" for a commit dated after the reviewer's clock (an
    author's skewed clock, or a device's that is behind)."""
    written(kb)
    kb.put(doc_text(title="Ahead"), "Add ahead", RAY, "2026-03-01T10:00:00+08:00",
           rel="knowledge/crops/ahead.md")
    now = datetime(2026, 2, 15, 12, 0, tzinfo=UTC)  # after the first commit, before the second
    rows = {r["doc"]: r for r in pending(load_config(kb.root), now=now)}
    ahead = rows["knowledge/crops/ahead.md"]
    assert ahead["age_days"] == 0.0 and ahead["since"] == "2026-03-01T10:00:00+08:00"
    assert math.copysign(1, ahead["age_days"]) == 1  # not -0.0 either
    assert rows[DOC]["age_days"] > 0
    monkeypatch.chdir(kb.root)
    monkeypatch.setattr(review_cmd, "pending_docs", lambda cfg: pending(cfg, now=now))
    res = CliRunner().invoke(main, ["review", "pending"])
    assert res.exit_code == 0, res.output
    assert "-" not in "".join(line.split()[0] for line in res.stdout.splitlines())
    assert "    0.0d  unverified" in res.stdout


def test_review_diff_since_verification(kb: KB, monkeypatch) -> None:
    written(kb)
    cfg = load_config(kb.root)
    first = review_diff(cfg, DOC)
    assert first["verification"] is None and "+Spray at first sign." in first["diff"]
    as_identity(monkeypatch, RITA)
    approve(cfg, [DOC])
    assert review_diff(cfg, DOC)["changed"] is False
    text = (kb.root / DOC).read_text().replace("first sign", "second sign")
    (kb.root / DOC).write_text(text.replace("title: Wheat rust", "title: Rust"))
    result = review_diff(cfg, DOC)
    assert "-Spray at first sign.\n+Spray at second sign." in result["diff"]
    assert result["front_matter"] == {"title": {"old": "Wheat rust", "new": "Rust"}}
    assert result["verification"]["verified_by"] == "rita@ex.org"


def test_review_diff_names_the_document_as_it_was_verified(kb: KB, monkeypatch) -> None:
    written(kb)
    cfg = load_config(kb.root)
    as_identity(monkeypatch, RITA)
    approve(cfg, [DOC])
    reviewed = kb.repo.head.commit.hexsha[:10]
    new = "knowledge/crops/锈病 [v2].md"
    kb.repo.git.mv(DOC, new)
    kb.commit([new], "Rename", ALICE, "2026-03-01T09:00:00+08:00")
    (kb.root / new).write_text((kb.root / new).read_text().replace("first", "second"))
    result = review_diff(cfg, new)
    assert result["verification"]["path"] == DOC
    assert result["diff"].startswith(f"--- {DOC}@{reviewed} (verified by rita@ex.org")
    assert f"+++ {new} (working tree)" in result["diff"]


# ---------------------------------------------------------------- CLI


def run(kb: KB, monkeypatch, *args: str):
    monkeypatch.chdir(kb.root)
    return CliRunner().invoke(main, list(args))


def test_cli_check_pass_fail_and_json(kb: KB, monkeypatch) -> None:
    written(kb)
    kb.put(doc_text(verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", RITA, "2026-02-02T09:00:00+08:00")
    ok = run(kb, monkeypatch, "review", "check", "--base", kb.base)
    assert ok.exit_code == 0 and ok.stdout == ""
    assert "1 changed document, 0 errors, 0 warnings" in ok.stderr
    kb.put(doc_text("# x\n", verified=True, by="rita@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Edit", ALICE, "2026-02-03T09:00:00+08:00")
    bad = run(kb, monkeypatch, "review", "check", "--base", kb.base)
    assert bad.exit_code == 1
    assert bad.stdout.startswith(f"{DOC}:7:1: error: review-unverified-change: body changed")
    assert "kb: error: review check: 1 changed document, 1 error, 0 warnings" in bad.stderr
    js = run(kb, monkeypatch, "review", "check", "--base", kb.base, "--json")
    assert js.exit_code == 1
    assert [d["code"] for d in json.loads(js.stdout)] == ["review-unverified-change"]
    assert set(json.loads(js.stdout)[0]) == {"path", "line", "col", "level", "code", "message"}


def test_cli_check_errors(kb: KB, monkeypatch, tmp_path: Path) -> None:
    bad = run(kb, monkeypatch, "review", "check", "--base", "nope")
    assert bad.exit_code == 2 and "unknown Git revision 'nope'" in bad.stderr
    missing = run(kb, monkeypatch, "review", "check")
    assert missing.exit_code == 2 and "--base" in missing.stderr
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    out = CliRunner().invoke(main, ["review", "check", "--base", "HEAD"])
    assert out.exit_code == 2 and "no kb.toml here or in any folder above" in out.stderr
    (plain / "kb.toml").write_text("")
    out = CliRunner().invoke(main, ["review", "check", "--base", "HEAD"])
    assert out.exit_code == 1 and "not inside a Git repository" in out.stderr


def test_cli_pending_diff_approve(kb: KB, monkeypatch) -> None:
    written(kb)
    out = run(kb, monkeypatch, "review", "pending")
    assert out.exit_code == 0
    assert f"unverified                  {DOC}  (Alice, committed by alice@ex.org)" in out.stdout
    rows = json.loads(run(kb, monkeypatch, "review", "pending", "--json").stdout)
    assert rows[0]["doc"] == DOC and rows[0]["reason"] == "unverified"
    d = run(kb, monkeypatch, "review", "diff", DOC)
    assert d.exit_code == 0 and "+Spray at first sign." in d.stdout
    assert run(kb, monkeypatch, "review", "diff", "knowledge/none.md").exit_code == 1
    as_identity(monkeypatch, MALLORY)
    refused = run(kb, monkeypatch, "review", "approve", DOC)
    assert refused.exit_code == 1
    assert f"kb: error: {DOC}: mallory@ex.org is not a reviewer" in refused.stderr
    as_identity(monkeypatch, ALICE)
    self_ = run(kb, monkeypatch, "review", "approve", DOC, "--as", "rita@ex.org", "--json")
    assert self_.exit_code == 0, self_.output
    assert json.loads(self_.stdout)["approver"] == "rita@ex.org"
    # Alice committed it for Rita (trailer); the policy accepts it
    assert run(kb, monkeypatch, "review", "check", "--base", kb.base).exit_code == 0
    none = run(kb, monkeypatch, "review", "approve")
    assert none.exit_code == 2 and "Missing argument" in none.stderr


def test_a_kb_toml_saved_by_notepad_is_read(kb: KB) -> None:
    """Notepad saves kb.toml with a UTF-8 byte-order mark and CRLF: its reviewers still
    count (tomllib refused the mark as an "Invalid statement" at line 1)."""
    (kb.root / "kb.toml").write_bytes(b"\xef\xbb\xbf" + KB_TOML.replace("\n", "\r\n").encode())
    base = kb.commit(["kb.toml"], "Saved on Windows", LEAD, "2026-01-02T00:00:00+00:00")
    written(kb)
    kb.put(doc_text(verified=True, by="ray@ex.org", at="2026-02-02T09:00:00+08:00"),
           "Verify", RAY, "2026-02-02T09:00:00+08:00")
    assert kb.check(base=base) == []
    assert load_config(kb.root).data["review"]["reviewers"] == \
        tomllib.loads(KB_TOML)["review"]["reviewers"]
