"""Edits an author makes one after another, each followed by an incremental build into the
one dist/ and compared with a full `--no-cache` build of the same tree (data/, manifest,
BM25 files, store rows, answers: `test_incremental_edits.assert_equal_to_full`): a rename
with an edit, line endings and a byte-order mark put on and taken off, two documents'
contents swapped, a duplicate whose original goes, the synonym and dictionary files
removed and put back, the cache folder lost, a commit's parent checked out and back."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from tests.test_incremental import copied
from tests.test_incremental_edits import (
    ADR,
    FAULTS,
    OPTS,
    RUST,
    SCAB,
    _commit,
    _git,
    _replace,
    assert_equal_to_full,
    base,  # noqa: F401  (the module's fixture)
)


def rename_with_edit(repo: Path) -> None:
    """`git mv` and a changed paragraph in the same save (Git may see a delete and an add)."""
    moved = "knowledge/engineering/adr-0001-embedded-sqlite.md"
    _git(repo, "mv", ADR, moved)
    _replace(repo, moved, "\n## ", "\nEvery device keeps its own SQLite file.\n\n## ")


def rewrite(rels: tuple[str, ...], change: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    """The edit that rewrites the bytes of the documents `rels` with `change`."""
    def edit(repo: Path) -> None:
        for rel in rels:
            path = repo / rel
            path.write_bytes(change(path.read_bytes()))
    return edit


to_crlf = rewrite((FAULTS, SCAB), lambda text: text.replace(b"\n", b"\r\n"))
to_lf = rewrite((FAULTS, SCAB), lambda text: text.replace(b"\r\n", b"\n"))
# old Mac line endings (a lone CR) in an English and a Chinese document
to_lone_cr = rewrite((ADR, RUST), lambda text: text.replace(b"\n", b"\r"))
from_lone_cr = rewrite((ADR, RUST), lambda text: text.replace(b"\r", b"\n"))
add_bom = rewrite((ADR, SCAB), lambda text: b"\xef\xbb\xbf" + text)
drop_bom = rewrite((ADR, SCAB), lambda text: text.removeprefix(b"\xef\xbb\xbf"))


def swap(repo: Path) -> None:
    """Two documents' contents exchanged under their names (same texts, other paths)."""
    a, b = repo / SCAB, repo / RUST
    text_a, text_b = a.read_bytes(), b.read_bytes()
    a.write_bytes(text_b)
    b.write_bytes(text_a)


def duplicate(repo: Path) -> None:
    shutil.copy(repo / FAULTS, repo / "knowledge/equipment/fault-codes-copy.md")


def drop_original(repo: Path) -> None:
    (repo / FAULTS).unlink()


def restore_original(repo: Path) -> None:
    shutil.copy(repo / "knowledge/equipment/fault-codes-copy.md", repo / FAULTS)
    (repo / "knowledge/equipment/fault-codes-copy.md").unlink()


def drop_word_lists(repo: Path) -> None:
    for name in ("_synonyms.txt", "_dict.txt"):
        path = repo / "knowledge" / name
        path.rename(repo / name)


def restore_word_lists(repo: Path) -> None:
    for name in ("_synonyms.txt", "_dict.txt"):
        (repo / name).rename(repo / "knowledge" / name)


def lose_caches(repo: Path) -> None:
    """The repository's cache folder removed (`git clean -xdf`, a fresh CI runner that kept
    dist/) with an edit: the next build has only the previous dist/ to start from."""
    shutil.rmtree(load_config(repo).cache_dir())
    _replace(repo, FAULTS, "\n\n", "\n\nAn added sentence about the hydraulic filter.\n\n")


def edit_and_commit(repo: Path) -> None:
    _replace(repo, SCAB, "\n\n", "\n\n赤霉病防治的补充：扬花初期施药。\n\n")
    rename_with_edit(repo)
    _commit(repo, "an edit and a rename")


def check_out_parent(repo: Path) -> None:
    """The commit before checked out (detached): every document's blame goes back too."""
    _git(repo, "checkout", "-q", "HEAD~1")


def check_out_branch(repo: Path) -> None:
    _git(repo, "checkout", "-q", "-")


CHAINS: dict[str, list[Callable[[Path], None]]] = {
    "rename-with-edit": [rename_with_edit, lambda repo: _commit(repo, "rename with an edit")],
    "line-endings": [to_crlf, to_lf, to_lone_cr, from_lone_cr],
    "byte-order-mark": [add_bom, drop_bom],
    "swap": [swap, swap],
    "duplicate": [duplicate, drop_original, restore_original],
    "word-lists": [drop_word_lists, restore_word_lists],
    "lost-caches": [lose_caches, lose_caches],
    "checkouts": [edit_and_commit, check_out_parent, check_out_branch],
}


@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_a_chain_of_edits_builds_as_full_builds(base, tmp_path, chain):  # noqa: F811
    repo, dist = copied(base, tmp_path)
    for step, edit in enumerate(CHAINS[chain]):
        edit(repo)
        stats = build(load_config(repo), BuildOptions(out=dist, **OPTS))
        assert stats.derivation == "incremental", (chain, step)
        assert_equal_to_full(repo, dist, tmp_path / f"full-{step}")
