"""`kb watch` and the files outside its folders that change what a build reads: a `.gitignore`
(at the root or in a watched folder) that starts or stops ignoring an author's untracked
document, a `.mailmap` that renames the authors every line's blame names, and the target
elsewhere in the repository of a symlinked document in knowledge/. Each is a
change a full build sees; the watcher rebuilds on it and ends with what a full `--no-cache`
build of the same tree writes (session 41)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from kbtools.build.watch import _relevant
from kbtools.config import load_config
from tests.kbfixtures import copy_example
from tests.test_watch import ADR, _hashed, _watched
from tests.test_watch_saves import _as_full_build, _quiet

NOTE = "knowledge/engineering/local-notes.md"


@pytest.mark.parametrize("rel,relevant", [
    (".gitignore", True),
    (".mailmap", True),
    ("knowledge/.gitignore", True),
    ("knowledge/engineering/.gitignore", True),
    ("assets/.gitignore", True),
    ("knowledge/.obsidian/.gitignore", False),  # ignores hidden files, never read anyway
    ("knowledge/.mailmap", False),  # git reads the root's alone
    (".gitignore~", False),
    (".gitattributes", False),
])
def test_which_repository_files_rebuild(tmp_path, rel, relevant):
    repo = copy_example(tmp_path / "repo", [ADR])
    assert _relevant(str(repo / rel), load_config(repo)) is relevant


def _ignore_note(repo):
    (repo / ".gitignore").write_text("knowledge/**/local-*.md\n", encoding="utf-8")


def _ignore_note_in_folder(repo):
    (repo / "knowledge/engineering/.gitignore").write_text("local-*.md\n", encoding="utf-8")


def _mailmap(repo):
    (repo / ".mailmap").write_text("Tidy Author <tidy@example.com> <author@example.com>\n",
                                   encoding="utf-8")


@pytest.mark.parametrize("edit", [_ignore_note, _ignore_note_in_folder, _mailmap],
                         ids=["root-gitignore", "folder-gitignore", "mailmap"])
def test_a_saved_gitignore_or_mailmap_is_built_as_a_full_build(tmp_path, edit):
    repo = copy_example(tmp_path / "repo", [ADR])
    _hashed(repo)
    shutil.copy(repo / ADR, repo / NOTE)  # an author's untracked note, indexed
    with _watched(repo) as updates:
        assert updates[0].error is None
        edit(repo)
        _quiet(updates, 2, timeout=30)
        assert updates[-1].error is None
        _as_full_build(repo, tmp_path)


def _exclude_note(repo):
    (repo / ".git/info").mkdir(exist_ok=True)
    (repo / ".git/info/exclude").write_text("knowledge/**/local-*.md\n", encoding="utf-8")


def _excludes_file(repo):
    """core.excludesFile set before watching (a file outside the repository), saved since."""
    (repo.parent / "ignores" / "global").write_text("local-*.md\n", encoding="utf-8")


def _excludes_file_named(repo):
    """core.excludesFile set while watching, to a file that already lists the note."""
    (repo.parent / "ignores" / "other").write_text("local-*.md\n", encoding="utf-8")
    subprocess.run(["git", "config", "core.excludesFile", str(repo.parent / "ignores/other")],
                   cwd=repo, check=True)


@pytest.mark.parametrize("edit", [_exclude_note, _excludes_file, _excludes_file_named],
                         ids=["info-exclude", "excludes-file", "excludes-file-named"])
def test_an_edit_of_gits_other_ignore_files_is_built_as_a_full_build(tmp_path, edit):
    """What `.git/info/exclude` and `core.excludesFile` list git ignores as a `.gitignore`
    does: the untracked note listed there while watching leaves the index, and comes back
    when the list is emptied again."""
    repo = copy_example(tmp_path / "repo", [ADR])
    _hashed(repo)
    shutil.copy(repo / ADR, repo / NOTE)  # an author's untracked note, indexed
    (tmp_path / "ignores").mkdir()
    (tmp_path / "ignores" / "global").write_text("", encoding="utf-8")
    subprocess.run(["git", "config", "core.excludesFile", str(tmp_path / "ignores/global")],
                   cwd=repo, check=True)
    with _watched(repo) as updates:
        assert updates[0].error is None and updates[0].stats.documents == 2
        edit(repo)
        _quiet(updates, 2, timeout=30)
        assert updates[-1].error is None and updates[-1].stats.documents == 1
        _as_full_build(repo, tmp_path)
        for listed in (repo / ".git/info/exclude", *(tmp_path / "ignores").iterdir()):
            if listed.is_file():
                listed.write_text("", encoding="utf-8")
        _quiet(updates, len(updates) + 1, timeout=30)
        assert updates[-1].error is None and updates[-1].stats.documents == 2
        _as_full_build(repo, tmp_path)


def _linked_document(repo):
    """knowledge/engineering/adr-notes.md → ../../notes/adr-notes.md, made before watching."""
    (repo / "notes").mkdir()
    shutil.copy(repo / ADR, repo / "notes/adr-notes.md")
    os.symlink("../../notes/adr-notes.md", repo / "knowledge/engineering/adr-notes.md")
    return repo / "notes/adr-notes.md"


@pytest.mark.parametrize("late", [False, True], ids=["linked-before", "linked-while-watching"])
def test_an_edit_of_a_symlinked_documents_target_is_built(tmp_path, late):
    repo = copy_example(tmp_path / "repo", [ADR])
    _hashed(repo)
    target = None if late else _linked_document(repo)
    with _watched(repo) as updates:
        if target is None:
            target = _linked_document(repo)
            _quiet(updates, 2, timeout=30)
        seen = len(updates)
        with target.open("a", encoding="utf-8") as fh:  # the target saved, not the link
            fh.write("\n## 袋熊\n\n袋熊洞里有 17 台水泵，每周检查一次密封圈。\n")
        _quiet(updates, seen + 1, timeout=30)
        assert updates[-1].error is None
        _as_full_build(repo, tmp_path)


def test_a_replaced_picture_a_document_shows_from_elsewhere_is_built(tmp_path):
    """`![叶片](../../pics/leaf.png)`: a picture outside assets/ and knowledge/, shipped in
    data/source/ by the build, saved over with another picture; then a document showing a
    second one added while watching and that one replaced too."""
    repo = copy_example(tmp_path / "repo", [ADR])
    _hashed(repo)
    (repo / "pics").mkdir()
    shutil.copy(repo / "assets/images/corn-rust-leaf.png", repo / "pics/leaf.png")
    with (repo / ADR).open("a", encoding="utf-8") as fh:
        fh.write("\n## Leaf\n\nThe leaf as photographed.\n\n![leaf](../../pics/leaf.png)\n")
    with _watched(repo) as updates:
        assert updates[0].error is None
        shutil.copy(repo / "assets/images/rice-blast-leaf.png", repo / "pics/leaf.png")
        _quiet(updates, 2, timeout=30)
        _as_full_build(repo, tmp_path)
        shutil.copy(repo / "assets/images/wheat-scab-ear.png", repo / "pics/ear.png")
        with (repo / ADR).open("a", encoding="utf-8") as fh:
            fh.write("\n## Ear\n\nThe ear.\n\n![ear](../../pics/ear.png)\n")
        _quiet(updates, 3, timeout=30)
        shutil.copy(repo / "assets/images/corn-rust-leaf.png", repo / "pics/ear.png")
        _quiet(updates, 4, timeout=30)
        assert updates[-1].error is None
        _as_full_build(repo, tmp_path)


@pytest.mark.parametrize("folder_there,shown_before", [(True, False), (False, False),
                                                       (False, True)],
                         ids=["folder-there", "folder-made", "missing-at-start"])
def test_a_picture_shown_from_elsewhere_missing_then_copied_there_is_built(
        tmp_path, folder_there, shown_before):
    """`![叶片](../../pics/leaf.png)` saved before the picture is copied to pics/ (made
    then too, or there already; or saved before the watcher started): that build fails
    (`path-missing`), and copying the picture there builds, as a full build of the tree
    does, with no further save."""
    repo = copy_example(tmp_path / "repo", [ADR])
    _hashed(repo)
    if folder_there:
        (repo / "pics").mkdir()

    def show() -> None:
        with (repo / ADR).open("a", encoding="utf-8") as fh:
            fh.write("\n## 叶片\n\n拍到的叶片。\n\n![叶片](../../pics/leaf.png)\n")

    if shown_before:
        show()
    with _watched(repo) as updates:
        if not shown_before:
            assert updates[0].error is None
            show()
            _quiet(updates, 2, timeout=30)
        assert "path-missing" in (updates[-1].error or "")
        seen = len(updates)
        (repo / "pics").mkdir(exist_ok=True)
        shutil.copy(repo / "assets/images/corn-rust-leaf.png", repo / "pics/leaf.png")
        _quiet(updates, seen + 1, timeout=30)
        assert updates[-1].error is None
        _as_full_build(repo, tmp_path)


@pytest.mark.parametrize("config", ["", "config"], ids=["git-folder", "config-folder"])
def test_gits_default_ignore_file_made_while_watching_is_built(tmp_path, monkeypatch, config):
    """`$XDG_CONFIG_HOME/git/ignore` (git's excludes file when none is named) made after the
    watcher started, with its folder (`mkdir -p ~/.config/git`): the folder was not watched,
    as it was not there, and the note it lists stayed in the index until another save."""
    xdg = tmp_path / "home" / config  # the home there; XDG_CONFIG_HOME in it not yet (config)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    repo = copy_example(tmp_path / "repo", [ADR])
    _hashed(repo)
    shutil.copy(repo / ADR, repo / NOTE)  # an author's untracked note, indexed
    with _watched(repo) as updates:
        assert updates[0].error is None and updates[0].stats.documents == 2
        (xdg / "git").mkdir(parents=True)
        (xdg / "git" / "ignore").write_text("local-*.md\n", encoding="utf-8")
        _quiet(updates, 2, timeout=30)
        assert updates[-1].error is None and updates[-1].stats.documents == 1
        _as_full_build(repo, tmp_path)
