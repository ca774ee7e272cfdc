"""usearch HNSW vector index (cosine), parameters from kb.toml [index]."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kbtools.workers import exit_with

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


# graphs with at least this many vectors in all are built in a process of their own by
# `build_aside`: below it, starting the process costs more than the overlap saves
ASIDE_MIN = 8192

Graph = tuple[Path, np.ndarray, np.ndarray, dict[str, Any]]  # build()'s arguments


class Pending:
    """Graphs being built (`build_aside`): `result()` waits for them, raising what failed."""

    def __init__(self, future: Future[None] | None, pool: ProcessPoolExecutor | None,
                 graphs: list[Graph]):
        self.future, self.pool, self.graphs = future, pool, graphs

    def result(self) -> None:
        try:
            if self.future is not None:
                self.future.result()
                return
        except BrokenProcessPool:  # the process could not start or died: build them here
            pass
        finally:
            if self.pool is not None:
                self.pool.shutdown()
        _build_all(self.graphs)

    def abandon(self) -> None:
        """The derivation failed: stop waiting (a graph being built finishes on its own)."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


def build_aside(graphs: list[Graph]) -> Pending:
    """Start building `graphs` (each as `build` does, one thread, so the same bytes) in a
    process of their own when they are big, so that a derivation's BM25 and store work runs
    on the other core meanwhile (usearch holds the GIL while it inserts: a thread would not
    overlap); small ones are built by `result()`, here."""
    if sum(len(keys) for _, keys, _, _ in graphs) < ASIDE_MIN:
        return Pending(None, None, graphs)
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=exit_with, initargs=(os.getpid(),))
    try:
        return Pending(pool.submit(_build_all, graphs), pool, graphs)
    except (BrokenProcessPool, OSError, RuntimeError):
        pool.shutdown()
        return Pending(None, None, graphs)


def _build_all(graphs: list[Graph]) -> None:
    for path, keys, matrix, params in graphs:
        build(path, keys, matrix, params)


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
