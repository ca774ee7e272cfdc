"""Copies of documents that editors and file-sync tools leave beside them: an editor's backup
(Typora's `x~.md`, `x.md~`, `x.md.orig`) or a note in Obsidian's trash is not read, and
`kb check` names it in one warning; a sync tool's conflicted copy (Syncthing, Dropbox) may
hold a colleague's edit, so it is an error, and never indexed."""

from __future__ import annotations

from pathlib import Path

from kbtools.check.engine import check_paths
from kbtools.config import load_config
from kbtools.corpus import iter_documents
from kbtools.docfiles import conflicted_copy, find_markdown
from tests.kbfixtures import GOOD_FM
from tests.test_editor_markdown import repo

__all__ = ["repo"]  # the fixture: a kb.toml and a knowledge/t folder, run from there


def write(root: Path, rel: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(GOOD_FM + "# T\n\ntext\n", encoding="utf-8")
    return path


def findings(root: Path) -> dict[str, tuple[str, str, str]]:
    return {f.path: (f.level, f.code, f.message)
            for f in check_paths([root / "knowledge"], load_config(root))}


BACKUPS = ["knowledge/t/doc~.md", "knowledge/t/doc.md~", "knowledge/t/doc.md.orig",
           "knowledge/t/doc.md.bak", "knowledge/t/doc_LOCAL_4711.md"]


def test_editor_backups_and_trashed_notes_are_named_in_one_warning_each(repo):
    write(repo, "knowledge/t/doc.md")
    for rel in BACKUPS:
        write(repo, rel)
    write(repo, "knowledge/.trash/old.md")
    write(repo, "knowledge/.obsidian/templates/t.md")  # an editor's settings: not a leftover
    found = findings(repo)
    assert set(found) == {*BACKUPS, "knowledge/.trash/old.md"}
    for rel in BACKUPS:
        level, code, message = found[rel]
        assert (level, code) == ("warning", "editor-leftover")
        assert "backup of 'doc.md'" in message and "delete it once 'doc.md'" in message
    assert "Obsidian's trash" in found["knowledge/.trash/old.md"][2]
    assert find_markdown([repo / "knowledge"]) == [repo / "knowledge/t/doc.md"]


def test_a_backup_of_a_document_no_longer_there_says_so(repo):
    """The author renamed or lost `doc.md`: Typora's backup is the copy left."""
    write(repo, "knowledge/t/renamed.md")
    write(repo, "knowledge/t/doc~.md")
    level, code, message = findings(repo)["knowledge/t/doc~.md"]
    assert code == "editor-leftover" and "'doc.md' is not there" in message


CONFLICTED = {
    "knowledge/t/doc.sync-conflict-20261201-101010-ABCDEFG.md": "doc.md",
    "knowledge/t/doc (conflicted copy).md": "doc.md",
    "knowledge/t/doc (Bob's conflicted copy 2026-12-01).md": "doc.md",
    "knowledge/t/guide (v2) (Conflicted copy laptop 202612011010).md": "guide (v2).md",
}


def test_a_sync_tools_conflicted_copy_is_an_error_and_not_indexed(repo):
    write(repo, "knowledge/t/doc.md")
    for rel in CONFLICTED:
        write(repo, rel)
    found = findings(repo)
    assert set(found) == set(CONFLICTED)
    for rel, original in CONFLICTED.items():
        level, code, message = found[rel]
        assert (level, code) == ("error", "conflicted-copy")
        assert f"conflicted copy of {original!r}" in message
        assert conflicted_copy(Path(rel).name) == original
    assert "not there any more" in found["knowledge/t/guide (v2) (Conflicted copy laptop "
                                         "202612011010).md"][2]
    assert [d.rel for d in iter_documents(repo, repo / "knowledge")] == ["knowledge/t/doc.md"]
    assert conflicted_copy("guide (v2).md") is None
