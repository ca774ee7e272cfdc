"""usearch HNSW vector index (cosine), parameters from kb.toml [index].

A graph is memory-mapped from its file (`load`): a one-shot `kb query` reads only the pages
its search visits. A long-lived process (`kb serve`, `kb mcp`) keeps it in anonymous memory
that the kernel backs with 2 MiB pages instead (`load_resident`): a search visits ~1,500
vectors scattered over the file, each on a 4 KiB page of its own, and its time goes to
address translation more than to arithmetic (at 54k chunks: HNSW 0.68 → 0.48–0.55 ms a
question, the same answers; copying the file without huge pages gained nothing). It costs
the graph's size in memory, so it is done only where the kernel offers transparent huge
pages and the graphs fit easily in the memory available.
"""

from __future__ import annotations

import contextlib
import mmap
import multiprocessing
import os
import re
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kbtools.workers import CODE, exit_with

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
                               initializer=exit_with, initargs=(os.getpid(), CODE))
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


def load_resident(path: Path, expansion_search: int) -> UsearchIndex:
    """`load`'s graph copied into anonymous memory advised for huge pages, viewed there (the
    buffer is kept alive by the index object that views it)."""
    from usearch.index import Index

    size = path.stat().st_size
    mapped = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    advice = getattr(mmap, "MADV_HUGEPAGE", None)  # Linux only
    if advice is not None:
        with contextlib.suppress(OSError):  # advice only: a kernel without THP refuses it
            mapped.madvise(advice)
    buffer = memoryview(mapped)[:size]
    with open(path, "rb") as f:
        if f.readinto(buffer) != size:
            raise ValueError(f"{path}: changed while read")
    index = Index.restore(buffer, view=True)
    if index is None:
        raise ValueError(f"not a usearch index: {path}")
    index._kb_buffer = (mapped, buffer)  # type: ignore[attr-defined]  # the memory it views
    index.expansion_search = expansion_search  # type: ignore[misc]
    return index


# the memory available that resident graphs may take, at most
RESIDENT_SHARE = 0.125
THP_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")
MEMINFO = Path("/proc/meminfo")


def resident_fits(total_bytes: int) -> bool:
    """Whether graphs of `total_bytes` in all should be kept resident: the kernel backs
    memory advised for it with huge pages (transparent huge pages "always" or "madvise")
    and they take at most RESIDENT_SHARE of the memory available."""
    if not hasattr(mmap, "MADV_HUGEPAGE"):
        return False
    try:
        setting = re.search(r"\[(\w+)\]", THP_SETTING.read_text())
    except OSError:
        return False
    if setting is None or setting.group(1) not in ("always", "madvise"):
        return False
    return memory_fits(total_bytes)


def memory_fits(total_bytes: int) -> bool:
    """Whether `total_bytes` are at most RESIDENT_SHARE of the memory available (False
    where the kernel does not say how much that is)."""
    try:
        available = re.search(r"^MemAvailable:\s+(\d+) kB", MEMINFO.read_text(), re.M)
    except OSError:
        return False
    return available is not None and \
        total_bytes <= RESIDENT_SHARE * int(available.group(1)) * 1024


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
