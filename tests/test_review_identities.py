"""Who a reviewer is, however a team writes them: kb.toml `[review.reviewers]` entries,
`verified_by` and `kb review approve --as` written as an address (`rita@ex.org`) or as a
person (`李明 <li.ming@ex.org>`, `Rita Reviewer <RITA@ex.org>`, `王芳（wang.fang@ex.org）`,
as Chinese input writes the brackets) all name the same address. Before, an entry written
as `Name <email>` named nobody: every review by that reviewer was refused as
`review-not-reviewer` and served as unverified. The address alone decides, never the name.
Real repositories, the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from git.util import Actor
from reviewkb import ALICE, DOC, KB, LEAD, MALLORY, as_identity, doc_text, written

from kbtools.cli import main
from kbtools.review.verification import address

LI = Actor("李明", "li.ming@ex.org")
WANG = Actor("Wang Fang", "wang.fang@ex.org")
PEOPLE_TOML = """\
[review]
non_content_fields = ["tags"]

[review.reviewers]
"knowledge/**" = ["李明 <Li.Ming@ex.org>", "Rita Reviewer <RITA@ex.org>", "王芳（wang.fang@ex.org）"]
"""
NOW = "2026-02-02T10:00:00+08:00"


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    kb = KB(tmp_path / "kb")
    (kb.root / "kb.toml").write_text(PEOPLE_TOML, encoding="utf-8")
    kb.base = kb.commit(["kb.toml"], "Reviewers by name", LEAD, "2026-01-02T00:00:00+00:00")
    written(kb)
    return kb


def kb_cli(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("written_as, expected", [
    ("rita@ex.org", "rita@ex.org"),
    ("  RITA@Ex.Org ", "rita@ex.org"),
    ("Rita Reviewer <RITA@ex.org>", "rita@ex.org"),
    ("李明 <li.ming@ex.org>", "li.ming@ex.org"),
    ("李明 < li.ming@ex.org >", "li.ming@ex.org"),
    ("李明＜li.ming@ex.org＞", "li.ming@ex.org"),
    ("王芳（wang.fang@ex.org）", "wang.fang@ex.org"),
    ("wang.fang@ex.org (王芳)", "wang.fang@ex.org"),
    ("mailto:rita@ex.org", "rita@ex.org"),
    ("o'brien@ex.org", "o'brien@ex.org"),  # a plain address keeps every character
    ("a@ex.org, b@ex.org", "a@ex.org, b@ex.org"),  # two people: no one address
    ("Rita", "rita"),
    ("", ""),
])
def test_an_identity_is_read_as_its_address(written_as: str, expected: str) -> None:
    assert address(written_as) == expected


@pytest.mark.parametrize("reviewer, by", [
    (LI, "li.ming@ex.org"),
    (LI, "李明 <li.ming@ex.org>"),  # verified_by written by hand as a person
    (WANG, "Wang.Fang@ex.org"),
])
def test_a_reviewer_listed_by_name_and_address_reviews(kb: KB, monkeypatch, reviewer: Actor,
                                                       by: str) -> None:
    kb.put(doc_text(verified=True, by=by, at=NOW), "Verify", reviewer, NOW)
    assert kb.check() == []
    code, out = kb_cli(kb.root, monkeypatch, "check")
    assert code == 0 and "verification-lapsed" not in out, out
    code, out = kb_cli(kb.root, monkeypatch, "history", DOC)
    assert code == 0 and "(reviewer's own commit)" in out, out


def test_approve_by_a_reviewer_listed_by_name(kb: KB, monkeypatch) -> None:
    as_identity(monkeypatch, LI)
    code, out = kb_cli(kb.root, monkeypatch, "review", "approve", DOC, "--json")
    assert code == 0, out
    assert json.loads(out)["approver"] == "li.ming@ex.org"
    assert kb.check() == []


def test_approve_as_a_person_writes_their_address(kb: KB, monkeypatch) -> None:
    """`--as "王芳 <wang.fang@ex.org>"`: verified_by is the address, the trailer names the
    person as written."""
    as_identity(monkeypatch, ALICE)
    code, out = kb_cli(kb.root, monkeypatch, "review", "approve", DOC, "--as",
                       "王芳 <Wang.Fang@ex.org>")
    assert code == 0, out
    assert "verified_by: wang.fang@ex.org\n" in (kb.root / DOC).read_text(encoding="utf-8")
    message = kb.repo.head.commit.message
    assert "\n\nReviewed-by: 王芳 <wang.fang@ex.org>\nKb-Reviewed-Content: sha256:" in message
    assert kb.check() == []


@pytest.mark.parametrize("by, code", [
    ("Mallory <mallory@ex.org>", "review-not-reviewer"),
    ("李明 <mallory@ex.org>", "review-not-reviewer"),  # a reviewer's name, another address
])
def test_the_address_decides_not_the_name(kb: KB, monkeypatch, by: str, code: str) -> None:
    kb.put(doc_text(verified=True, by=by, at=NOW), "Verify", MALLORY, NOW)
    assert [f.code for f in kb.check()] == [code]
    as_identity(monkeypatch, MALLORY)
    exit_code, out = kb_cli(kb.root, monkeypatch, "review", "approve", DOC, "--as",
                            "李明 <mallory@ex.org>")
    assert exit_code == 1 and "mallory@ex.org is not a reviewer" in out, out


def test_self_review_by_a_reviewer_listed_by_name_is_refused(tmp_path: Path,
                                                              monkeypatch) -> None:
    """Four eyes hold for a reviewer named as a person: 李明 wrote it, so 李明 may not
    verify it, however verified_by spells them."""
    kb = KB(tmp_path / "kb")
    (kb.root / "kb.toml").write_text(PEOPLE_TOML, encoding="utf-8")
    kb.base = kb.commit(["kb.toml"], "Reviewers by name", LEAD, "2026-01-02T00:00:00+00:00")
    kb.put(doc_text(), "添加锈病", LI, "2026-02-01T10:00:00+08:00")
    kb.put(doc_text(verified=True, by="李明 <LI.MING@ex.org>", at=NOW), "Verify", LI, NOW)
    assert [f.code for f in kb.check()] == ["review-self-review"]


@pytest.mark.parametrize("entry, says", [
    ("李明", "names no email address"),
    ("Rita Reviewer", "names no email address"),
    ("rita@ex.org, ray@ex.org", "names 2 addresses"),
])
def test_a_reviewer_entry_naming_no_one_address_is_refused_at_its_line(
        tmp_path: Path, monkeypatch, entry: str, says: str) -> None:
    """Such an entry matched no reviewer, silently: every review it was meant for was
    refused. kb.toml is refused instead, in one line naming the line of the pattern."""
    kb = KB(tmp_path / "kb")
    (kb.root / "kb.toml").write_text(
        '[review]\n\n[review.reviewers]\n"knowledge/**" = ["ray@ex.org"]\n'
        f'"knowledge/crops/**" = ["rita@ex.org", "{entry}"]\n', encoding="utf-8")
    for command in (["review", "pending"], ["check"]):
        code, out = kb_cli(kb.root, monkeypatch, *command)
        assert code == 1 and out.count("\n") == 1, out
        assert "kb.toml:5: review.reviewers.knowledge/crops/**: " in out and says in out, out


@pytest.mark.parametrize("trailer", ["Reviewed-by: 李明＜li.ming@ex.org＞",
                                     "Reviewed-by: 李明 ＜ Li.Ming@ex.org ＞"])
def test_a_trailer_typed_with_full_width_brackets_attests(kb: KB, trailer: str) -> None:
    """Chinese input types ＜＞; git reads the line as a Reviewed-by trailer all the same."""
    kb.put(doc_text(verified=True, by="li.ming@ex.org", at=NOW),
           f"审核锈病\n\n{trailer}\n", ALICE, NOW)
    assert kb.check() == []


def test_a_co_author_typed_with_full_width_brackets_may_not_review(kb: KB) -> None:
    kb.put(doc_text("# Rust\n\nSpray twice.\n"), "补充\n\nCo-authored-by: 李明＜li.ming@ex.org＞\n",
           ALICE, "2026-02-01T12:00:00+08:00")
    kb.put(doc_text("# Rust\n\nSpray twice.\n", verified=True, by="li.ming@ex.org", at=NOW),
           "审核", LI, NOW)
    assert [f.code for f in kb.check()] == ["review-self-review"]



def test_verified_by_a_name_alone_says_it_names_no_address(kb: KB) -> None:
    kb.put(doc_text(verified=True, by="李明", at=NOW), "审核", LI, NOW)
    finding = next(f for f in kb.check() if f.code == "review-not-reviewer")
    assert finding.message.startswith(
        f"verified_by 李明 names no email address for {DOC} (reviewers: li.ming@ex.org, ")


@pytest.mark.parametrize("by, kind, example", [
    ("[li.ming@ex.org]", "list", "li.ming@ex.org"),
    ("[李明 <li.ming@ex.org>, wang.fang@ex.org]", "list", "李明 <li.ming@ex.org>"),
    ("{li.ming: ex.org}", "dict", "li.ming@ex.org"), ("12345", "int", "li.ming@ex.org")])
def test_verified_by_not_written_as_text_is_one_finding(kb: KB, by: str, kind: str,
                                                        example: str) -> None:
    """`verified_by: [li.ming@ex.org]` (a list, as tags are written) by the reviewer's own
    commit was two findings that misread it: "verified_by ['li.ming@ex.org'] is not a
    reviewer" and a missing "Reviewed-by: Name <['li.ming@ex.org']>" trailer."""
    kb.put(doc_text(verified=True, by=by, at=NOW), "审核", LI, NOW)
    findings = kb.check()
    assert [(f.code, f.line) for f in findings] == [("review-not-reviewer", 8)], findings
    assert findings[0].message == (f"verified_by must be one reviewer's email, written as "
                                   f"text (verified_by: {example}), not a {kind}")
