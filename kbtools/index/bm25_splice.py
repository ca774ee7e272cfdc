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
        rows = np.load(path / SCORE_FILES["indices"], allow_pickle=False)
        tf = np.load(path / BM25_TF, allow_pickle=False)
    except (OSError, ValueError):
        return None
    n, terms = len(offsets) - 1, int(flat.max()) + 1 if len(flat) else 0
    if (n == 0 or not len(tf) or indptr.ndim != 1 or rows.dtype != np.int32
            or tf.dtype != np.int32 or len(indptr) != terms + 1
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
    if np.any(np.diff(rowmap[rowmap >= 0]) <= 0):
        return False  # kept chunks out of their previous order: not this module's case
    size = max(len(vocab), len(indptr_o) - 1)
    for keys in new_keys:
        size = max(size, int((keys >> 32).max()) + 1 if len(keys) else 0)
    rows, tf, df = _merged(indptr_o, rows_o, tf_o, rowmap, new_keys, size)

    starts = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(df, out=starts[1:])
    order = _canonical_order(df, starts, rows, flat, offsets, indptr_o, rows_o, rowmap)
    remap = np.full(size, -1, dtype=np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    rows, tf = _columns_in_order(order, starts, rows, tf)
    words = np.empty(size, dtype=object)
    words[np.fromiter(vocab.values(), dtype=np.int64, count=len(vocab))] = list(vocab)
    canon = dict(zip(words[order].tolist(), range(len(order)), strict=True))
    write_index(path, remap[flat], offsets, canon, df[order], rows, tf, k1=k1, b=b)
    return True


def _merged(indptr_o: np.ndarray, rows_o: np.ndarray, tf_o: np.ndarray, rowmap: np.ndarray,
            new_keys: list[np.ndarray],
            size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, counts, per-term posting counts) of the kept postings, renumbered, with the new
    chunks' postings (`new_keys`: term << 32 | chunk) merged in: CSC order over term ids
    0..size-1 (a term's postings by chunk)."""
    moved = rowmap[rows_o]
    keep = moved >= 0
    per_term = np.zeros(size, dtype=np.int64)
    per_term[:len(indptr_o) - 1] = np.diff(indptr_o)
    if keep.all():
        rows, tf = moved, tf_o
    else:
        gone = np.flatnonzero(~keep)
        per_term -= np.bincount(np.searchsorted(indptr_o, gone, side="right") - 1,
                                minlength=size)
        rows, tf = moved[keep], tf_o[keep]
    if not new_keys:
        return rows, tf, per_term
    added, counts = np.unique(np.concatenate(new_keys), return_counts=True)
    terms, chunks = added >> 32, added & _LOW
    # each new posting's place: in its term's run of kept postings, before the first kept
    # chunk after it (a bisection over all the runs at once)
    lo = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(per_term, out=lo[1:])
    lo, hi = lo[terms], lo[terms + 1]
    while np.any(lo < hi):
        go = lo < hi
        mid = (lo + hi) // 2
        right = go & (rows[np.minimum(mid, len(rows) - 1)] < chunks)
        lo = np.where(right, mid + 1, lo)
        hi = np.where(go & ~right, mid, hi)
    per_term += np.bincount(terms, minlength=size)
    return np.insert(rows, lo, chunks), np.insert(tf, lo, counts), per_term


def _columns_in_order(order: np.ndarray, starts: np.ndarray, rows: np.ndarray,
                      tf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The postings of the terms `order` (old ids), one term after the other: runs of
    consecutive ids are copied whole."""
    breaks = np.flatnonzero(np.diff(order) != 1) + 1
    firsts = order[np.r_[0, breaks]]
    lasts = order[np.r_[breaks - 1, len(order) - 1]]
    if len(firsts) == 1 and starts[firsts[0]] == 0 and starts[lasts[0] + 1] == len(rows):
        return rows, tf  # already in order, nothing left out
    spans = list(zip(starts[firsts].tolist(), starts[lasts + 1].tolist(), strict=True))
    return (np.concatenate([rows[a:z] for a, z in spans]),
            np.concatenate([tf[a:z] for a, z in spans]))


def _canonical_order(df: np.ndarray, starts: np.ndarray, rows: np.ndarray, flat: np.ndarray,
                     offsets: np.ndarray, indptr_o: np.ndarray, rows_o: np.ndarray,
                     rowmap: np.ndarray) -> np.ndarray:
    """The terms with postings (`df`, `starts`: each term's run of `rows`, CSC order) sorted
    by their first occurrence in `flat` (chunks at `offsets`): the canonical ids' order
    (module docstring)."""
    used = np.flatnonzero(df)
    first = rows[starts[used]]  # the first chunk holding each term
    n_old = len(indptr_o) - 1
    was_first = np.full(len(df), -2, dtype=np.int64)  # before: first chunk, as numbered now
    was_first[:n_old] = rowmap[rows_o[indptr_o[:-1]]]
    inner = used.copy()  # the previous ids order a chunk's first terms that stayed there
    exact = np.unique(first[was_first[used] != first])  # chunks whose order must be read
    if len(exact):
        at = np.flatnonzero(np.isin(first, exact))
        inner[at] = exact_first_positions(exact, first[at], used[at], flat, offsets)
    return used[np.lexsort((inner, first))]


def exact_first_positions(chunks: np.ndarray, first: np.ndarray, used: np.ndarray,
                          flat: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each term `used[i]`, whose first chunk `first[i]` is one of `chunks` (sorted),
    its first position in that chunk's term ids."""
    starts, ends = offsets[chunks], offsets[chunks + 1]
    counts = ends - starts
    label = np.repeat(np.arange(len(chunks), dtype=np.int64), counts)
    pos = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts,
                                                                    counts)
    terms = flat[starts[label] + pos].astype(np.int64)
    keys, where = np.unique((label << 32) | terms, return_index=True)
    wanted = (np.searchsorted(chunks, first).astype(np.int64) << 32) | used
    found: np.ndarray = pos[where[np.searchsorted(keys, wanted)]]
    return found
