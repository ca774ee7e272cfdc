"""Each review problem is one line naming the file and the line that holds it, and `kb
check` (`verification-lapsed`) and `kb review check` name the same line: `verified_by` for
who reviewed (not a reviewer, their own writing, an unattested commit), the changed field
for a front-matter edit after review; `kb check` names changed body lines. Real
repositories with commits by several identities (tests/reviewkb.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from reviewkb import ALICE, DOC, KB, MALLORY, RITA, doc_text, git

from kbtools.cli import main

REVIEWED = dict(verified=True, by="rita@ex.org", at="2026-02-02T10:00:00+08:00")
BODY = "# Rust\n\nSpray at first sign.\n"


def run(kb: KB, *args: str) -> tuple[int, list[str]]:
    """`kb ARGS` in the repository: exit code and the lines naming a place in DOC."""
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, [ln for ln in res.output.splitlines() if ln.startswith(f"{DOC}:")]


def line_of(kb: KB, prefix: str, rel: str = DOC) -> int:
    lines = (kb.root / rel).read_text(encoding="utf-8").splitlines()
    return next(n for n, text in enumerate(lines, 1) if text.startswith(prefix))


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KB:
    repo = KB(tmp_path / "知识 库")  # a blank and Chinese in the repository's path
    monkeypatch.chdir(repo.root)
    return repo


def both(kb: KB) -> tuple[list[str], list[str]]:
    """(kb check's, kb review check's) lines about DOC; each exactly one."""
    code, checked = run(kb, "check")
    assert code == 0 and len(checked) == 1, checked
    code, judged = run(kb, "review", "check", "--base", kb.base)
    assert code == 1 and len(judged) == 1, judged
    return checked, judged


def at(found: list[str], line: int) -> bool:
    return found[0].startswith(f"{DOC}:{line}:1: ")


@pytest.mark.parametrize("who, author, code", [
    (MALLORY, ALICE, "review-not-reviewer"),  # verified by someone not in [review]
    (RITA, RITA, "review-self-review"),  # the reviewer wrote it
])
def test_who_reviewed_is_named_at_verified_by(kb: KB, who, author, code) -> None:
    kb.put(doc_text(), "Add rust SOP", author, "2026-02-01T10:00:00+08:00")
    kb.put(doc_text(**{**REVIEWED, "by": who.email}), "Verify", who,
           "2026-02-02T10:00:00+08:00")
    checked, judged = both(kb)
    line = line_of(kb, "verified_by:")
    assert at(checked, line) and at(judged, line), (checked, judged)
    assert "verification-lapsed" in checked[0] and code in judged[0]


def test_a_merge_carrying_the_trailer_does_not_attest_and_says_where(kb: KB) -> None:
    """The verifying commit is the side commit that set the fields (docs/review.md); a
    Reviewed-by trailer on the merge that brings it does not attest it: refused at the
    verified_by line."""
    kb.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    git(kb.root, "checkout", "-qb", "review")
    kb.put(doc_text(**REVIEWED), "Verify", ALICE, "2026-02-02T10:00:00+08:00")
    git(kb.root, "checkout", "-q", "main")
    git(kb.root, "merge", "--no-ff", "-q", "review", "-m",
        "Merge review\n\nReviewed-by: Rita Reviewer <rita@ex.org>", who="rita@ex.org")
    checked, judged = both(kb)
    line = line_of(kb, "verified_by:")
    assert at(checked, line) and at(judged, line) and "review-unattested" in judged[0]


@pytest.mark.parametrize("edit, field", [
    (dict(title="Wheat rust (revised)"), "title:"),
    (dict(title="小麦锈病"), "title:"),
    (dict(author="Bob"), "author:"),
])
def test_front_matter_edited_after_review_is_named_at_that_field(kb: KB, edit, field) -> None:
    kb.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    kb.put(doc_text(**REVIEWED), "Verify", RITA, "2026-02-02T10:00:00+08:00")
    kb.put(doc_text(**REVIEWED, **edit), "Edit", ALICE, "2026-02-03T10:00:00+08:00")
    checked, judged = both(kb)
    line = line_of(kb, field)
    assert at(checked, line) and at(judged, line), (checked, judged)
    assert f"front matter {field[:-1]}" in checked[0]
    assert "review-unverified-change" in judged[0] and f"{field[:-1]} changed" in judged[0]


def test_body_edited_after_review_is_named_at_the_changed_lines(kb: KB) -> None:
    kb.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    kb.put(doc_text(**REVIEWED), "Verify", RITA, "2026-02-02T10:00:00+08:00")
    kb.put(doc_text(BODY + "\n再喷一次。\n", **REVIEWED), "More", ALICE,
           "2026-02-03T10:00:00+08:00")
    checked, judged = both(kb)
    first_new = line_of(kb, "Spray at first sign.") + 1  # the blank line before 再喷一次
    last = len((kb.root / DOC).read_text(encoding="utf-8").splitlines())
    assert at(checked, first_new), checked
    assert f"lines {first_new}-{last} of this verified document" in checked[0]  # not last+1
    assert at(judged, line_of(kb, "verified:")) and "body changed" in judged[0]


@pytest.mark.parametrize("after, says", [
    ("# Rust\n\nSpray at the first sign.\n\n再喷一次。\n", "lines {n}-{m}"),  # edited, added
    ("# Rust\n\n发现病斑立即喷药。\n", "line {n}"),  # one line rewritten
    ("# Rust\n", "lines deleted after line {h}"),  # only deletions
])
def test_review_check_says_which_lines_changed_after_review(kb: KB, after: str,
                                                            says: str) -> None:
    """The CI gate names the lines a reviewer must look at, as `kb check` does, numbered in
    the file as committed at head (its finding stays at the `verified` line)."""
    kb.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    kb.put(doc_text(**REVIEWED), "Verify", RITA, "2026-02-02T10:00:00+08:00")
    kb.put(doc_text(after, **REVIEWED), "Edit", MALLORY, "2026-02-03T10:00:00+08:00")
    heading = line_of(kb, "# Rust")
    total = len((kb.root / DOC).read_text(encoding="utf-8").splitlines())
    code, judged = run(kb, "review", "check", "--base", kb.base)
    assert code == 1 and len(judged) == 1 and at(judged, line_of(kb, "verified:")), judged
    expected = says.format(n=heading + 2, m=total, h=heading)
    assert "review-unverified-change: body changed" in judged[0]
    assert f"({expected})" in judged[0], judged


def test_non_content_edit_and_a_rename_keep_the_review(kb: KB) -> None:
    """`tags` is a non-content field (reviewkb's kb.toml); `git mv` to a Chinese name with
    a blank: the review follows the rename, nothing is pending."""
    kb.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    kb.put(doc_text(**REVIEWED), "Verify", RITA, "2026-02-02T10:00:00+08:00")
    kb.put(doc_text(**REVIEWED, tags=("wheat", "小麦")), "Tag", ALICE,
           "2026-02-03T10:00:00+08:00")
    new = "knowledge/crops/小麦 锈病.md"
    git(kb.root, "mv", DOC, new)
    git(kb.root, "commit", "-qm", "Rename")
    res = CliRunner().invoke(main, ["check"])
    assert res.exit_code == 0 and "0 warnings" in res.output, res.output
    res = CliRunner().invoke(main, ["review", "pending"])
    assert res.exit_code == 0 and "0 documents awaiting review" in res.output, res.output
    res = CliRunner().invoke(main, ["review", "check", "--base", kb.base])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["history", new])  # the old name of the reviewed commit
    assert res.exit_code == 0, res.output
    said = res.stdout.split("verification events:")[0].splitlines()
    assert said[2] == "    no content change"  # the rename itself, under the new name
    assert f"    verified by rita@ex.org (as {DOC})" in said


@pytest.mark.parametrize("body, says", [
    # the last paragraph cut: the lines are gone from the end, line 16 is unchanged
    ("# Rust\n\nSpray at first sign.\n", "lines deleted at the end (after line {last})"),
    # a paragraph cut from the middle: between the lines around it
    ("# Rust\n\n二次喷药。\n", "lines deleted between lines {before} and {after}"),
])
def test_lines_deleted_after_review_are_named_as_deleted(kb: KB, body, says) -> None:
    reviewed = "# Rust\n\nSpray at first sign.\n\n二次喷药。\n"
    kb.put(doc_text(reviewed), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    kb.put(doc_text(reviewed, **REVIEWED), "Verify", RITA, "2026-02-02T10:00:00+08:00")
    kb.put(doc_text(body, **REVIEWED), "Cut", ALICE, "2026-02-03T10:00:00+08:00")
    code, checked = run(kb, "check")
    assert code == 0 and len(checked) == 1, checked
    last = len((kb.root / DOC).read_text(encoding="utf-8").splitlines())
    title = line_of(kb, "# Rust")
    expected = says.format(last=last, before=title + 1, after=title + 2)
    assert f"{expected} of this verified document: changed after review" in checked[0], checked


def pending_lines(kb: KB) -> list[tuple[str, int | None]]:
    """`kb review pending`'s place for each document, as printed and in --json."""
    res = CliRunner().invoke(main, ["review", "pending"])
    assert res.exit_code == 0, res.output
    printed = [ln.split()[2] for ln in res.stdout.splitlines()]
    rows = json.loads(CliRunner().invoke(main, ["review", "pending", "--json"]).stdout)
    return list(zip(printed, [r["line"] for r in rows], strict=True))


def test_pending_and_the_build_name_the_line_kb_check_names(kb: KB) -> None:
    """`kb review pending` and the build's "verification lapsed" named the file only;
    `kb check` names `path:line:col`. Each names the line `kb check` does: `verified_by`
    for who reviewed, the first changed line of a body edited after review, the field of
    a front matter edited after review, and `verified` for an unverified document."""
    kb.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    line = line_of(kb, "verified:")
    assert pending_lines(kb) == [(f"{DOC}:{line}", line)]  # unverified
    kb.put(doc_text(**{**REVIEWED, "by": MALLORY.email}), "Verify", MALLORY,
           "2026-02-02T10:00:00+08:00")
    line = line_of(kb, "verified_by:")
    assert run(kb, "check")[1][0].startswith(f"{DOC}:{line}:1: ")
    assert pending_lines(kb) == [(f"{DOC}:{line}", line)]
    res = CliRunner().invoke(main, ["build"])
    assert res.exit_code == 0, res.output
    assert f"verification lapsed: {DOC}:{line}: 1 of 1 passages" in res.stderr, res.stderr
    kb.put(doc_text(**REVIEWED), "Verify", RITA, "2026-02-03T10:00:00+08:00")
    assert pending_lines(kb) == []
    kb.put(doc_text(BODY + "\n再喷一次。\n", **REVIEWED), "More", ALICE,
           "2026-02-04T10:00:00+08:00")
    line = line_of(kb, "Spray at first sign.") + 1
    assert run(kb, "check")[1][0].startswith(f"{DOC}:{line}:1: ")
    assert pending_lines(kb) == [(f"{DOC}:{line}", line)]  # changed-since-verification
    kb.put(doc_text(**REVIEWED, title="小麦锈病"), "Retitle", ALICE, "2026-02-05T10:00:00+08:00")
    line = line_of(kb, "title:")
    assert pending_lines(kb) == [(f"{DOC}:{line}", line)]
    (kb.root / DOC).write_text(doc_text(BODY + "改了。\n"), encoding="utf-8")
    assert pending_lines(kb) == [(DOC, None)]  # uncommitted: no one line
