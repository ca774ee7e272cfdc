"""What every embedder is: the `Embedder` interface and the helpers backends share.

An embedder turns texts into float32, L2-normalised vectors, one row per text, and names
itself by a fingerprint that changes whenever its vectors would (the manifest records it, and
an index whose vectors came from another fingerprint is refused).
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from kbtools.config import kb_home
from kbtools.fsutil import atomic_write_text

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Backends load their weights on the first `embed_batch`, not before: naming the model
    (`fingerprint`, `dim`, `model_id`) is what a warm build, a sync and an index check need,
    and they must not pay for a model load (counted by `record_load`)."""

    key: str  # the configured name ("use", "minilm", a model path…)
    model_id: str  # human-readable id recorded in the manifest

    @property
    def dim(self) -> int: ...

    def fingerprint(self) -> str: ...

    def embed_batch(self, texts: list[str]) -> Vectors: ...


@lru_cache(maxsize=1)
def _threadpools() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_threads(limit: int | None) -> AbstractContextManager[Any]:
    """A context running numpy's BLAS on at most `limit` threads (None: as configured).
    Small products (one question's) run faster on one: waking a second BLAS thread costs
    more than the product, and on a busy machine it waits for a core (`kbtools.query.search`)."""
    if limit is None:
        return nullcontext()
    if limit == 1:
        return _OneThread()
    limiter: AbstractContextManager[Any] = _threadpools().limit(limits=limit, user_api="blas")
    return limiter


class _OneThread:
    """`blas_threads(1)`: the BLAS limited to one thread by the outermost of such contexts
    open at once, the inner ones costing nothing (a search limits it and then embeds its
    question, which limits it again). Counted process-wide, as the BLAS setting is, under a
    lock (`kb serve` searches in several threads); the context that set the limit puts back
    what it found, in its own thread (with OpenBLAS 0.3.31 a raise of its thread count made
    from another thread than the main one did not take, measured). It reads and sets each
    BLAS library's count itself (`_blas_libraries`): threadpoolctl's `limit` also read
    every library's version, architecture and attributes into dicts, on entry and exit,
    ~55 µs more of a warm search's CPU at 54k chunks (benchmarks/README.md, session 41)."""

    open = 0  # contexts open now, in every thread
    lock = threading.Lock()

    def __enter__(self) -> None:
        with _OneThread.lock:
            first = _OneThread.open == 0
            _OneThread.open += 1
        self.found: list[tuple[Any, int]] = []  # (library, its count before) of those set
        try:
            for lib in _blas_libraries() if first else ():
                count = lib.num_threads
                if count != 1:
                    lib.set_num_threads(1)
                    self.found.append((lib, count))
        except BaseException:  # not entered: what it set is put back, its count taken off
            self.__exit__()
            raise

    def __exit__(self, *exc: object) -> None:
        with _OneThread.lock:
            _OneThread.open -= 1
        for lib, count in self.found:
            lib.set_num_threads(count)
            # threadpoolctl ≥ 3.8 lets one thread at a time set OpenBLAS's process-wide
            # count and makes the setter that thread: let go, as its own limits do on exit,
            # or another thread's search could not limit it
            getattr(lib, "clear_controlling_thread", _nothing)()


def _nothing() -> None:
    """What a library without a controlling thread (threadpoolctl < 3.8) lets go of."""


@lru_cache(maxsize=1)
def _blas_libraries() -> tuple[Any, ...]:
    """threadpoolctl's controllers of the BLAS libraries loaded (those `blas_threads`
    limits; seen once, as `_threadpools` is)."""
    return tuple(lib for lib in _threadpools().lib_controllers if lib.user_api == "blas")


P = ParamSpec("P")
R = TypeVar("R")


def on_one_blas_thread(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` with numpy's BLAS on one thread while it runs (`blas_threads`)."""
    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with blas_threads(1):
            return fn(*args, **kwargs)
    return run


def embed_question(emb: Embedder, text: str) -> Vectors:
    """One question's vector, shape (1, dim), for searching: the backend's own
    ``embed_question`` where it has one (a faster path for one short text, within cosine
    0.999 of `embed_batch`), else `embed_batch`."""
    own = getattr(emb, "embed_question", None)
    if own is not None:
        vec: Vectors = own(text)
        return vec
    return emb.embed_batch([text])


def model_meta(emb: Embedder) -> dict[str, Any]:
    """What a manifest records of a model (its ``models`` entry): id, fingerprint, dimension
    and, where the backend declares one (a class attribute ``revision``), the revision of
    the arithmetic that computes its stored vectors. Vectors of one fingerprint and another
    revision agree only to float rounding, so the embedding cache and kept shards keep them
    apart (`vectors_key`) while a query still reads either."""
    meta: dict[str, Any] = {"id": emb.model_id, "fingerprint": emb.fingerprint(), "dim": emb.dim}
    revision = getattr(emb, "revision", "")
    if revision:
        meta["revision"] = revision
    return meta


def vectors_key(meta: dict[str, Any]) -> str:
    """The key of a model's stored vectors (embedding cache, shard reuse) from its
    `model_meta`: the fingerprint, with the revision after an ``@``."""
    revision = meta.get("revision")
    return f"{meta['fingerprint']}@{revision}" if revision else str(meta["fingerprint"])


_LOADS: Counter[str] = Counter()


def record_load(key: str) -> None:
    """A backend calls this each time it loads model weights (for `model_loads`)."""
    _LOADS[key] += 1


def model_loads() -> dict[str, int]:
    """How many times each embedder name loaded its weights in this process."""
    return dict(_LOADS)


def empty(dim: int) -> Vectors:
    """The result of embedding no texts."""
    return np.zeros((0, dim), dtype=np.float32)


def normalise(vecs: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero), as float32 in two dimensions."""
    out = np.asarray(vecs, dtype=np.float32)
    if out.ndim == 1:
        out = out[None, :]
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    result: Vectors = out / norms
    return result


@lru_cache(maxsize=8)
def files_fingerprint(root: str) -> str:
    """A short hash of the model files under `root` (names and bytes; docs and bytecode
    excluded). Cached per process, and across processes in KB_HOME keyed by every file's
    path, size and modification time (as git's index trusts a file's stat): a cold question
    need not read 30-90 MB of weights to name its model, while reinstalling or editing a
    model file changes its stat and so re-hashes it."""
    files = sorted(p for p in Path(root).rglob("*") if p.is_file() and p.suffix not in (".md", ".pyc"))
    stats = [[str(p), st.st_size, st.st_mtime_ns] for p in files for st in [p.stat()]]
    cache = kb_home() / "models" / "fingerprints.json"
    try:
        known = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    entry = known.get(root) if isinstance(known, dict) else None
    if isinstance(entry, dict) and entry.get("files") == stats and isinstance(entry.get("hash"), str):
        return str(entry["hash"])
    h = hashlib.sha256()
    for p in files:
        h.update(p.name.encode())
        with p.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    digest = h.hexdigest()[:16]
    known = known if isinstance(known, dict) else {}
    known[root] = {"files": stats, "hash": digest}
    try:
        atomic_write_text(cache, json.dumps(known, sort_keys=True))
    except OSError:  # a read-only home only costs the hashing next time
        pass
    return digest
