"""The on-disk outline and chunk cache (`kbtools.build.parse_cache`) behind `BuildMemo`.

Round trips on the example knowledge (Chinese and English), and builds in a new process'
shoes (a fresh `BuildMemo`, the cache file left by the previous build): an edit parses and
chunks one document, and data/ and the manifest stay byte-identical to a build without any
cache, also when the cache file is damaged.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from kbtools.build.chunk import ChunkConfig, HeadingIndex, chunk_document
from kbtools.build.memo import BuildMemo, headings_key
from kbtools.build.parse_cache import (
    PARSE_CACHE_FILE,
    Outline,
    decode_chunks,
    decode_outline,
    encode_chunks,
    encode_outline,
)
from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.corpus import load_source
from kbtools.markdown.doctree import parse
from tests.kbfixtures import copy_example
from tests.test_incremental import TEST_HASH, edit_paragraph, tree

OPTS = dict(progress=False, provenance=False, lenient=True)


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    repo = copy_example(tmp_path_factory.mktemp("pc") / "repo")
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    return repo


def sources(repo: Path):
    return [load_source(p, repo)[0] for p in sorted((repo / "knowledge").rglob("*.md"))]


def test_outlines_and_chunks_round_trip(example):
    srcs = sources(example)
    docs = [parse(s) for s in srcs]
    resolver = HeadingIndex.build(docs)
    outlines = [Outline.of(d, s.body) for d, s in zip(docs, srcs, strict=True)]
    assert any(o.tables for o in outlines)  # the example has tables and formulas
    assert any(o.formulas for o in outlines)
    assert {o.lang for o in outlines} == {"en", "zh"}  # it has both languages
    for src, doc in zip(srcs, docs, strict=True):
        outline = Outline.of(doc, src.body)
        assert decode_outline(encode_outline(outline), src.rel) == outline
        chunks = chunk_document(src, ChunkConfig(), resolver=resolver, doc=doc)
        records = [dict(c.to_dict(), content_hash=f"h{i}", models=["m"])
                   for i, c in enumerate(chunks)]
        for r in records:
            r.pop("metadata")
        back, back_records = decode_chunks(encode_chunks(chunks, records), dict(src.meta))
        assert back == chunks and back_records == records


def _builds(example: Path, tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    shutil.copytree(example, repo)
    shutil.rmtree(repo / ".kb-cache", ignore_errors=True)
    dist = tmp_path / "dist"
    build(load_config(repo), BuildOptions(out=dist, **OPTS))
    assert (repo / ".kb-cache" / PARSE_CACHE_FILE).is_file()
    return repo, dist


def test_a_new_process_parses_only_the_edited_document(example, tmp_path):
    repo, dist = _builds(example, tmp_path)
    cfg = load_config(repo)
    again = BuildMemo()  # what a new `kb build` process starts with
    unchanged = build(cfg, BuildOptions(out=dist, memo=again, **OPTS))
    assert (again.parses, again.misses, again.hits) == (0, 0, unchanged.documents)
    assert again.lines_made == 0  # every document's data/chunks/ lines are reused
    edit_paragraph(repo)
    memo = BuildMemo()
    stats = build(cfg, BuildOptions(out=dist, memo=memo, **OPTS))
    assert (memo.parses, memo.misses, memo.hits) == (1, 1, stats.documents - 1)
    assert memo.lines_made == 1
    build(cfg, BuildOptions(out=tmp_path / "full", use_cache=False, **OPTS))
    assert tree(dist, "data") == tree(tmp_path / "full", "data")
    assert (dist / "manifest.json").read_bytes() == (tmp_path / "full/manifest.json").read_bytes()


def _parses_every_document_as_a_full_build(repo: Path, dist: Path, full: Path) -> None:
    """A rebuild into `dist` parses (and misses the cache for) every document, and its data/
    equals a build without any cache into `full`."""
    cfg = load_config(repo)
    memo = BuildMemo()
    stats = build(cfg, BuildOptions(out=dist, memo=memo, **OPTS))
    assert (memo.parses, memo.misses) == (stats.documents, stats.documents)
    build(cfg, BuildOptions(out=full, use_cache=False, **OPTS))
    assert tree(dist, "data") == tree(full, "data")


def test_a_new_heading_rechunks_every_document(example, tmp_path):
    """Cross references resolve against every heading: a new one re-chunks (and so
    re-parses) every document."""
    repo, dist = _builds(example, tmp_path)
    doc = repo / "knowledge/equipment/hx260-ch05-fault-codes.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\n\n## 9.9 新增小节\n\n正文。\n",
                   encoding="utf-8")
    _parses_every_document_as_a_full_build(repo, dist, tmp_path / "full")


@pytest.mark.parametrize("damage", ["garbage", "wrong-type", "unknown-node"])
def test_a_damaged_cache_is_a_miss(example, tmp_path, damage):
    repo, dist = _builds(example, tmp_path)
    value = {"garbage": "{not json", "wrong-type": "[1, 2]",
             "unknown-node": '{"title": "x", "lines": 1, "tables": [{"\\u0000t": "Evil"}], '
                             '"formulas": [], "images": [], "headings": []}'}[damage]
    con = sqlite3.connect(repo / ".kb-cache" / PARSE_CACHE_FILE)
    with con:
        con.execute("UPDATE outlines SET value = ?", (value,))
        con.execute("UPDATE chunks SET value = ?", (value,))
        con.execute("UPDATE lines SET value = ?", (value.encode(),))
        con.execute("UPDATE shards SET value = ?", (value,))  # kbtools.build.reuse
    con.close()
    _parses_every_document_as_a_full_build(repo, dist, tmp_path / "full")


def test_lines_follow_provenance_when_the_bytes_do_not_change(example, tmp_path):
    """A commit changes a document's blame, not its bytes: the cached lines of its chunks
    (kept per chunks *and* what the records add) are made again, and data/ still equals a
    build without any cache."""
    repo = tmp_path / "repo"
    shutil.copytree(example, repo)
    shutil.rmtree(repo / ".kb-cache", ignore_errors=True)
    cfg = load_config(repo)
    opts = dict(OPTS, provenance=True)
    dist = tmp_path / "dist"
    edit_paragraph(repo)  # uncommitted: blamed on the working tree
    build(cfg, BuildOptions(out=dist, **opts))
    subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.org", "commit",
                    "-qam", "edit"], cwd=repo, check=True)
    memo = BuildMemo()
    build(cfg, BuildOptions(out=dist, memo=memo, **opts))
    assert (memo.parses, memo.misses, memo.lines_made) == (0, 0, 1)
    build(cfg, BuildOptions(out=tmp_path / "full", use_cache=False, **opts))
    assert tree(dist, "data") == tree(tmp_path / "full", "data")
    assert (dist / "manifest.json").read_bytes() == (tmp_path / "full/manifest.json").read_bytes()


def test_headings_key_with_kept_digests_is_the_key_of_the_headings():
    """A watcher keeps each document's headings digest while its rows are the same object;
    the key is still that of the whole corpus's headings and titles."""
    rows_a = ((("A",), "", frozenset({"a"}), "a"),)
    rows_b = ((("B", "1.1 x"), "1.1", frozenset({"x", "y"}), "x"),)
    rows_b2 = ((("B", "1.2 x"), "1.2", frozenset({"x"}), "x"),)

    def index(b, title="U"):
        return HeadingIndex.from_rows([("a.md", "T", rows_a), ("b.md", title, b)])

    kept: dict = {}
    first = headings_key(index(rows_b), kept)
    assert first == headings_key(index(rows_b)) and kept["a.md"][0] is rows_a
    second = headings_key(index(rows_b2), kept)
    assert second != first and second == headings_key(index(rows_b2))
    assert kept["a.md"][0] is rows_a and kept["b.md"][0] is rows_b2
    assert headings_key(index(rows_b2, "V"), kept) not in (first, second)
    assert headings_key(index(rows_b), kept) == first
    # the anchor a heading's page gives it is what a link names (`Link.anchor`): part of it
    assert headings_key(index(((("B", "1.1 x"), "1.1", frozenset({"x", "y"}), "y"),))) != first
