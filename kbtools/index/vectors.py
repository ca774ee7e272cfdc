"""usearch HNSW vector index (cosine), parameters from kb.toml [index]."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from usearch.index import Index as UsearchIndex


def build(path: Path, keys: np.ndarray, matrix: np.ndarray, params: dict[str, Any]) -> None:
    from usearch.index import Index

    index = Index(ndim=matrix.shape[1], metric=params.get("metric", "cos"),
                  dtype=params.get("dtype", "f16"), connectivity=params["connectivity"],
                  expansion_add=params["expansion_add"],
                  expansion_search=params["expansion_search"])
    if len(keys):
        index.add(keys, matrix, threads=1)  # one thread: the graph is deterministic
    index.save(str(path))


def load(path: Path, expansion_search: int) -> UsearchIndex:
    from usearch.index import Index

    index = Index.restore(str(path), view=True)
    if index is None:
        raise ValueError(f"not a usearch index: {path}")
    # not reliably persisted; set after loading (usearch's setter is invisible to mypy)
    index.expansion_search = expansion_search  # type: ignore[misc]
    return index


EXACT_MAX = 4096  # graphs this small are searched exhaustively: exact, and no slower


def search(index: UsearchIndex, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys, cosine similarities), best first; equal similarities in key order.

    A small graph is searched exhaustively, so its answers do not depend on how the graph
    was built (afresh or updated in place: `kbtools.index.incremental`); a large one is
    searched through the HNSW links, exact up to the graph's recall."""
    if len(index) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    # one thread: usearch's default (every core) costs a thread hand-off per question and,
    # on a busy machine, waits for a second core for a search that takes a fraction of a ms
    matches = index.search(query, min(count, len(index)), exact=len(index) <= EXACT_MAX,
                           threads=1)
    keys = matches.keys.astype(np.int64)
    sims = 1.0 - matches.distances.astype(np.float32)
    order = np.lexsort((keys, -sims))
    return keys[order], sims[order]
