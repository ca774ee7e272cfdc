"""BM25 of an edited index from the previous one's postings, without sorting every term again.

A full derivation sorts every term id of every chunk (`bm25.postings`) twice: once to make
the ids canonical (numbered in order of first occurrence), once for the (term, chunk,
count) postings of the CSC matrix. An edit changes the chunks of a few shards; every other
chunk keeps its terms and counts, only its number moves (by a whole shard's worth). So
from the previous index's postings (`kb_tf.npy` beside bm25s's `indices`/`indptr`):

- the kept chunks' postings are renumbered (a row map, monotone: shards keep their order)
  and the changed chunks' postings, sorted on their own, are merged in by binary search;
- canonical ids: a term is numbered by its first occurrence, i.e. by (first chunk holding
  it, first position inside that chunk). The first chunk is the first row of its column.
  Inside a chunk whose first terms all had it as their first chunk before, their previous
  ids already give their order; for a chunk that is new, or now first holds a term that
  first occurred elsewhere before, the positions are read from its term ids;
- the columns are put in the new order and every score is computed again (the number of
  chunks and their average length changed: `bm25.score_postings`, the same arithmetic).

The files are those `bm25.build_from_ids` writes for the same chunks, byte for byte
(`tests/test_bm25.py` compares on random edits). The previous postings are used only when
they add up, per chunk and per term, to the previous term ids; otherwise (or from an index
of an older kbtools, without `kb_tf.npy`) `splice` returns False and the caller indexes
everything afresh.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kbtools.index.bm25 import SCORE_FILES, write_index
from kbtools.index.layout import BM25_TF

_LOW = np.int64(0xFFFFFFFF)


def _previous_postings(path: Path, flat: np.ndarray,
                       offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(indptr, rows, counts) of the previous index at `path` whose term ids are `flat`,
    `offsets`; None when a file is missing or they do not add up to those ids."""
    try:
        indptr = np.load(path / SCORE_FILES["indptr"], allow_pickle=False).astype(np.int64)
        rows = np.load(path / SCORE_FILES["indices"], allow_pickle=False).astype(np.int64)
        tf = np.load(path / BM25_TF, allow_pickle=False).astype(np.int64)
    except (OSError, ValueError):
        return None
    n, terms = len(offsets) - 1, int(flat.max()) + 1 if len(flat) else 0
    if (n == 0 or not len(tf) or indptr.ndim != 1 or len(indptr) != terms + 1
            or len(tf) != len(rows) or indptr[0] != 0 or indptr[-1] != len(rows)
            or np.any(np.diff(indptr) <= 0) or tf.min() < 1 or rows.min() < 0
            or rows.max() >= n):
        return None
    per_chunk = np.bincount(rows, weights=tf, minlength=n)
    per_term = np.add.reduceat(tf, indptr[:-1])
    if not (np.array_equal(per_chunk, np.diff(offsets))
            and np.array_equal(per_term, np.bincount(flat, minlength=terms))):
        return None
    return indptr, rows, tf


def splice(previous: Path, path: Path, pieces: list[np.ndarray], lengths: list[np.ndarray],
           origin: list[int | None], old: tuple[np.ndarray, np.ndarray],
           vocab: dict[str, int], *, k1: float, b: float) -> bool:
    """Write at `path` the BM25 files of the chunks made of `pieces` (term ids, our
    vocabulary `vocab`, which holds the previous index's canonical ids and any new term
    after them) and `lengths` (each piece's chunks' numbers of terms); `origin[i]` is the
    previous chunk number of piece i's first chunk when the piece is a run of the previous
    index's chunks (`old`: its flat term ids and offsets), None when its chunks are new.
    False: nothing usable at `previous` (nothing written)."""
    flat_o, offsets_o = old
    got = _previous_postings(previous, flat_o, offsets_o)
    if got is None:
        return False
    indptr_o, rows_o, tf_o = got
    flat = np.concatenate(pieces).astype(np.int32) if pieces else np.zeros(0, np.int32)
    if not len(flat):
        return False  # no term left: nothing to splice
    lens = np.concatenate(lengths).astype(np.int64)
    offsets = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    # the previous chunks' new numbers (-1: gone), and the new chunks' postings
    rowmap = np.full(len(offsets_o) - 1, -1, dtype=np.int64)
    new_keys: list[np.ndarray] = []
    at = 0
    for piece, ls, was in zip(pieces, lengths, origin, strict=True):
        count = len(ls)
        if was is None:
            rows = np.repeat(np.arange(at, at + count, dtype=np.int64), ls)
            new_keys.append((piece.astype(np.int64) << 32) | rows)
        else:
            rowmap[was:was + count] = np.arange(at, at + count)
        at += count
    kept = rowmap[rowmap >= 0]
    if np.any(np.diff(kept) <= 0):
        return False  # kept chunks out of their previous order: not this module's case
    cols_o = np.repeat(np.arange(len(indptr_o) - 1, dtype=np.int64), np.diff(indptr_o))
    moved = rowmap[rows_o]
    keep = moved >= 0
    keys = (cols_o[keep] << 32) | moved[keep]  # still sorted: the row map is monotone
    tf = tf_o[keep]
    if new_keys:
        added, counts = np.unique(np.concatenate(new_keys), return_counts=True)
        where = np.searchsorted(keys, added)
        keys, tf = np.insert(keys, where, added), np.insert(tf, where, counts)
    cols, rows = keys >> 32, keys & _LOW

    order = _canonical_order(cols, rows, flat, offsets, indptr_o, rows_o, rowmap)
    size = max(len(vocab), int(cols.max()) + 1)
    remap = np.full(size, -1, dtype=np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    df = np.bincount(cols, minlength=size)
    counts = df[order]
    if np.any(np.diff(order) < 0):  # columns in the new order (else they are already)
        starts = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(df, out=starts[1:])
        target = np.cumsum(counts) - counts
        take = np.arange(len(rows), dtype=np.int64) - np.repeat(target - starts[order], counts)
        rows, tf = rows[take], tf[take]
    cols = np.repeat(np.arange(len(order), dtype=np.int64), counts)
    names = {i: w for w, i in vocab.items()}
    canon = {names[int(i)]: n for n, i in enumerate(order)}
    write_index(path, remap[flat], offsets, canon, cols, rows, tf, k1=k1, b=b)
    return True


def _canonical_order(cols: np.ndarray, rows: np.ndarray, flat: np.ndarray,
                     offsets: np.ndarray, indptr_o: np.ndarray, rows_o: np.ndarray,
                     rowmap: np.ndarray) -> np.ndarray:
    """The terms of the postings `cols`, `rows` (CSC order) sorted by their first occurrence
    in `flat` (chunks at `offsets`): the canonical ids' order (module docstring)."""
    n_old = len(indptr_o) - 1
    size = max(int(cols.max()) + 1, n_old)
    heads = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
    used, first = cols[heads], rows[heads]  # each term, and the first chunk holding it
    was_first = np.full(size, -2, dtype=np.int64)  # before: first chunk, as numbered now
    was_first[:n_old] = rowmap[rows_o[indptr_o[:-1]]]
    inner = used.copy()  # the previous ids order a chunk's first terms that stayed there
    exact = np.unique(first[was_first[used] != first])  # chunks whose order must be read
    if len(exact):
        idx = exact_first_positions(exact, first, used, flat, offsets)
        at = np.flatnonzero(np.isin(first, exact))
        inner[at] = idx
    return used[np.lexsort((inner, first))]


def exact_first_positions(chunks: np.ndarray, first: np.ndarray, used: np.ndarray,
                          flat: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each term `used[i]` whose first chunk `first[i]` is one of `chunks` (sorted),
    in that order, its first position in that chunk's term ids."""
    starts, ends = offsets[chunks], offsets[chunks + 1]
    counts = ends - starts
    total = int(counts.sum())
    label = np.repeat(np.arange(len(chunks), dtype=np.int64), counts)
    pos = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    terms = flat[starts[label] + pos].astype(np.int64)
    keys, where = np.unique((label << 32) | terms, return_index=True)
    mine = np.isin(first, chunks)
    wanted = (np.searchsorted(chunks, first[mine]).astype(np.int64) << 32) | used[mine]
    return pos[where[np.searchsorted(keys, wanted)]]
