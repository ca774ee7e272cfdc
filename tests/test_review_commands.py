"""`kb review` commands on real repositories: approve (setting the verification fields and
committing with a trailer), pending, diff, and the CLI's check, pending, diff and approve.
The review policy itself (who may verify, what lapses a verification) is tests/test_review.py."""

from __future__ import annotations

import json
import math
import tomllib
from datetime import UTC, datetime
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
from kbtools.commands import review as review_cmd
from kbtools.config import load_config
from kbtools.corpus import read_doc
from kbtools.errors import ReviewError
from kbtools.provenance import state_from_text
from kbtools.review.approve import approve, set_verification
from kbtools.review.diff import review_diff
from kbtools.review.lapse import review_coverage
from kbtools.review.pending import pending
from kbtools.review.verification import content_trailer


@pytest.fixture
def kb(tmp_path: Path) -> KB:
    return KB(tmp_path / "kb")


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


def test_approve_commits_with_trailer_and_passes_check(kb: KB, monkeypatch) -> None:
    written(kb)
    as_identity(monkeypatch, RITA)
    before = (kb.root / DOC).read_text()
    result = approve(load_config(kb.root), [DOC])
    head = kb.repo.head.commit
    assert result.commit == head.hexsha and result.docs == (DOC,)
    trailers = head.message.rstrip().split("\n\n")[-1].split("\n")
    assert trailers[0] == "Reviewed-by: Rita Reviewer <rita@ex.org>"
    assert trailers[1:] == [content_trailer(state_from_text(
        (kb.root / DOC).read_text(encoding="utf-8"), DOC))]
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


def test_approve_refuses_self_approval_under_an_address_the_mailmap_maps(kb: KB,
                                                                         monkeypatch) -> None:
    (kb.root / ".mailmap").write_text("Rita <rita@ex.org> <rita@old.org>\n", encoding="utf-8")
    kb.commit([".mailmap"], "Mailmap", LEAD, "2026-01-02T00:00:00+00:00")
    kb.put(doc_text(), "Add", Actor("Rita", "Rita@old.org"), "2026-02-01T10:00:00+08:00")
    as_identity(monkeypatch, RITA)
    with pytest.raises(ReviewError, match="cannot approve their own change"):
        approve(load_config(kb.root), [DOC])


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


@pytest.mark.parametrize("ends", [b"\r\n", b"\r"])
def test_a_commit_rewriting_only_line_ends_lapses_no_line(kb: KB, monkeypatch, ends) -> None:
    """A Windows editor saves a reviewed document with CRLF (old Mac: CR) and the author
    commits it: blame names that commit for every line, and the body's lines were said
    changed after review (pending, `kb check`, served unverified) while `kb review diff`
    said no change and approve "already verified": a lapse no reviewer could clear."""
    written(kb)
    as_identity(monkeypatch, RITA)
    cfg = load_config(kb.root)
    approve(cfg, [DOC])
    path = kb.root / DOC
    path.write_bytes(path.read_bytes().replace(b"\n", ends))
    kb.commit([DOC], "Save with Windows line ends", ALICE, "2026-12-01T10:00:00+08:00")
    text = read_doc(path, kb.root).text
    assert review_coverage(kb.repo, cfg, DOC, text).covers_all()
    assert pending(cfg) == []
    monkeypatch.chdir(kb.root)
    res = CliRunner().invoke(main, ["check", "--no-cache", "--no-schema", DOC])
    assert res.exit_code == 0 and "verification-lapsed" not in res.stdout, res.stdout
    path.write_bytes(path.read_bytes().replace(b"Spray at first sign.", b"Spray twice."))
    cov = review_coverage(kb.repo, cfg, DOC, read_doc(path, kb.root).text)
    assert [r[:2] for r in cov.ranges()] == [(16, 16)]  # a real edit still lapses its line


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


def test_review_diff_of_a_document_split_from_a_verified_one_shows_all_of_it(kb: KB,
                                                                              monkeypatch):
    """Alice splits a section of the verified SOP into a document of its own, its front
    matter copied (`verified: true`, Rita's name and date): nobody reviewed it there, yet
    `kb review diff` said "no change since its last verification" (the split commit taken
    for the review). It shows the whole document, saying why the verification is none."""
    kb.put(doc_text("# Rust\n\nSpray at first sign.\n\n## Dose\n\n3 mL per litre.\n"),
           "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    cfg = load_config(kb.root)
    as_identity(monkeypatch, RITA)
    approve(cfg, [DOC])
    text = (kb.root / DOC).read_text(encoding="utf-8")
    split = "knowledge/crops/剂量.md"
    (kb.root / split).write_text(text.split("## Dose")[0].split("# Rust")[0]
                                 + "# 剂量\n\n3 mL per litre.\n", encoding="utf-8")
    (kb.root / DOC).write_text(text.split("## Dose")[0], encoding="utf-8")
    split_at = kb.commit([DOC, split], "Split the dose out", ALICE, "2026-03-01T09:00:00+08:00")
    shown = review_diff(cfg, split)
    assert shown["changed"] and shown["verification"]["commit"] == split_at
    why = shown["verification"]["refused"]  # what `kb review check` says of it
    assert why in {f.message for f in kb.check() if f.path == split}
    assert shown["diff"].startswith(f"--- {split} (verification {split_at[:10]} is no review: "
                                    f"{why})\n")
    assert "+3 mL per litre." in shown["diff"].split("\n")
    monkeypatch.chdir(kb.root)
    res = CliRunner().invoke(main, ["review", "diff", split])
    assert "no change" not in res.output and "+# 剂量" in res.output.split("\n")
    assert review_diff(cfg, DOC)["diff"].startswith(f"--- {DOC}@")  # Rita's review holds


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
    line = (kb.root / DOC).read_text().splitlines().index("verified: false") + 1
    assert f"unverified                  {DOC}:{line}  (Alice, committed by alice@ex.org)" \
        in out.stdout  # at its `verified` line, as path:line
    rows = json.loads(run(kb, monkeypatch, "review", "pending", "--json").stdout)
    assert rows[0]["doc"] == DOC and rows[0]["reason"] == "unverified"
    assert rows[0]["line"] == line
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


@pytest.mark.parametrize("front, line, code", [
    ("---\ntitle: 锈病\nauthor: [Alice\n---\n", 3, "yaml-syntax"),  # a bracket left open
    ("# 锈病\n", 1, "fm-missing"),
    ("---\n---\n", 1, "fm-empty"),
])
def test_approving_a_document_whose_front_matter_does_not_parse_names_the_line(
        kb: KB, monkeypatch, front: str, line: int, code: str) -> None:
    """Refused at the line of the first problem, with kb check's code and words."""
    kb.put(front + "\n发现病斑即喷药。\n", "坏的前言", ALICE, "2026-02-01T12:00:00+08:00")
    as_identity(monkeypatch, RITA)
    monkeypatch.chdir(kb.root)
    result = CliRunner().invoke(main, ["review", "approve", DOC])
    exit_code, out = result.exit_code, result.output
    assert exit_code == 1 and out.count("\n") == 1, out
    assert out.startswith(f"kb: error: {DOC}:{line}: front matter does not parse ({code}: "), out
