"""Embedding many texts on every core: batches spread over worker processes.

USE runs on numpy in small flat micro-batches (a few hundred tokens each), where a second
BLAS thread in the same process buys little; a second process, each on one thread, keeps
both cores busy. An embedder opts in with a class attribute ``processes = True`` and an
attribute ``threads`` (BLAS threads per call, set to 1 in the workers); a worker builds it
by its configured name through the registry and loads its weights once.

The batches are the same whatever the number of workers, and a text's vector is the same
bits in any batch and on any BLAS thread count (`kbtools.embed.use_windows`), so the
vectors do not depend on the machine's core count (tested). ``KB_EMBED_WORKERS`` overrides the number of workers
(1 = in this process).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from kbtools.embed.base import Embedder, Vectors
from kbtools.embed.registry import get_reference_embedder
from kbtools.workers import CODE, exit_with

MIN_BATCHES = 8  # below this, starting workers costs more than it saves
MAX_WORKERS = 2
BATCH_CAP = 2  # a batch of one document's texts stops at this many times the batch size

_worker: Any = None  # the embedder of a worker process


def workers_for(emb: Embedder, n_batches: int) -> int:
    """Worker processes to embed `n_batches` batches with (1: in this process)."""
    if not getattr(emb, "processes", False) or n_batches < MIN_BATCHES:
        return 1
    env = os.environ.get("KB_EMBED_WORKERS", "")
    wanted = int(env) if env.isdigit() and int(env) > 0 else MAX_WORKERS
    return max(1, min(wanted, os.cpu_count() or 1, n_batches))


def embed_batches(emb: Embedder, texts: list[str], batch: int) -> Iterator[tuple[int, Vectors]]:
    """(offset, vectors) of each run of `batch` texts, in order."""
    yield from embed_parts(emb, [texts[i:i + batch] for i in range(0, len(texts), batch)])


def embed_parts(emb: Embedder, parts: list[list[str]]) -> Iterator[tuple[int, Vectors]]:
    """(offset, vectors) of each of `parts` (lists of texts, each one `embed_batch` call),
    in order."""
    offsets = [0]
    for part in parts:
        offsets.append(offsets[-1] + len(part))
    workers = workers_for(emb, len(parts))
    if workers == 1:
        for i, part in enumerate(parts):
            yield offsets[i], emb.embed_batch(part)
        return
    ctx = multiprocessing.get_context("spawn")  # no fork of a process holding BLAS threads
    done = 0
    try:
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_start,
                                 initargs=(emb.key, os.getpid(), CODE)) as pool:
            for vecs in pool.map(_embed, parts):
                yield offsets[done], vecs
                done += 1
    except BrokenProcessPool:
        # a worker died (killed for memory, or a calling script without the
        # `if __name__ == "__main__":` guard that spawned processes need) or refused to
        # start on a newer kbtools (`kbtools.workers`): finish here
        for i in range(done, len(parts)):
            yield offsets[i], emb.embed_batch(parts[i])


def doc_batches(docs: list[str], size: int) -> list[tuple[int, int]]:
    """[start, end) of each batch of texts whose documents are `docs` (in order): a batch
    ends at a document's end once it holds `size` texts, so a document's texts share one
    batch (a backend may share work between them, `kbtools.embed.use_windows`), unless it
    reaches `BATCH_CAP` × `size` texts."""
    out: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(docs) + 1):
        n = i - start
        if i == len(docs) or (n >= size and docs[i] != docs[i - 1]) or n >= BATCH_CAP * size:
            out.append((start, i))
            start = i
    return out


def _start(key: str, parent: int, code: tuple[int, int, int]) -> None:
    global _worker
    exit_with(parent, code)  # a killed build leaves no worker behind, nor one of other code
    _worker = get_reference_embedder(key)
    _worker.threads = 1  # one BLAS thread per worker: the workers are the parallelism


def _embed(texts: list[str]) -> Vectors:
    result: Vectors = _worker.embed_batch(texts)
    return result
