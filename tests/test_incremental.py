"""Incremental derivation (`kbtools.index.incremental`) against a full one.

Each case builds the example knowledge (test-hash embedder: fast, deterministic), changes
it, rebuilds into the same dist/ (index/ derived from the previous one) and builds the
changed knowledge from scratch elsewhere: data/ and the manifest must be byte-identical,
the BM25 files too, the store must hold the same rows, and `kb query --json` must give
the same answers; the self-check must pass on both and catch a corrupted index.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.layout import ReleaseLayout
from kbtools.index.materialize import materialize
from kbtools.index.reader import open_index
from kbtools.index.selfcheck import check_derived
from kbtools.query.search import search
from tests.kbfixtures import copy_example

TEST_HASH = 'model = "test-hash"\nlanguages = { en = "test-hash" }'
QUESTIONS = ["采样方法", "fault code E17 hydraulic pressure", "SQLite on devices",
             "病虫害调查", "how many files were truncated", "扭矩", "pump bolts torque",
             "土壤 含水量", "decision record", "警告"]


def tree(root: Path, sub: str) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted((root / sub).rglob("*")) if p.is_file()}


def answers(dist: Path, questions: list[str] = QUESTIONS) -> list[dict]:
    """`kb query --json` of each question (less its timing); at least half answered."""
    index = open_index(dist)
    try:
        out = [search(index, q, k=5, keep_results=True).to_dict() for q in questions]
    finally:
        index.close()
    for a in out:
        a.pop("took_ms")
    assert sum(bool(a["results"]) for a in out) >= len(questions) // 2
    return out


def store_rows(dist: Path) -> tuple[list[tuple], list[tuple], list[tuple]]:
    con = sqlite3.connect(ReleaseLayout(dist).store)
    try:
        return (con.execute("SELECT * FROM chunks ORDER BY num").fetchall(),
                con.execute("SELECT * FROM docs ORDER BY doc").fetchall(),
                con.execute("SELECT * FROM facets ORDER BY field, value, doc").fetchall())
    finally:
        con.close()


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> tuple[Path, Path]:
    """The example knowledge (test-hash) and a full build of it, copied by each test."""
    root = tmp_path_factory.mktemp("incr")
    repo = copy_example(root / "repo")
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    dist = root / "dist"
    stats = build(load_config(repo), BuildOptions(out=dist, progress=False, provenance=False))
    assert stats.derivation == "full"
    return repo, dist


def copied(base: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """A module's built repository (its `base` fixture) and its dist/ copied into
    `tmp_path`: (repo, dist)."""
    repo0, dist0 = base
    repo, dist = tmp_path / "repo", tmp_path / "dist"
    shutil.copytree(repo0, repo)
    shutil.copytree(dist0, dist)
    return repo, dist


def _first_paragraph(text: str) -> str:
    return next(p for p in text.split("\n\n") if len(p) > 60 and p[0].isalnum())


def edit_paragraph(repo: Path) -> None:
    doc = repo / "knowledge/equipment/hx260-ch05-fault-codes.md"
    text = doc.read_text(encoding="utf-8")
    para = _first_paragraph(text.split("---", 2)[2])
    doc.write_text(text.replace(para, para + " An added sentence about calibration.", 1),
                   encoding="utf-8")


def add_document(repo: Path) -> None:
    src = repo / "knowledge/crops/field-survey-methods.md"
    (repo / "knowledge/crops/field-survey-methods-copy.md").write_text(
        src.read_text(encoding="utf-8").replace("title:", "title: Copy of", 1), encoding="utf-8")


def delete_document(repo: Path) -> None:
    (repo / "knowledge/engineering/adr-0001-sqlite-on-devices.md").unlink()


def rename_document(repo: Path) -> None:
    src = repo / "knowledge/engineering/adr-0001-sqlite-on-devices.md"
    src.rename(src.with_name("adr-0001-sqlite-renamed.md"))


def change_formula(repo: Path) -> None:
    doc = next(p for p in sorted((repo / "knowledge").rglob("*.md"))
               if "$$" in p.read_text(encoding="utf-8"))
    text = doc.read_text(encoding="utf-8")
    start = text.index("$$") + 2
    doc.write_text(text[:start] + " x_{new} + " + text[start:], encoding="utf-8")


def change_front_matter(repo: Path) -> None:
    doc = repo / "knowledge/crops/field-survey-methods.md"
    text = doc.read_text(encoding="utf-8")
    doc.write_text(text.replace("title:", "title: Retitled", 1), encoding="utf-8")


def change_dictionary(repo: Path) -> None:
    """A word added to the user dictionary (the text holds it) and one taken out: every
    chunk may be cut otherwise, so BM25 tokenizes them all again; the store and the graphs
    are still derived from the previous index."""
    path = repo / "knowledge/_dict.txt"
    text = path.read_text(encoding="utf-8")
    assert "穗腐 5 n\n" in text
    path.write_text(text.replace("穗腐 5 n\n", "") + "病情指数 10 n\n", encoding="utf-8")


def change_synonyms(repo: Path) -> None:
    """A synonym added to a group: a new dictionary term, and the query-time groups."""
    path = repo / "knowledge/_synonyms.txt"
    text = path.read_text(encoding="utf-8")
    assert "= 烂穗病 =" in text
    path.write_text(text.replace("= 烂穗病 =", "= 烂穗病 = 病穗 =", 1), encoding="utf-8")


def change_dictionary_and_edit(repo: Path) -> None:
    change_dictionary(repo)
    edit_paragraph(repo)


CHANGES = {"edit": edit_paragraph, "add": add_document, "delete": delete_document,
           "rename": rename_document, "formula": change_formula,
           "front-matter": change_front_matter, "dictionary": change_dictionary,
           "synonyms": change_synonyms, "dictionary-and-edit": change_dictionary_and_edit}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_incremental_rebuild_equals_a_full_build(base, tmp_path, change):
    repo, dist = copied(base, tmp_path)
    CHANGES[change](repo)
    cfg = load_config(repo)
    opts = dict(progress=False, provenance=False, lenient=True)
    incr = build(cfg, BuildOptions(out=dist, **opts))
    assert incr.derivation == "incremental"
    full = build(cfg, BuildOptions(out=tmp_path / "full", use_cache=False, **opts))
    assert full.derivation == "full"
    assert tree(dist, "data") == tree(tmp_path / "full", "data")
    assert (dist / "manifest.json").read_bytes() == (tmp_path / "full/manifest.json").read_bytes()
    assert tree(dist, "index/bm25") == tree(tmp_path / "full", "index/bm25")
    assert store_rows(dist) == store_rows(tmp_path / "full")
    assert check_derived(dist) == [] and check_derived(tmp_path / "full") == []
    assert answers(dist) == answers(tmp_path / "full")


def test_unchanged_rebuild_and_chained_edits_stay_equal(base, tmp_path):
    repo, dist = copied(base, tmp_path)
    cfg = load_config(repo)
    opts = dict(progress=False, provenance=False, lenient=True)
    for change in (None, edit_paragraph, add_document, delete_document):
        if change is not None:
            change(repo)
        assert build(cfg, BuildOptions(out=dist, **opts)).derivation == "incremental"
    build(cfg, BuildOptions(out=tmp_path / "full", use_cache=False, **opts))
    assert tree(dist, "data") == tree(tmp_path / "full", "data")
    assert store_rows(dist) == store_rows(tmp_path / "full")
    assert answers(dist) == answers(tmp_path / "full")


def test_other_settings_derive_afresh(base, tmp_path):
    repo, dist = copied(base, tmp_path)
    with (repo / "kb.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n[bm25]\nk1 = 1.3\n")
    stats = build(load_config(repo), BuildOptions(out=dist, progress=False, provenance=False))
    assert stats.derivation == "full"
    assert check_derived(dist) == []


CORRUPTIONS = {
    "store row": lambda d: _sql(d, "UPDATE chunks SET text = text || 'x' WHERE num = 3"),
    "store rows lost": lambda d: _sql(d, "DELETE FROM chunks WHERE num = 5"),
    "store shared vectors": lambda d: _sql(  # tables, code … lent the wrong chunks' vectors
        d, "UPDATE chunks SET shares = shares + 1 WHERE shares IS NOT NULL"),
    "store numbering": lambda d: _sql(
        d, "UPDATE chunks SET num = -1 WHERE num = 0; UPDATE chunks SET num = 0 WHERE num = 1;"
           "UPDATE chunks SET num = 1 WHERE num = -1"),
    "bm25 postings": lambda d: _npy(ReleaseLayout(d).bm25 / "data.csc.index.npy"),
    "bm25 terms": lambda d: _npy(ReleaseLayout(d).bm25_tokens),
    "vector graph": lambda d: _graph(d),
}


def _sql(dist: Path, script: str) -> None:
    con = sqlite3.connect(ReleaseLayout(dist).store)
    con.executescript(script)
    con.commit()
    con.close()


def _npy(path: Path) -> None:
    arr = np.load(path)
    arr[len(arr) // 2:] = arr[len(arr) // 2:][::-1].copy()  # reorder the second half
    np.save(path, arr)


def _graph(dist: Path) -> None:
    from usearch.index import Index

    path = ReleaseLayout(dist).usearch("test-hash")
    index = Index.restore(str(path))
    index.remove(np.uint64(2))
    index.add(np.uint64(2), np.ones(index.ndim, dtype=np.float32))
    index.save(str(path))


@pytest.mark.parametrize("what", sorted(CORRUPTIONS))
def test_a_corrupted_index_is_caught_by_the_self_check(base, tmp_path, what):
    _, dist0 = base
    dist = tmp_path / "dist"
    shutil.copytree(dist0, dist)
    assert check_derived(dist) == []
    CORRUPTIONS[what](dist)
    assert check_derived(dist) != []
    assert materialize(dist) == "full"  # re-derived from data/ alone
    assert check_derived(dist) == []
    assert json.loads((dist / "manifest.json").read_text(encoding="utf-8"))["derived"] == {}


# --- a device: a real release, a real sync of a second one ----------------------------

def release(repo: Path, art: Path, message: str):
    """Commit the work tree (an edit may leave nothing to commit: a commit all the same),
    build it and push its release to `art`."""
    import git as gitpython

    from kbtools.ship.release import make_release

    r = gitpython.Repo(repo)
    r.git.add("-A")
    r.git.commit("-q", "--allow-empty", "-m", message)
    cfg = load_config(repo)
    build(cfg, BuildOptions(progress=False, lenient=True))
    return make_release(repo, cfg.path("dist"), remote=str(art))


@pytest.mark.parametrize("corrupt_served", [False, True, "appended"])
def test_device_derives_a_second_release_from_the_served_one(base, tmp_path, corrupt_served):
    import subprocess

    from kbtools.ship import device
    from kbtools.ship.operate import status
    from kbtools.ship.sync import sync

    repo0, _ = base
    repo = tmp_path / "repo"
    shutil.copytree(repo0, repo)
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    release(repo, art, "first")
    dev = tmp_path / "device"
    assert sync(str(art), dev).tag == "kb-r1"
    first = device.served_release(dev)
    assert first is not None and check_derived(first) == []
    if corrupt_served == "appended":  # pages appended to its store, which SQLite ignores
        with (first / "index" / "store.sqlite").open("ab") as fh:
            fh.write(bytes(4096))
        assert status(dev)["served"]["problems"]
    elif corrupt_served:  # the served index was damaged on the device
        _sql(first, "UPDATE chunks SET embed_text = 'x' WHERE num = 1")
        assert status(dev)["served"]["problems"]
    edit_paragraph(repo)
    release(repo, art, "one paragraph")
    assert sync(str(art), dev).tag == "kb-r2"
    served = device.served_release(dev)
    assert served is not None and check_derived(served) == []
    verified = json.loads((served / "verified.json").read_text(encoding="utf-8"))
    # a corrupted served index is caught by the self-check and the new one derived afresh;
    # a store appended to is not derived from (`selfcheck.index_rules`), as the check
    # reads no byte of what was appended
    assert verified["derivation"] == ("full" if corrupt_served else "incremental")
    assert status(dev)["served"]["problems"] == []
    fresh = tmp_path / "fresh"
    shutil.copytree(served, fresh, ignore=shutil.ignore_patterns("index"))
    materialize(fresh)
    assert store_rows(served) == store_rows(fresh)
    assert tree(served, "index/bm25") == tree(fresh, "index/bm25")
    assert answers(served) == answers(fresh)


def test_a_watchers_memo_rechunks_only_the_saved_document(base, tmp_path):
    from kbtools.build.memo import BuildMemo

    repo, dist = copied(base, tmp_path)
    cfg = load_config(repo)
    shutil.rmtree(repo / ".kb-cache", ignore_errors=True)  # nothing parsed before
    memo = BuildMemo()
    opts = dict(progress=False, provenance=False, lenient=True)
    first = build(cfg, BuildOptions(out=dist, memo=memo, **opts))
    assert (memo.hits, memo.misses, memo.parses) == (0, first.documents, first.documents)
    build(cfg, BuildOptions(out=dist, memo=memo, **opts))  # unchanged: front matter read
    read = {rel: r.source for rel, (_, r) in memo.checked.items()}  # (checks' results)
    assert len(read) == first.documents
    edit_paragraph(repo)
    build(cfg, BuildOptions(out=dist, memo=memo, **opts))
    assert (memo.hits, memo.misses) == (2 * first.documents - 1, first.documents + 1)
    assert memo.parses == first.documents + 1
    # the checks did not read an unchanged document again; they read the edited one
    again = {rel: r.source for rel, (_, r) in memo.checked.items()}
    assert [rel for rel in read if again[rel] is not read[rel]] == \
        ["knowledge/equipment/hx260-ch05-fault-codes.md"]
    delete_document(repo)
    build(cfg, BuildOptions(out=dist, memo=memo, **opts))
    build(cfg, BuildOptions(out=tmp_path / "full", use_cache=False, **opts))
    assert tree(dist, "data") == tree(tmp_path / "full", "data")
    assert (dist / "manifest.json").read_bytes() == (tmp_path / "full/manifest.json").read_bytes()
    assert store_rows(dist) == store_rows(tmp_path / "full")


def test_the_self_check_reads_every_row_of_the_shards_an_update_redid(base, tmp_path,
                                                                      monkeypatch):
    """A device checks all rows of the changed shards (`changed_shards`), not only a
    sample: a row of the edited document corrupted after an incremental derivation is
    caught however many shards the release has."""
    from kbtools.index import selfcheck
    from kbtools.index.incremental import changed_shards
    from kbtools.index.layout import shard_of

    repo, dist = copied(base, tmp_path)
    prev = tmp_path / "prev"
    shutil.copytree(base[1], prev)
    edit_paragraph(repo)
    opts = dict(progress=False, provenance=False, lenient=True)
    assert build(load_config(repo), BuildOptions(out=dist, **opts)).derivation == "incremental"
    edited = "knowledge/equipment/hx260-ch05-fault-codes.md"
    assert changed_shards(dist, prev) == {shard_of(edited)}
    _sql(dist, f"UPDATE chunks SET text = 'x' WHERE num = (SELECT MAX(num) FROM chunks "
               f"WHERE doc = '{edited}')")
    # as in a release of many shards: the sample (here the first shard) misses the edit
    monkeypatch.setattr(selfcheck, "SAMPLED_SHARDS", 1)
    shards = sorted({shard_of(p.relative_to(repo).as_posix())
                     for p in (repo / "knowledge").rglob("*.md")})
    assert shards[0] != shard_of(edited)
    assert check_derived(dist) == []  # the sample alone misses it
    assert check_derived(dist, changed_shards(dist, prev)) != []
