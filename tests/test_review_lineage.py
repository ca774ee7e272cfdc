"""Reviewing many documents reads the history once (`kbtools.review.lineage`): the same
verdicts as one `git log --follow`, one `git rev-list` and one blame per document, on a
history with edits, renames, merges, a mailmap, a dirty work tree and a shallow clone, and
no per-document walk of the history where one commit wrote a document."""

from __future__ import annotations

import subprocess
from pathlib import Path

import git as gitpython
import pytest
from reviewkb import AT, git
from reviewkb import REVIEWERS_TOML as KB_TOML

import kbtools.check.verification
import kbtools.review.policy
from kbtools.check.verification import lapse_findings
from kbtools.config import load_config
from kbtools.provenance import open_repo
from kbtools.review.lapse import review_coverage
from kbtools.review.lineage import scan
from kbtools.review.policy import check_range

TRAILER = "\n\nReviewed-by: Rita <rita@ex.org>"


def doc(title: str, body: str = "Replace the seal every 2000 hours.", by: str = "rita@ex.org"
        ) -> str:
    return ("---\ntitle: " + title + "\ncategory: engineering\nproject: demo\nsource: SOP\n"
            f'author: Alice\ntimestamp: "2026-01-01T09:00:00+08:00"\nverified: true\n'
            f'verified_by: {by}\nverified_at: "{AT}"\ntags: [pump]\n---\n\n# {title}\n\n'
            f"{body}\n\nMore.\n")


def put(root: Path, files: dict[str, str], message: str, who: str = "alice@ex.org") -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, who=who)


def histories(root: Path) -> Path:
    """main: kb.toml and a mailmap (tag `base`), then documents every way they come to be."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    put(root, {"kb.toml": KB_TOML, ".mailmap": "Alice Real <alice@ex.org> <al@ex.org>\n"},
        "settings", who="lead@ex.org")
    git(root, "tag", "base")
    for n in range(4):  # one commit each: the common case
        put(root, {f"knowledge/once{n}.md": doc(f"Once {n}")}, f"Add once {n}{TRAILER}",
            who="al@ex.org")
    put(root, {"knowledge/twin.md": doc("Once 2")}, f"Add a twin of once 2{TRAILER}")
    put(root, {"knowledge/edited.md": doc("Edited")}, f"Add edited{TRAILER}")
    put(root, {"knowledge/edited.md": doc("Edited", "Replace it every 3000 hours.")}, "edit")
    put(root, {"knowledge/old-name.md": doc("Moved")}, f"Add moved{TRAILER}")
    git(root, "mv", "knowledge/old-name.md", "knowledge/new-name.md")
    git(root, "commit", "-q", "-m", "rename")
    put(root, {"knowledge/self.md": doc("Self")}, "self review", who="rita@ex.org")
    put(root, {"knowledge/dirty.md": doc("Dirty")}, f"Add dirty{TRAILER}")
    put(root, {"knowledge/wrong.md": doc("Wrong", by="bob@ex.org")}, f"Add wrong{TRAILER}")
    git(root, "checkout", "-q", "-b", "side")
    put(root, {"knowledge/side.md": doc("Side")}, f"Add side{TRAILER}", who="carol@ex.org")
    git(root, "checkout", "-q", "main")
    put(root, {"knowledge/main.md": doc("Main")}, f"Add main{TRAILER}")
    git(root, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    # a commit adding one document and deleting another: git log --follow may see a rename
    (root / "knowledge/once3.md").unlink()
    put(root, {"knowledge/heir.md": doc("Once 3")}, f"Replace once 3{TRAILER}")
    # a reorganisation: moved as they are, moved with an edit, moved where a twin stays
    (root / "knowledge/moved").mkdir()
    (root / "knowledge/again").mkdir()
    for n in range(3):
        git(root, "mv", f"knowledge/once{n}.md", f"knowledge/moved/once{n}.md")
    git(root, "commit", "-q", "-m", "reorganise")
    git(root, "mv", "knowledge/moved/once0.md", "knowledge/again/once0.md")
    (root / "knowledge/moved/once1.md").unlink()
    put(root, {"knowledge/again/once1.md": doc("Once 1", "Edited while moving.")},
        "move again", who="bob@ex.org")
    (root / "knowledge/dirty.md").write_text(doc("Dirty", "Changed here."), encoding="utf-8")
    return root


def coverages(root: Path, fast: bool) -> dict[str, object]:
    cfg = load_config(root)
    repo = open_repo(root)
    assert repo is not None
    with repo:
        lineage = scan(repo) if fast else None
        return {p.name: review_coverage(repo, cfg, p.relative_to(root).as_posix(),
                                        p.read_text(encoding="utf-8"), lineage=lineage)
                for p in sorted((root / "knowledge").rglob("*.md"))}


def git_calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    execute = gitpython.cmd.Git.execute

    def counted(self, command, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append([str(c) for c in command])
        return execute(self, command, *args, **kwargs)

    monkeypatch.setattr(gitpython.cmd.Git, "execute", counted)
    return calls


def history_walks(calls: list[list[str]]) -> list[list[str]]:
    """The git commands that walk a document's history from the head back."""
    return [c for c in calls if "--follow" in c or "blame" in c or "--ancestry-path" in c]


def test_review_coverage_is_the_same_from_the_history_read_once(tmp_path: Path) -> None:
    root = histories(tmp_path / "r")
    fast, slow = coverages(root, True), coverages(root, False)
    assert fast == slow
    lapsed = {name for name, cov in slow.items()
              if cov.reason or cov.changed}  # type: ignore[attr-defined]
    assert {"edited.md", "self.md", "dirty.md", "wrong.md", "once1.md"} <= lapsed
    assert not lapsed & {"once0.md", "once2.md", "main.md", "new-name.md", "heir.md"}


def test_kb_check_walks_no_history_per_document_one_commit_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = histories(tmp_path / "r")
    cfg = load_config(root)
    rels = sorted(p.relative_to(root).as_posix() for p in (root / "knowledge").rglob("*.md"))
    calls = git_calls(monkeypatch)
    fast = lapse_findings(cfg, rels)
    walks = history_walks(calls)
    # only the documents more than one commit wrote (or one changed in the work tree)
    walked = {c[-1].rsplit("/", 1)[-1] for c in walks if "--ancestry-path" not in c}
    # the others: edited, side (a merge), once1 (edited while moving), once2 (moved where
    # its twin stays: --follow may take the twin for its source), dirty (blamed)
    assert not {"once0.md", "twin.md", "main.md", "heir.md", "new-name.md"} & walked
    assert "once2.md" in walked
    monkeypatch.setattr(kbtools.check.verification, "scan", lambda repo: None)
    assert lapse_findings(cfg, rels) == fast


def test_kb_review_check_is_the_same_from_the_history_read_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = histories(tmp_path / "r")
    git(root, "commit", "-qam", "commit the dirty one")
    cfg = load_config(root)
    calls = git_calls(monkeypatch)
    fast = check_range(cfg, "base")
    assert not [c for c in history_walks(calls)
                if c[-1].endswith(("/once0.md", "/main.md", "/heir.md", "/twin.md"))]
    monkeypatch.setattr(kbtools.review.policy, "scan", lambda *a, **k: None)
    slow = check_range(cfg, "base")
    # side.md, added on a branch: `git log --follow` reads the merge as a copy of main.md
    # and stops there; read on every line, it is Carol's commit, reviewed
    assert [(f.path, f.code) for f in slow[0] if f not in fast[0]] == [
        ("knowledge/side.md", "review-no-history")]
    assert fast == ([f for f in slow[0] if f.path != "knowledge/side.md"], slow[1])
    assert {f.path for f in fast[0]} >= {"knowledge/self.md", "knowledge/wrong.md",
                                          "knowledge/edited.md"}


def test_a_shallow_clone_is_judged_as_before(tmp_path: Path) -> None:
    origin = histories(tmp_path / "r")
    git(origin, "commit", "-qam", "commit the dirty one")
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "3", f"file://{origin}", str(clone)],
                   check=True, capture_output=True)
    repo = open_repo(clone)
    assert repo is not None and scan(repo) is None
    assert coverages(clone, True) == coverages(clone, False)
