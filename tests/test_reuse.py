"""Shards of the previous output taken as they are (`kbtools.build.reuse`).

A rebuild after an edit writes the edited document's shard and hard-links the others from
the previous dist/; whatever it takes or writes, data/ and the manifest equal a build
without any cache. A shard file changed in dist/ after the build (rewritten in place, or
replaced) is never trusted: it is written again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from pathlib import Path

import git
import pytest

from kbtools.build.memo import BuildMemo
from kbtools.build.pipeline import BuildOptions, build
from kbtools.build.reuse import history_key
from kbtools.config import load_config
from kbtools.index.layout import ReleaseLayout, shard_of
from kbtools.provenance import LineProvenance
from tests.kbfixtures import copy_example
from tests.test_incremental import TEST_HASH, answers, edit_paragraph, store_rows, tree

OPTS = dict(progress=False, provenance=False, lenient=True)
EDITED = "knowledge/equipment/hx260-ch05-fault-codes.md"


def inodes(dist: Path) -> dict[str, int]:
    layout = ReleaseLayout(dist)
    return {p.relative_to(dist).as_posix(): p.stat().st_ino
            for p in sorted((dist / "data").rglob("*")) if p.is_file()
            and (p.parent == layout.chunks or p.parent.parent == layout.root / "data/vectors")}


def same_as_full(repo: Path, dist: Path, full: Path) -> None:
    build(load_config(repo), BuildOptions(out=full, use_cache=False, **OPTS))
    assert tree(dist, "data") == tree(full, "data")
    assert (dist / "manifest.json").read_bytes() == (full / "manifest.json").read_bytes()
    assert store_rows(dist) == store_rows(full)


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    repo = copy_example(tmp_path_factory.mktemp("reuse") / "repo")
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    return repo


@pytest.fixture
def built(example, tmp_path) -> tuple[Path, Path]:
    """A copy of the example (test-hash) built into dist/ with a fresh cache, which records
    its shards."""
    repo, dist = tmp_path / "repo", tmp_path / "dist"
    shutil.copytree(example, repo)
    build(load_config(repo), BuildOptions(out=dist, **OPTS))
    return repo, dist


def test_an_edit_writes_only_its_shard(built, tmp_path):
    repo, dist = built
    before = inodes(dist)
    edit_paragraph(repo)
    memo = BuildMemo()
    stats = build(load_config(repo), BuildOptions(out=dist, memo=memo, **OPTS))
    after = inodes(dist)
    edited = shard_of(EDITED)
    linked = {p for p in after if before.get(p) == after[p]}
    assert linked and all(edited not in Path(p).name for p in linked)
    assert {p for p in after if edited in Path(p).name} <= set(after) - linked
    # the other shards' documents were neither decoded nor chunked; verified documents'
    # shards (their chunks carry verification) were
    assert memo.misses == 1 and memo.hits == stats.documents - 1
    assert stats.derivation == "incremental"
    same_as_full(repo, dist, tmp_path / "full")
    assert answers(dist) == answers(tmp_path / "full")


def tamper(path: Path, bad: bytes, how: str) -> None:
    """Change a built file after the build: in place (same inode, same size) or replaced."""
    if how == "in-place":
        with open(path, "r+b") as f:
            f.write(bad)
    else:
        path.unlink()
        path.write_bytes(bad)


@pytest.mark.parametrize("how", ["in-place", "replaced"])
def test_a_shard_changed_after_the_build_is_written_again(built, tmp_path, how):
    repo, dist = built
    shard = next(p for p in sorted(inodes(dist)) if p.endswith(".jsonl")
                 and os.stat(dist / p).st_nlink == 1)
    path = dist / shard
    data = path.read_bytes()
    bad = data.replace(b'"kind"', b'"KIND"', 1)
    assert bad != data and len(bad) == len(data)
    tamper(path, bad, how)
    build(load_config(repo), BuildOptions(out=dist, **OPTS))
    assert (dist / shard).read_bytes() == data
    same_as_full(repo, dist, tmp_path / "full")


def test_no_cache_takes_nothing(built):
    repo, dist = built
    before = inodes(dist)
    build(load_config(repo), BuildOptions(out=dist, use_cache=False, **OPTS))
    after = inodes(dist)
    assert not {p for p in after if before.get(p) == after[p]}


def test_in_git_a_commit_writes_only_what_its_history_changed(example, tmp_path):
    """Inside Git every chunk carries provenance (its lines' blame); the blame is part of a
    shard's key, so a build after a commit takes the untouched shards as they are, writes
    the shard whose blame changed even when its bytes did not (an edit built uncommitted,
    then committed), and equals a full build byte for byte."""
    repo, dist = tmp_path / "repo", tmp_path / "dist"
    shutil.copytree(example, repo)
    opts = dict(OPTS, provenance=True)
    build(load_config(repo), BuildOptions(out=dist, **opts))
    edited = shard_of(EDITED)
    assert b'"provenance": {"last_author"' in (dist / f"data/chunks/{edited}.jsonl").read_bytes()
    edit_paragraph(repo)
    steps = []
    for step in ("uncommitted", "committed"):
        if step == "committed":
            git_repo = git.Repo(repo)
            git_repo.index.add([EDITED])
            git_repo.index.commit("edit one paragraph", author_date="2025-12-01T00:00:00",
                                  commit_date="2025-12-01T00:00:00")
            git_repo.close()
        before = inodes(dist)
        build(load_config(repo), BuildOptions(out=dist, **opts))
        after = inodes(dist)
        linked = {p for p in after if before.get(p) == after[p]}
        assert linked and all(edited not in Path(p).name for p in linked)
        steps.append((dist / f"data/chunks/{edited}.jsonl").read_bytes())
        full = tmp_path / f"full-{step}"
        build(load_config(repo), BuildOptions(out=full, use_cache=False, **opts))
        assert tree(dist, "data") == tree(full, "data")
        assert (dist / "manifest.json").read_bytes() == (full / "manifest.json").read_bytes()
        assert store_rows(dist) == store_rows(full)
    assert b"uncommitted" in steps[0] and steps[0] != steps[1]
    assert answers(dist) == answers(tmp_path / "full-committed")


def csv_inodes(dist: Path) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in (dist / "data" / "tables").glob("*.csv")}


def test_unchanged_tables_are_linked_a_new_one_written(built, tmp_path):
    """data/tables/ files whose bytes the previous output holds are hard-linked from it;
    a new table is written; data/ and the manifest equal a build without any cache."""
    repo, dist = built
    before = csv_inodes(dist)
    assert len(before) > 2
    doc = repo / EDITED
    doc.write_text(doc.read_text(encoding="utf-8") + "\n\n| 新列 | 值 |\n|---|---|\n| a | b |\n",
                   encoding="utf-8")
    build(load_config(repo), BuildOptions(out=dist, **OPTS))
    after = csv_inodes(dist)
    assert set(before) < set(after)
    assert all(after[name] == ino for name, ino in before.items())  # all linked
    same_as_full(repo, dist, tmp_path / "full")


@pytest.mark.parametrize("how", ["in-place", "replaced"])
def test_a_table_changed_after_the_build_is_written_again(built, tmp_path, how):
    repo, dist = built
    path = sorted((dist / "data" / "tables").glob("*.csv"))[0]
    data = path.read_bytes()
    bad = data[:-3] + b"ZZZ"
    assert bad != data and len(bad) == len(data)
    tamper(path, bad, how)
    build(load_config(repo), BuildOptions(out=dist, **OPTS))
    assert path.read_bytes() == data
    same_as_full(repo, dist, tmp_path / "full")


def test_history_key_is_the_digest_of_every_lines_fields_in_order():
    """A shard's key digests its documents' blame as the JSON of each line's fields in
    their order (`dataclasses.astuple`, computed without its deep copies): keys recorded
    by earlier builds stay valid."""
    blame = [LineProvenance(1, "a" * 40, "张伟", "zhang@example.org", "2026-01-02T03:04:05+08:00",
                            1767294245, 1767294245),
             LineProvenance(2, "uncommitted", "", "", "", 0, 0)]
    text = json.dumps([dataclasses.astuple(p) for p in blame], ensure_ascii=False)
    assert history_key(blame) == ":blame:" + hashlib.sha256(text.encode()).hexdigest()
    assert history_key([]) == history_key(None) == ""
