"""Vector candidates for the finer chunks that share their section's vector.

A table, code block, image … lying inside its section has no vector of its own
(`kbtools.build.vector_plan`): the usearch graph (or an engine's collection) holds only the
embedded chunks. After a candidate source has ranked those, every sharing chunk of a
ranked section joins the vector list right after it with the section's similarity and
rank, so the fusion adds the same vector evidence to the section and to each chunk sharing
its vector, and BM25 (per chunk, on the chunk's own text) decides between them.

With filters, the vector search runs over the allowed chunks *and* the sections whose
vectors allowed chunks share (`widen_mask`); the lists are cut back to the allowed chunks
afterwards (`inherit`).

Who shares whose vector is one integer array loaded with the index's per-chunk arrays
(`ChunkTable.parent`, from the store's `shares` column); the children of each parent are
laid out once per opened index (`Sharing`), so a question costs time in proportion to its
candidates, not to the index.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.query.fusion import Ranked


@dataclass(frozen=True)
class Sharing:
    """The chunks sharing each chunk's vector: those of chunk `p` are
    ``children[start[p]:start[p + 1]]``, in chunk order."""

    parent: np.ndarray  # per chunk, the chunk whose vector it shares (-1: its own)
    start: np.ndarray
    children: np.ndarray

    @classmethod
    def of(cls, parent: np.ndarray) -> Sharing:
        kids = np.flatnonzero(parent >= 0)
        order = np.argsort(parent[kids], kind="stable")  # by parent, then chunk number
        counts = np.bincount(parent[kids], minlength=len(parent))
        start = np.zeros(len(parent) + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        return cls(parent, start, kids[order])

    def expand(self, keys: np.ndarray,
               scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`keys` with each one's children right after it, every child with its parent's
        score; and per output, the position in `keys` it comes from."""
        keys = keys.astype(np.int64, copy=False)
        n_kids = self.start[keys + 1] - self.start[keys]
        span = 1 + n_kids
        out_scores = np.repeat(scores, span)
        first = np.cumsum(span) - span  # where each key goes
        out_keys = np.empty(int(span.sum()), dtype=np.int64)
        out_keys[first] = keys
        owner = np.repeat(np.arange(len(keys)), n_kids)  # the key each child follows
        slot = np.arange(len(owner)) - np.repeat(np.cumsum(n_kids) - n_kids, n_kids)
        is_child = np.ones(len(out_keys), dtype=bool)
        is_child[first] = False
        out_keys[is_child] = self.children[self.start[keys[owner]] + slot]
        return out_keys, out_scores, np.repeat(np.arange(len(keys)), span)


_SHARING: weakref.WeakKeyDictionary[KbIndex, Sharing] = weakref.WeakKeyDictionary()
_MODELS: weakref.WeakKeyDictionary[KbIndex, np.ndarray] = weakref.WeakKeyDictionary()


def sharing(index: KbIndex) -> Sharing | None:
    """Who shares whose vector in `index` (None when no chunk shares one), made once per
    opened index."""
    if not has_shared(index):
        return None
    got = _SHARING.get(index)
    if got is None:
        got = _SHARING[index] = Sharing.of(index.chunk_table().parent)
    return got


def vector_models(index: KbIndex) -> np.ndarray:
    """Per chunk, the comma-separated models whose vectors score it: its own, or those of
    the chunk whose vector it shares (`ChunkTable.models` lists a chunk's own only). Made
    once per opened index."""
    share = sharing(index)
    if share is None:
        return index.chunk_table().models
    got = _MODELS.get(index)
    if got is None:
        own = index.chunk_table().models
        got = _MODELS[index] = np.where(share.parent >= 0, own[np.maximum(share.parent, 0)], own)
    return got


def has_shared(index: KbIndex) -> bool:
    """Does the release hold chunks that share a parent's vector?"""
    return bool(index.manifest.get("counts", {}).get("shared_vectors"))


def widen_mask(index: KbIndex, mask: np.ndarray | None) -> np.ndarray | None:
    """`mask` plus the parents whose vectors its chunks share (None stays None)."""
    share = sharing(index) if mask is not None else None
    if mask is None or share is None:
        return mask
    wide = mask.copy()
    allowed = share.parent[mask]
    wide[allowed[allowed >= 0]] = True
    return wide


def inherit(index: KbIndex, lists: dict[str, Ranked], mask: np.ndarray | None) -> dict[str, Ranked]:
    """The vector lists with each ranked parent followed by the chunks sharing its vector
    (same similarity, same rank: a rank counts the vectors found, so two parents in a near
    tie that swap places move their children's ranks by one, not by a family's size); with
    `mask` (the filters the lists were searched with, widened by `widen_mask`), only allowed
    chunks are kept."""
    share = sharing(index)
    if share is None:
        return lists
    out = dict(lists)
    for name, ranked in lists.items():
        keys, scores = ranked.keys, ranked.scores
        ranks = ranked.rank_of_each()
        if name.startswith("vector"):
            keys, scores, owner = share.expand(keys, scores)
            ranks = ranks[owner]
        if mask is not None:  # searched with the widened mask
            keep = mask[keys]
            keys, scores, ranks = keys[keep], scores[keep], ranks[keep]
            ranks = np.unique(ranks, return_inverse=True)[1].reshape(-1) + 1  # no gaps
        out[name] = Ranked(keys, scores.astype(ranked.scores.dtype, copy=False), ranks)
    return out
