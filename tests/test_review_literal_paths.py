"""A document named with characters git reads as a pathspec pattern (`pump[1].md`, `a*b.md`,
`x?.md`) or magic (a leading `:`) is handed to git literally: its history, status and
review commit are its own, never those of the files the pattern also matches
(`pump1.md`). Real repositories made with the git command line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from git import Repo as git_repo
from reviewkb import ALICE, KB, RITA, doc_text

from kbtools.config import load_config
from kbtools.doc_changes import doc_changes
from kbtools.review.approve import approve
from kbtools.review.drafts import waiting_drafts
from kbtools.review.history import doc_history, recent_changes
from kbtools.review.lineage import changes_of, histories_of, scan
from tests.test_review_pending_history import edit, git, make_repo, write

# (a name git reads as a pattern or magic, a name that pattern matches)
NAMES = [("knowledge/pump[1].md", "knowledge/pump1.md"),
         ("knowledge/a*b.md", "knowledge/a-b.md"),
         ("knowledge/x?.md", "knowledge/x1.md"),
         (":x.md", "x.md")]


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def two_histories(root: Path, name: str, other: str) -> list[str]:
    """`name` added then edited, `other` added and edited in between, renamed once: the
    commits that touched `name`, newest first."""
    make_repo(root)
    rng = random.Random(3)
    write(root, name, rng)
    commit(root, "add the pattern-named one")
    write(root, other + ".old", rng)
    commit(root, "add the other")
    git(root, "mv", "--", other + ".old", other)
    commit(root, "rename the other")
    edit(root, other, rng)
    commit(root, "edit the other")
    edit(root, name, rng, verified=True)
    commit(root, "review the pattern-named one")
    log = git(root, "--literal-pathspecs", "log", "--format=%H", "--follow", "--", name)
    return log.split()


@pytest.mark.parametrize(("name", "other"), NAMES)
def test_a_pattern_named_document_has_its_own_history(tmp_path: Path, name: str,
                                                       other: str) -> None:
    root = tmp_path / "kb"
    own = two_histories(root, name, other)
    assert len(own) == 2
    repo = git_repo(root)
    assert [ch.commit.sha for ch in doc_changes(repo, "HEAD", name)] == own
    assert len(doc_changes(repo, "HEAD", other)) == 3  # added, renamed, edited
    # read with the whole history at once: the same, without asking git per document
    lineage = scan(repo)
    assert lineage is not None
    histories_of(repo, lineage, [name, other])
    assert lineage.histories[name] is not None
    for path in (name, other):
        assert changes_of(repo, lineage.head.sha, path, lineage=lineage) == \
            doc_changes(repo, "HEAD", path)


def test_kb_history_of_a_pattern_named_document(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    own = two_histories(root, *NAMES[0])
    nc: frozenset[str] = frozenset()
    listed = doc_history(root, "knowledge/pump[1].md", nc)
    assert [c["commit"] for c in listed["commits"]] == own
    assert [c["changes"] for c in listed["commits"]][-1] == ["created"]


def test_approving_a_pattern_named_document_commits_it_alone(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """`pump1.md` changed in the work tree neither blocks the approval of `pump[1].md`
    (its status is not `pump[1].md`'s) nor goes into the approval commit."""
    kb = KB(tmp_path / "kb")
    name, other = "knowledge/crops/rust[1].md", "knowledge/crops/rust1.md"
    kb.put(doc_text(), "Add rust SOP", ALICE, "2026-02-01T10:00:00+08:00", rel=name)
    kb.put(doc_text(title="Other"), "Add other", ALICE, "2026-02-01T11:00:00+08:00", rel=other)
    edited = doc_text(title="Other, edited")
    (kb.root / other).write_text(edited, encoding="utf-8")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", RITA.name)
        monkeypatch.setenv(f"GIT_{who}_EMAIL", RITA.email)
    result = approve(load_config(kb.root), [name])
    assert result.docs == (name,)
    assert list(kb.repo.head.commit.stats.files) == [name]
    assert (kb.root / other).read_text(encoding="utf-8") == edited  # still uncommitted
    assert [d.a_path for d in kb.repo.index.diff(None)] == [other]


def test_a_draft_names_the_commit_that_wrote_its_pattern_named_document(tmp_path: Path
                                                                         ) -> None:
    """The draft's first commit changed `r1.md`, its second wrote `r[1].md`: the entry of
    `r[1].md` names the second."""
    root = make_repo(tmp_path / "kb")
    rng = random.Random(5)
    git(root, "checkout", "-q", "-b", "draft/two")
    write(root, "knowledge/r1.md", rng)
    commit(root, "the other")
    write(root, "knowledge/r[1].md", rng)
    commit(root, "the pattern-named one")
    wrote = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "main")
    entries = {e["doc"]: e for e in waiting_drafts(git_repo(root), "knowledge/", "")}
    assert entries["knowledge/r[1].md"]["commit"] == wrote


def test_recent_lists_the_knowledge_folder_alone_whatever_its_name(tmp_path: Path) -> None:
    """A knowledge folder `:kn` (to git, a pathspec `kn` with no magic) is not `kn`."""
    root = make_repo(tmp_path / "kb")
    (root / "kb.toml").write_text('[paths]\nknowledge = ":kn"\n')
    rng = random.Random(6)
    write(root, ":kn/own.md", rng)
    write(root, "kn/other.md", rng)
    commit(root, "two folders")
    assert [e["doc"] for e in recent_changes(root)] == [":kn/own.md"]
