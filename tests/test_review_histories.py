"""The review policy on the Git histories a team produces: real repositories made with the
git command line (a shallow clone as CI checks out, a SHA-256 repository), judged by the
real `kb review check`, `kb review approve`, `kb history` and the build's verdict."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from reviewkb import AT, git
from reviewkb import REVIEWERS_TOML as KB_TOML

from kbtools.agents.draft import create_draft
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.provenance import UNCOMMITTED, blame_lines, chunk_provenance, open_repo
from kbtools.review.lapse import review_coverage

DOC = "knowledge/pump.md"


def doc(by: str | None = None) -> str:
    verified = f'verified: true\nverified_by: {by}\nverified_at: "{AT}"' if by else \
        "verified: false"
    return ("---\ntitle: Pump seals\ncategory: engineering\nproject: demo\nsource: SOP\n"
            "author: Alice\n"
            f'timestamp: "2026-01-01T09:00:00+08:00"\n{verified}\ntags: [pump]\n---\n\n'
            "# Pump seals\n\nReplace the seal every 2000 hours.\n")


def put(root: Path, text: str, message: str, who: str, date: str) -> None:
    (root / DOC).parent.mkdir(parents=True, exist_ok=True)
    (root / DOC).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, who=who, date=date)


def origin(root: Path, writer: str, verifier: str, message: str) -> Path:
    """main with kb.toml; branch `pr`: `writer` adds the document, then `verifier` commits
    its verification by Rita."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "settings", who="lead@ex.org", date="2026-01-01T00:00:00Z")
    git(root, "checkout", "-q", "-b", "pr")
    put(root, doc(), "Add pump seals", writer, "2026-02-01T10:00:00+00:00")
    put(root, doc(by="rita@ex.org"), message, verifier, AT)
    return root


def review_check(root: Path) -> tuple[int, list[dict]]:
    cwd = Path.cwd()
    os.chdir(root)
    try:
        res = CliRunner().invoke(main, ["review", "check", "--base", "origin/main", "--json"])
    finally:
        os.chdir(cwd)
    return res.exit_code, json.loads(res.stdout)


def ci_checkout(src: Path, dest: Path, depth: int | None) -> Path:
    """`git clone` as CI does (`--depth 1` is actions/checkout's default), on branch pr."""
    shallow = ["--depth", str(depth), "--no-single-branch"] if depth else []
    subprocess.run(["git", "clone", "-q", *shallow, f"file://{src}", str(dest)], check=True)
    git(dest, "checkout", "-q", "pr")
    return dest


@pytest.mark.parametrize(("writer", "verifier", "message", "full"), [
    # Rita wrote the text and Alice committed Rita's approval of it: four eyes broken
    ("rita@ex.org", "alice@ex.org", "Verify\n\nReviewed-by: Rita <rita@ex.org>",
     ["review-self-review"]),
    # Alice wrote it, Rita verified it in her own commit: a legitimate review
    ("alice@ex.org", "rita@ex.org", "Verify", []),
])
def test_a_shallow_checkout_judges_nobody(tmp_path, writer, verifier, message, full):
    """In a shallow clone git shows the boundary commit as the document's creation, by that
    commit's author: the policy must not clear the self-review nor blame the reviewer for
    writing what she verified. It says the history is missing."""
    src = origin(tmp_path / "origin", writer, verifier, message)
    code, findings = review_check(ci_checkout(src, tmp_path / "full", None))
    assert [f["code"] for f in findings] == full and code == (1 if full else 0)
    code, findings = review_check(ci_checkout(src, tmp_path / "ci", 1))
    assert code == 1
    assert [(f["path"], f["code"]) for f in findings] == [(DOC, "review-no-history")]
    assert "fetch-depth: 0" in findings[0]["message"]


def test_approve_in_a_shallow_checkout_refuses_what_it_cannot_check(tmp_path):
    """Rita wrote the document; a later commit by Alice is the shallow clone's only one, so
    git shows the document as Alice's: `kb review approve` would let Rita verify her own
    text. It refuses, as it does in the full clone (for another reason)."""
    src = tmp_path / "origin"
    src.mkdir()
    git(src, "init", "-q", "-b", "main")
    (src / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "settings", who="lead@ex.org", date="2026-01-01T00:00:00Z")
    git(src, "checkout", "-q", "-b", "pr")
    put(src, doc(), "Add pump seals", "rita@ex.org", "2026-02-01T10:00:00+00:00")
    (src / "notes.txt").write_text("x\n", encoding="utf-8")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "Notes", who="alice@ex.org")
    for depth, reason in ((None, "cannot approve their own change"), (1, "shallow clone")):
        root = ci_checkout(src, tmp_path / f"depth{depth}", depth)
        code, out = kb_cli(root, "review", "approve", DOC, "--as", "rita@ex.org")
        assert code == 1 and reason in out, out
        assert git(root, "status", "--porcelain") == ""


def kb_json(root: Path, *args: str) -> tuple[int, object]:
    cwd = Path.cwd()
    os.chdir(root)
    try:
        res = CliRunner().invoke(main, [*args, "--json"])
    finally:
        os.chdir(cwd)
    return res.exit_code, json.loads(res.stdout) if res.exit_code == 0 else res.output


def test_reviewer_tools_in_a_shallow_checkout_say_the_history_is_missing(tmp_path):
    """Rita verified Alice's document, then Mallory changed it without review; a later
    commit by Bob is a `--depth 1` clone's only one. git shows the document created there,
    by Bob, verified: `kb review pending` listed nothing awaiting review, `kb review diff`
    said "no change since its last verification", `kb history` and `kb recent` showed Bob
    creating it. Each now says the history is missing instead."""
    src = origin(tmp_path / "origin", "alice@ex.org", "rita@ex.org", "Verify")
    put(src, doc(by="rita@ex.org").replace("2000 hours", "5000 hours"), "Longer interval",
        "mallory@ex.org", "2026-02-03T09:00:00+00:00")
    (src / "notes.txt").write_text("x\n", encoding="utf-8")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "Notes", who="bob@ex.org", date="2026-02-04T09:00:00Z")
    full = ci_checkout(src, tmp_path / "full", None)
    code, rows = kb_json(full, "review", "pending")
    assert code == 0 and [(r["doc"], r["reason"], r["git_author_email"]) for r in rows] == [
        (DOC, "changed-since-verification", "mallory@ex.org")]
    ci = ci_checkout(src, tmp_path / "ci", 1)
    code, rows = kb_json(ci, "review", "pending")
    assert code == 0 and [(r["doc"], r["reason"], r["git_author_email"]) for r in rows] == [
        (DOC, "history-missing", None)]
    code, out = kb_cli(ci, "review", "diff", DOC)
    assert code == 1 and "shallow clone" in out and "no change" not in out, out
    code, hist = kb_json(ci, "history", DOC)
    assert code == 0 and isinstance(hist, dict)
    [commit] = hist["commits"]
    assert commit["cut"] and commit["author_email"] == "bob@ex.org"
    assert "created" not in commit["changes"] and "shallow clone" in commit["changes"][0]
    assert [e["cut"] for e in hist["verifications"]] == [True]
    code, out = kb_cli(ci, "history", DOC)
    assert "Reviewed-by: none" not in out and "not checked" in out, out
    code, recent = kb_json(ci, "recent")
    assert code == 0 and isinstance(recent, dict)
    assert [(c["doc"], c["change"]) for c in recent["changes"]] == [(DOC, "unknown")]
    assert "shallow clone" in recent["changes"][0]["summary"]


# ---------------------------------------------------------------- SHA-256 repositories


@pytest.fixture
def sha256_origin(tmp_path: Path) -> Path:
    """`origin` in a repository made with `git init --object-format=sha256` (64-digit ids,
    which GitPython's object model cannot read)."""
    root = tmp_path / "sha256"
    root.mkdir()
    made = subprocess.run(["git", "init", "-q", "-b", "main", "--object-format=sha256"],
                          cwd=root, capture_output=True)
    if made.returncode:
        pytest.skip("this git cannot make SHA-256 repositories")
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "settings", who="lead@ex.org", date="2026-01-01T00:00:00Z")
    git(root, "checkout", "-q", "-b", "pr")
    put(root, doc(), "Add pump seals", "alice@ex.org", "2026-02-01T10:00:00+00:00")
    git(root, "update-ref", "refs/remotes/origin/main", "main")
    return root


def kb_cli(root: Path, *args: str) -> tuple[int, str]:
    cwd = Path.cwd()
    os.chdir(root)
    try:
        res = CliRunner().invoke(main, list(args))
    finally:
        os.chdir(cwd)
    return res.exit_code, res.output


def test_a_sha256_repository_is_reviewed_like_any_other(sha256_origin):
    """Approve, check, history and the build's verdict read a SHA-256 repository: a
    legitimate review holds, an unreviewed edit after it is caught (before, every command
    failed: `unknown Git revision 'HEAD'`, a crash, or every document "not committed")."""
    root = sha256_origin
    code, out = kb_cli(root, "review", "approve", DOC, "--as", "rita@ex.org")
    assert code == 0, out
    assert review_check(root) == (0, [])
    code, out = kb_cli(root, "history", DOC, "--json")
    history = json.loads(out)
    assert code == 0 and [len(c["commit"]) for c in history["commits"]] == [64, 64]
    assert history["verifications"][0]["verified_by"] == "rita@ex.org"

    cfg = load_config(root)
    with open_repo(root) as repo:
        assert review_coverage(repo, cfg, DOC, (root / DOC).read_text("utf-8")).reason is None
    text = (root / DOC).read_text("utf-8").replace("2000 hours", "5000 hours")
    put(root, text, "Longer interval", "mallory@ex.org", "2026-12-01T10:00:00+00:00")
    code, findings = review_check(root)
    assert code == 1 and "review-unverified-change" in [f["code"] for f in findings]
    with open_repo(root) as repo:
        cov = review_coverage(repo, cfg, DOC, text)
    late = text.split("\n").index("Replace the seal every 5000 hours.") + 1
    assert cov.reason is None and list(cov.changed) == [late]
    assert "mallory@ex.org" in cov.changed[late].author


def test_sha256_blame_and_drafts(sha256_origin):
    """Blame's 64-digit ids (and its null id for an uncommitted line) give chunks their
    provenance; a draft branches from HEAD, not from nothing."""
    root = sha256_origin
    head = git(root, "rev-parse", "HEAD").strip()
    with (root / DOC).open("a", encoding="utf-8") as f:
        f.write("Check the shaft too.\n")
    blame = blame_lines(root, DOC)
    lines = len((root / DOC).read_text("utf-8").splitlines())
    assert [p.line for p in blame] == list(range(1, lines + 1))
    assert {p.commit for p in blame[:-1]} == {head} and blame[-1].commit == UNCOMMITTED
    assert chunk_provenance(blame, 1, lines - 1)["last_commit"] == head
    assert chunk_provenance(blame, 1, lines)["last_commit"] == UNCOMMITTED

    draft = create_draft(root, "engineering", "Shaft check", "# Shaft\n\nCheck it.\n",
                         extra_meta={"project": "demo"})
    assert git(root, "rev-parse", f"{draft.commit}^").strip() == head
    assert git(root, "fsck", "--no-dangling").strip() == ""


# ---------------------------------------------------------------- names git quotes


@pytest.mark.parametrize("name", ['knowledge/pump "P-3".md', "knowledge/C:\\pumps.md",
                                  "knowledge/pump\tseals.md", 'knowledge/泵 "三号".md'])
def test_names_git_quotes_are_judged(tmp_path, name):
    """git prints a path holding `"`, `\\` or a control character quoted, whatever
    core.quotePath says: `kb review check` read the quoted form, found no such file, and let
    a self-declared verification through (exit 0)."""
    root = origin(tmp_path / "origin", "alice@ex.org", "rita@ex.org", "Verify")
    (root / name).write_text(doc(by="rita@ex.org"), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Add a verified page", who="mallory@ex.org")
    git(root, "update-ref", "refs/remotes/origin/main", "main")
    code, findings = review_check(root)
    assert code == 1 and [(f["path"], f["code"]) for f in findings] == [
        (name, "review-unattested")]
    code, out = kb_cli(root, "history", name, "--json")
    assert code == 0 and json.loads(out)["commits"][0]["author_email"] == "mallory@ex.org"


# ---------------------------------------------------------------- squash merges


@pytest.mark.parametrize("co_author", [True, False])
def test_a_co_author_of_a_squash_merge_does_not_review_it(tmp_path, co_author):
    """GitHub squash-merges a pull request as one commit by its opener and names the other
    authors in `Co-authored-by:` trailers. Rita co-wrote the text, so she may not verify it
    (four eyes): `kb review approve` refuses her and `kb review check` flags a verification
    she commits herself. The control: Alice's text alone, which Rita may verify."""
    root = tmp_path / "origin"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "settings", who="lead@ex.org", date="2026-01-01T00:00:00Z")
    git(root, "update-ref", "refs/remotes/origin/main", "main")
    trailer = "\n\nCo-authored-by: Rita <rita@ex.org>" if co_author else ""
    put(root, doc(), f"Add pump seals (#7)\n\n* Add pump seals\n* Seal interval{trailer}",
        "alice@ex.org", "2026-02-01T10:00:00+00:00")
    code, out = kb_cli(root, "review", "approve", DOC, "--as", "rita@ex.org")
    if not co_author:
        assert code == 0, out
        assert review_check(root) == (0, [])
        return
    assert code == 1 and "cannot approve their own change" in out
    put(root, doc(by="rita@ex.org"), "Verify", "rita@ex.org", AT)
    code, findings = review_check(root)
    assert code == 1 and [f["code"] for f in findings] == ["review-self-review"]
    assert "names them in a Co-authored-by trailer (a squash merge" in findings[0]["message"]
