"""Vector candidates for the finer chunks that share their section's vector.

A list item, table row, code block … lying inside its section has no vector of its own
(`kbtools.build.vector_plan`): the usearch graph (or an engine's collection) holds only the
embedded chunks. After a candidate source has ranked those, every sharing chunk of a
ranked section joins the vector list right after it with the section's similarity, so the
fusion adds the same vector evidence to the section and to each of its rows and items, and
BM25 (per chunk, on the chunk's own text) decides between them.

With filters, the vector search runs over the allowed chunks *and* the sections whose
vectors allowed chunks share (`widen_mask`); the lists are cut back to the allowed chunks
afterwards (`inherit`).
"""

from __future__ import annotations

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.query.fusion import Ranked


def has_shared(index: KbIndex) -> bool:
    """Does the release hold chunks that share a parent's vector? (None before format 2.)"""
    return bool(index.manifest.get("counts", {}).get("shared_vectors"))


def widen_mask(index: KbIndex, mask: np.ndarray | None) -> np.ndarray | None:
    """`mask` plus the parents whose vectors its chunks share (None stays None)."""
    if mask is None or not has_shared(index):
        return mask
    pairs = np.array(index.store.sharing_parents(), dtype=np.int64).reshape(-1, 2)
    wide = mask.copy()
    wide[pairs[mask[pairs[:, 0]], 1]] = True
    return wide


def inherit(index: KbIndex, lists: dict[str, Ranked], mask: np.ndarray | None) -> dict[str, Ranked]:
    """The vector lists with each ranked parent followed by the chunks sharing its vector
    (same similarity); with `mask` (the filters the lists were searched with, widened by
    `widen_mask`), only allowed chunks are kept."""
    if not has_shared(index):
        return lists
    out = dict(lists)
    for name, ranked in lists.items():
        if not name.startswith("vector"):
            if mask is not None:  # searched with the widened mask
                keep = mask[ranked.keys]
                out[name] = Ranked(ranked.keys[keep], ranked.scores[keep])
            continue
        children: dict[int, list[int]] = {}
        for child, parent in index.store.sharing_children([int(k) for k in ranked.keys]):
            children.setdefault(parent, []).append(child)
        keys: list[int] = []
        scores: list[float] = []
        for key, score in zip(ranked.keys.tolist(), ranked.scores.tolist(), strict=True):
            for k in (key, *children.get(key, ())):
                if mask is None or mask[k]:
                    keys.append(k)
                    scores.append(score)
        out[name] = Ranked(np.array(keys, dtype=np.int64), np.array(scores, dtype=np.float32))
    return out
