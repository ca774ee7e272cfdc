"""Folder and file names handed to git as pathspecs match those names alone: a kb root or a
knowledge folder named with pathspec magic (`kb[1]`, a name starting with `:`) is not
taken for its neighbours (`kb1`, `kb`), in `kb build`'s dirty flag and `kb watch`'s
list of changed documents (`pathspecs.top_literal`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.index.manifest import load_manifest
from kbtools.ship.git import ls_tree
from tests.kbfixtures import copy_example
from tests.test_release_helpers import git
from tests.test_watch_history import append_text, watching

TEST_HASH = 'model = "test-hash"\nlanguages = { en = "test-hash" }'
DOCS = ["knowledge/crops/field-survey-methods.md",
        "knowledge/engineering/adr-0001-sqlite-on-devices.md"]


def _kb(dest: Path, tmp: Path) -> Path:
    """A kb root at `dest` (inside the repository the caller makes) of `DOCS`, embedded
    with the test hash."""
    src = copy_example(tmp / f"src-{len(list(tmp.glob('src-*')))}", DOCS)
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".git"))
    toml = dest / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    return dest


def _commit(top: Path, message: str) -> None:
    git(top, "add", "--all", ".")
    git(top, "commit", "-qm", message)


def _dirty(root: Path, out: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.chdir(root)
    built = CliRunner().invoke(main, ["build", "--quiet", "--out", str(out)])
    assert built.exit_code == 0, built.output
    return bool(load_manifest(out)["source"]["dirty"])


@pytest.mark.parametrize(("name", "neighbour"), [(":kb", "kb"), ("kb[1]", "kb1"),
                                                  (":(glob)kb", "kb")])
def test_a_build_is_dirty_by_its_own_edits_alone(tmp_path, monkeypatch, name, neighbour):
    """`:kb/knowledge` handed to git bare is `kb/knowledge`: the neighbour's edit made the
    build of the kb root `:kb` dirty, and its own edit left it clean."""
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    root, other = _kb(top / name, tmp_path), _kb(top / neighbour, tmp_path)
    _commit(top, "two knowledge bases")
    assert _dirty(root, tmp_path / "d1", monkeypatch) is False
    append_text(other / DOCS[0], "\nThe neighbour's edit.\n")
    assert _dirty(root, tmp_path / "d2", monkeypatch) is False
    git(top, "checkout", "--", ".")
    append_text(root / DOCS[0], "\nIts own edit.\n")
    assert _dirty(root, tmp_path / "d3", monkeypatch) is True


def test_a_watcher_of_a_kb_root_named_with_a_colon_says_its_own_documents(tmp_path):
    """`kb watch` of `:kb` lists the documents a commit changed with `git diff -- :/:kb/`,
    which is `kb/`: the first commit and every later one changed no document of `:kb`."""
    top = tmp_path / "repo"
    root, other = _kb(top / ":kb", tmp_path), _kb(top / "kb", tmp_path)
    updates, stop, thread = watching(root, tmp_path / "watched")
    try:
        assert updates.get(timeout=180).error is None
        git(top, "init", "-q", "-b", "main")
        _commit(top, "first")
        while (u := updates.get(timeout=60)).git is None:
            pass
        assert u.error is None and u.git.startswith("first commit") and set(DOCS) <= set(u.changed)
        append_text(root / DOCS[0], "\nIts own edit.\n")
        u = updates.get(timeout=60)  # the save, built as dirty
        assert u.git is None and u.changed == (DOCS[0],)
        git(top, "commit", "-qam", "own")  # no file of `:kb` changes: git's diff says which
        u = updates.get(timeout=60)
        assert u.git is not None and u.git.endswith(": own") and u.changed == (DOCS[0],)
        append_text(other / DOCS[1], "\nThe neighbour's edit.\n")
        git(top, "commit", "-qam", "neighbour")
        u = updates.get(timeout=60)
        assert u.git is not None and u.git.endswith(": neighbour") and u.changed == ()
    finally:
        stop.set()
        thread.join(timeout=30)


def test_ls_tree_lists_the_names_asked_for_alone(tmp_path):
    """`ship.git.ls_tree` (the release's top files) names each path alone: `:kb` handed
    to git bare is `kb`, and `:(glob)*` every file. No release file is named so today."""
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    for name in (":kb", "kb", "kb[1]", "kb1", ":(glob)*"):
        (top / name).write_text(name, encoding="utf-8")
    _commit(top, "names")
    asked = [":kb", "kb[1]", ":(glob)*"]
    listed = ls_tree(top / ".git", "HEAD", asked, recursive=False)
    assert sorted(e.path for e in listed) == sorted(asked)
