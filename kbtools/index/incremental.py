"""Derive index/ from a previous release's index: work in proportion to what changed.

A release's chunks are laid out by shard (`layout.shard_of`): chunk numbers run through the
shards in sorted order, so an edit of one document changes the chunk records of one shard
and moves the numbers of the shards after it. Comparing the two manifests' hashes of
data/chunks/<xx>.jsonl and data/vectors/<model>/<xx>.npy (and the records of docs.jsonl)
tells which shards changed; then

- the SQLite store is a copy of the previous one in which the changed shards' rows are
  replaced and the later rows renumbered (UPDATE, no rewrite);
- BM25 reuses every unchanged chunk's term ids (kept in index/bm25 by
  `kbtools.index.bm25.build_from_ids`), tokenizes only the changed shards' chunks and
  indexes them all again; the ids are made canonical, so the BM25 files are those a full
  derivation writes;
- each usearch graph is loaded, loses the changed shards' vectors, has its keys renamed to
  the new chunk numbers and gains the new vectors.

The result has the chunks, keys, BM25 matrices and answers of a full derivation; the store
and graph files differ in bytes (row placement, HNSW links), which is why a release is
checked with `kbtools.index.selfcheck`. Another tokenizer dictionary (a word of
`_dict.txt`, a synonym or a front-matter value added or taken out) leaves the store and the
graphs to be derived as above and tokenizes every chunk again for BM25 (its files are then
a full derivation's: a word added to tidb-docs-cn's dictionary, 53,830 chunks, derived in
11.5-14.8 s instead of 33.7-36.9 s afresh, of which tokenizing every chunk ~7.5 s). Anything unexpected (other settings, models or
tokenizer, a previous index of an older kbtools, files missing, a previous store cut short
or appended to: `selfcheck.index_rules`) makes `derive_incremental`
return False, and the caller derives everything afresh.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.cachedb import connect
from kbtools.config import Vocabulary
from kbtools.errors import KbError
from kbtools.fsutil import fresh_dir, read_json_lines
from kbtools.index import bm25 as bm25index
from kbtools.index import bm25_splice
from kbtools.index.layout import (
    CHUNK_DIR,
    DATA_DIR,
    SHARD_SUFFIX,
    VECTOR_DIR,
    ReleaseLayout,
    shard_of,
    tree_identity,
)
from kbtools.index.selfcheck import derivation_info, index_rules, sampled_shards
from kbtools.index.store import insert_chunks, insert_docs
from kbtools.index.tokenize import shared_tokenizer

_PARKED = np.uint64(1 << 40)  # keys are renamed through here so that no two ever collide


@dataclass
class Plan:
    """What changed between the previous release and this one, shard by shard."""

    shards: list[str]  # every shard of the new release, sorted (chunk order)
    changed: set[str]  # shards whose chunks are derived again
    old_range: dict[str, tuple[int, int]]  # shard → (first chunk number, count), previous
    new_count: dict[str, int] = field(default_factory=dict)
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # changed shards
    docs: list[dict[str, Any]] = field(default_factory=list)
    same_dictionary: bool = True  # False: BM25 tokenizes every chunk again (`_bm25_afresh`)

    def new_start(self) -> dict[str, int]:
        out, at = {}, 0
        for s in self.shards:
            out[s] = at
            at += self.new_count[s]
        return out


def _shard_hashes(manifest: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """shard → the sha256 of its chunk file and of each of its vector files."""
    chunk_prefix = f"{DATA_DIR}/{CHUNK_DIR}/"
    vector_prefix = f"{DATA_DIR}/{VECTOR_DIR}/"
    out: dict[str, list[str]] = {}
    for rel, meta in sorted(manifest.get("artifacts", {}).items()):
        if rel.startswith(chunk_prefix) and rel.endswith(SHARD_SUFFIX):
            shard = rel[len(chunk_prefix):-len(SHARD_SUFFIX)]
        elif rel.startswith(vector_prefix) and rel.endswith(".npy"):
            shard = rel.rsplit("/", 1)[1][:-len(".npy")]
        else:
            continue
        out.setdefault(shard, []).append(f"{rel}={meta['sha256']}")
    return {s: tuple(v) for s, v in out.items()}


def _compatible(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """Same settings, models and tokenizer but for its dictionary: unchanged chunks keep
    their rows and vectors (and their terms when the dictionary is the same too,
    `_same_dictionary`)."""
    return (new.get("format_version") == old.get("format_version")
            and new["config"]["values"] == old["config"]["values"]
            and new["models"] == old["models"]
            and _but_dictionary(new["tokenizer"]) == _but_dictionary(old["tokenizer"]))


def _but_dictionary(tokenizer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in tokenizer.items() if k != "dictionary_sha256"}


def _same_dictionary(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """Whether the two releases' tokenizers have one dictionary: a word added to it or
    taken out (`_dict.txt`, a synonym, a front-matter value) may change how any text is cut
    (jieba weighs every route by the words' frequencies, their total included), so then
    every chunk is tokenized again."""
    dictionary = f"{DATA_DIR}/dictionary.txt"
    return bool(new["tokenizer"] == old["tokenizer"]
            and new["artifacts"].get(dictionary) == old["artifacts"].get(dictionary))


def _old_ranges(con: sqlite3.Connection) -> dict[str, tuple[int, int]] | None:
    """shard → (first chunk number, count) in a store; None when shards are not contiguous
    in sorted order (not a store this module can update)."""
    spans: dict[str, list[int]] = {}
    for doc, lo, n in con.execute("SELECT doc, MIN(num), COUNT(*) FROM chunks GROUP BY doc"):
        s = spans.setdefault(shard_of(doc), [lo, 0])
        s[0], s[1] = min(s[0], lo), s[1] + n
    at = 0
    for shard in sorted(spans):
        if spans[shard][0] != at:
            return None
        at += spans[shard][1]
    return {s: (lo, n) for s, (lo, n) in spans.items()}


def _plan(new: ReleaseLayout, old: ReleaseLayout) -> Plan | None:
    new_m = json.loads(new.manifest.read_text(encoding="utf-8"))
    old_m = json.loads(old.manifest.read_text(encoding="utf-8"))
    needed = [old.store, old.bm25_vocab, old.bm25_tokens, old.bm25_offsets] + [
        old.usearch(m) for m in old_m["models"]]
    if not _compatible(new_m, old_m) or not all(p.is_file() for p in needed):
        return None
    if index_rules(old.root)[0] is not None:
        # derived by other rules, or a store cut short or appended to (its length not the
        # one its header records), which a copy would carry into the new index/
        return None
    con = connect(old.store, read_only=True)
    try:
        ranges = _old_ranges(con)
    finally:
        con.close()
    if ranges is None:
        return None  # not a store this module can update
    new_h = _shard_hashes(new_m)
    docs = read_json_lines(new.docs, error=KbError)
    changed = _changed(new, old, new_m, old_m, docs)
    plan = Plan(shards=sorted(new_h), changed=changed, old_range=ranges, docs=docs,
                same_dictionary=_same_dictionary(new_m, old_m))
    for s in plan.shards:
        if s in changed:
            plan.rows[s] = read_json_lines(new.chunk_shard(s), error=KbError)
            plan.new_count[s] = len(plan.rows[s])
        elif s in ranges:
            plan.new_count[s] = ranges[s][1]
        else:
            return None  # an unchanged shard the previous store does not hold
    return plan


def _changed(new: ReleaseLayout, old: ReleaseLayout, new_m: dict[str, Any],
             old_m: dict[str, Any], docs: list[dict[str, Any]]) -> set[str]:
    """The shards whose chunk or vector files, or documents' records, differ."""
    new_h, old_h = _shard_hashes(new_m), _shard_hashes(old_m)
    changed = {s for s in set(new_h) | set(old_h) if new_h.get(s) != old_h.get(s)}
    if new_m["artifacts"].get(f"{DATA_DIR}/docs.jsonl") != \
            old_m["artifacts"].get(f"{DATA_DIR}/docs.jsonl"):
        before = {d["doc"]: d for d in read_json_lines(old.docs, error=KbError)}
        after = {d["doc"]: d for d in docs}
        changed |= {shard_of(d) for d in set(before) | set(after)
                    if before.get(d) != after.get(d)}
    return changed


def changed_shards(root: Path, previous: Path) -> set[str]:
    """The shards of release `root` that differ from those of release `previous` (what an
    incremental derivation redid; the self-check reads all of their rows)."""
    new, old = ReleaseLayout(root), ReleaseLayout(previous)
    new_m = json.loads(new.manifest.read_text(encoding="utf-8"))
    old_m = json.loads(old.manifest.read_text(encoding="utf-8"))
    return _changed(new, old, new_m, old_m, read_json_lines(new.docs, error=KbError))


def derive_incremental(root: Path, previous: Path) -> bool:
    """Derive root/index from previous/index (see the module docstring); False when that is
    not possible and nothing useful was written (the caller derives afresh)."""
    new, old = ReleaseLayout(root), ReleaseLayout(previous)
    try:
        if not old.is_release() or old.root.resolve() == new.root.resolve():
            return False
        tree = tree_identity(previous)
        plan = _plan(new, old)
        if plan is None:
            return False
        fresh_dir(new.derived)
        cfg = json.loads(new.manifest.read_text(encoding="utf-8"))["config"]["values"]
        _store(new, old, plan, cfg)
        if plan.same_dictionary:
            _bm25(new, old, plan, cfg)
        else:
            _bm25_afresh(new, plan, cfg)
        for model in sorted(json.loads(new.manifest.read_text(encoding="utf-8"))["models"]):
            _graph(new, old, plan, model, cfg["index"])
        # another build into the same dist/ (`kb watch` and a `kb build`) swapped its tree
        # in meanwhile: the files read may be of two trees, the plan of one
        return tree_identity(previous) == tree
    except (OSError, ValueError, KeyError, sqlite3.Error, KbError):
        return False


def _moves(plan: Plan) -> list[tuple[int, int, int]]:
    """(old first number, count, shift) of each unchanged shard whose numbers move."""
    start = plan.new_start()
    return [(plan.old_range[s][0], plan.old_range[s][1], start[s] - plan.old_range[s][0])
            for s in plan.shards if s not in plan.changed
            and start[s] != plan.old_range[s][0]]


def _store(new: ReleaseLayout, old: ReleaseLayout, plan: Plan, cfg: dict[str, Any]) -> None:
    shutil.copyfile(old.store, new.store)
    start = plan.new_start()
    con = connect(new.store, isolation_level=None)
    try:
        con.execute("BEGIN")
        for s in sorted(plan.changed & set(plan.old_range)):
            lo, n = plan.old_range[s]
            con.execute("DELETE FROM chunks WHERE num >= ? AND num < ?", (lo, lo + n))
        for lo, n, shift in _moves(plan):  # parked at negative numbers, then put in place
            con.execute("UPDATE chunks SET num = -(num + ?) - 1 WHERE num >= ? AND num < ?",
                        (shift, lo, lo + n))
        con.execute("UPDATE chunks SET num = -num - 1 WHERE num < 0")
        metas = {d["doc"]: d.get("metadata") or {} for d in plan.docs}
        insert_chunks(con, ((start[s] + i, r) for s in sorted(plan.rows)
                            for i, r in enumerate(plan.rows[s])), metas)
        # (only a document whose front matter says verified can be stored as lapsed: its
        # chunks are looked up by the doc index, not by reading the whole table)
        claimed = [d["doc"] for d in plan.docs if (d.get("metadata") or {}).get("verified") is True]
        lapsed = {doc for doc in claimed if con.execute(
            "SELECT 1 FROM chunks WHERE doc = ? AND verified = 0 LIMIT 1", (doc,)).fetchone()}
        con.execute("DELETE FROM docs")
        con.execute("DELETE FROM facets")
        insert_docs(con, plan.docs, lapsed, Vocabulary.from_values(cfg).collected)
        commit = json.loads(new.manifest.read_text(encoding="utf-8"))["source"]["commit"]
        con.execute("DELETE FROM info")
        info = {"source_commit": commit, **derivation_info(cfg["bm25"]["tokenizer"])}
        con.executemany("INSERT INTO info VALUES (?,?)", sorted(info.items()))
        con.execute("COMMIT")
    finally:
        con.close()


def _bm25(new: ReleaseLayout, old: ReleaseLayout, plan: Plan, cfg: dict[str, Any]) -> None:
    flat, offsets, vocab = bm25index.load_tokens(old.bm25)
    if len(offsets) - 1 != sum(n for _, n in plan.old_range.values()):
        raise ValueError("BM25 token arrays do not match the previous store")
    words = new.dictionary.read_text(encoding="utf-8").split()
    tok = shared_tokenizer(cfg["bm25"]["tokenizer"], tuple(words))
    pieces: list[np.ndarray] = []
    lengths: list[np.ndarray] = []
    origin: list[int | None] = []  # a piece's first chunk number in the previous index
    for s in plan.shards:
        if s in plan.changed:
            ids = bm25index.tokenize([r["embed_text"] for r in plan.rows[s]], tok, vocab)
            pieces.append(np.fromiter((i for row in ids for i in row), dtype=np.int32))
            lengths.append(np.array([len(row) for row in ids], dtype=np.int64))
            origin.append(None)
        else:
            lo, n = plan.old_range[s]
            pieces.append(flat[offsets[lo]:offsets[lo + n]])
            lengths.append(np.diff(offsets[lo:lo + n + 1]))
            origin.append(lo)
    k1, b = cfg["bm25"]["k1"], cfg["bm25"]["b"]
    # from the previous postings when they are there (the same files: `bm25_splice`)
    if bm25_splice.splice(old.bm25, new.bm25, pieces, lengths, origin, (flat, offsets), vocab,
                          k1=k1, b=b):
        return
    new_flat = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int32)
    new_offsets = np.zeros(sum(len(x) for x in lengths) + 1, dtype=np.int64)
    if lengths:
        np.cumsum(np.concatenate(lengths), out=new_offsets[1:])
    bm25index.build_from_ids(new.bm25, new_flat, new_offsets, vocab, k1=k1, b=b)


def _bm25_afresh(new: ReleaseLayout, plan: Plan, cfg: dict[str, Any]) -> None:
    """The BM25 files of every chunk with the new dictionary, as a full derivation writes
    them (the store and the graphs do not depend on the dictionary: they are still derived
    from the previous ones). What the tokenizer says is kept for the shards the self-check
    reads: its sample and the changed shards."""
    rows = {s: plan.rows[s] if s in plan.rows else
            read_json_lines(new.chunk_shard(s), error=KbError) for s in plan.shards}
    kept = sampled_shards([s for s in plan.shards if rows[s]]) | plan.changed
    texts: list[str] = []
    remember: list[int] = []
    for s in plan.shards:
        if s in kept:
            remember.extend(range(len(texts), len(texts) + len(rows[s])))
        texts.extend(r["embed_text"] for r in rows[s])
    words = new.dictionary.read_text(encoding="utf-8").split()
    tok = shared_tokenizer(cfg["bm25"]["tokenizer"], tuple(words))
    bm25index.build(new.bm25, texts, tok, k1=cfg["bm25"]["k1"], b=cfg["bm25"]["b"],
                    remember=remember)


def _graph(new: ReleaseLayout, old: ReleaseLayout, plan: Plan, model: str,
           params: dict[str, Any]) -> None:
    from usearch.index import Index

    index = Index.restore(str(old.usearch(model)))
    if index is None:
        raise ValueError(f"not a usearch index: {old.usearch(model)}")
    index.expansion_add = params["expansion_add"]  # type: ignore[misc]
    keys = np.asarray(index.keys, dtype=np.uint64)
    shards = sorted(plan.old_range)
    starts = np.array([plan.old_range[s][0] for s in shards], dtype=np.int64)
    start = plan.new_start()
    shift = np.array([0 if s in plan.changed else start[s] - plan.old_range[s][0]
                      for s in shards], dtype=np.int64)
    gone = np.array([s in plan.changed for s in shards], dtype=bool)
    where = np.searchsorted(starts, keys.astype(np.int64), side="right") - 1
    drop = gone[where] if len(keys) else np.zeros(0, dtype=bool)
    if drop.any():
        index.remove(keys[drop])
    kept, moved = keys[~drop], shift[where[~drop]] if len(keys) else np.zeros(0, dtype=np.int64)
    move = moved != 0
    if move.any():
        index.rename(kept[move], kept[move] + _PARKED)
        index.rename(kept[move] + _PARKED, (kept[move].astype(np.int64) + moved[move])
                     .astype(np.uint64))
    for s in sorted(plan.rows):
        nums = [start[s] + i for i, r in enumerate(plan.rows[s]) if model in r["models"]]
        if nums:
            vecs = np.load(new.vector_shard(model, s), allow_pickle=False)
            if len(vecs) != len(nums):
                raise ValueError(f"vector shard {s} of {model} does not match its chunks")
            index.add(np.array(nums, dtype=np.uint64), vecs.astype(np.float32), threads=1)
    index.save(str(new.usearch(model)))
