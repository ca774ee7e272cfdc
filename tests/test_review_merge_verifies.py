"""A reviewer who merges a branch and sets the verification in the merge commit itself
(`git merge --no-commit`, then `verified: true`): the merge wrote no content — its text is
the branch's — so it is the reviewer's own attesting commit, not their authorship (it was
refused as `review-self-review`, "verifies content they authored (<the merge>)"). A merge
that did write content (a resolution differing from every side) stays the merger's."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from reviewkb import ALICE, DOC, KB, doc_text, git

from kbtools.cli import main

EDITED = "# Rust\n\nSpray at first sign.\n\n一周后再喷一次 (again after a week).\n"
REVIEWED = dict(verified=True, by="rita@ex.org", at="2026-02-02T10:00:00+08:00")


def cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KB:
    repo = KB(tmp_path / "kb")
    monkeypatch.chdir(repo.root)
    repo.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00")
    git(repo.root, "checkout", "-qb", "edit")
    repo.put(doc_text(EDITED), "Spray again", ALICE, "2026-02-01T11:00:00+08:00")
    git(repo.root, "checkout", "-q", "main")
    return repo


def merge_as_rita(kb: KB, body: str) -> str:
    git(kb.root, "merge", "--no-ff", "--no-commit", "-q", "edit", who="rita@ex.org")
    (kb.root / DOC).write_text(doc_text(body, **REVIEWED), encoding="utf-8")
    git(kb.root, "add", DOC)
    git(kb.root, "commit", "-qm", "Merge edit, reviewed", who="rita@ex.org",
        date="2026-02-02T10:00:00+08:00")
    return git(kb.root, "rev-parse", "HEAD").strip()


def test_a_merge_that_only_verifies_is_the_reviewers_attestation(kb: KB) -> None:
    merge = merge_as_rita(kb, EDITED)
    assert cli("check") == (0, "kb check: 1 document, 0 errors, 0 warnings\n")
    code, out = cli("review", "check", "--base", kb.base)
    assert code == 0 and "0 errors, 0 warnings" in out, out
    code, out = cli("review", "pending")
    assert code == 0 and "0 documents awaiting review" in out, out
    code, out = cli("history", DOC)
    assert code == 0 and f"{merge[:10]}  " in out
    said = out.split(f"{merge[:10]}  ", 1)[1].splitlines()
    assert said[2] == "    verified by rita@ex.org", out  # not "body; verified by …"
    assert "Alice Writer <alice@ex.org>\n    Spray again\n    body\n" in out


def test_a_merge_that_writes_content_too_is_the_mergers(kb: KB) -> None:
    merge = merge_as_rita(kb, EDITED + "\nRita's own line.\n")
    code, out = cli("review", "check", "--base", kb.base)
    assert code == 1 and "review-self-review" in out and merge[:10] in out, out
    code, out = cli("check")
    assert code == 0 and "rita@ex.org verifies content they authored" in out, out
