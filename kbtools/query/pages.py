"""Page-level evidence for hybrid search: how close the question is to a whole document.

A chunk is judged on its own words, but a question often names what a page is about rather
than what one paragraph of it says ("复制镜像怎么收费的？" → the page on snapshot billing).
Each document gets a *page vector*: the normalised sum of its chunks' vectors of the
question's model (its centroid direction). After fusion, every candidate chunk's score rises
by ``[query] page_weight`` (`FusionParams.page_weight`, 0.2 by default: measured best) × the
cosine of the question with its document's page vector, rescaled between the least and the
most similar page of the index (so the bonus is scale-free: 0 for the farthest page, the
weight for the closest). The order of chunks inside a document does not change; only which
documents come first. Candidates stay the retrievers' own: a page vector lifts a document
already found, it does not add one.

`kb build` computes the page vectors into the release (``data/pages/<model>.npy``, float32,
reproducible bytes; `write_release`), `kb publish --engine` ships them in the release's
``__meta`` collection, so a device and an engine rank alike from the first question. A
release built before they shipped gets them computed from its vectors on first use (kept
under KB_HOME by the manifest's hash); an engine release published before has none (no
page evidence). Question vectors are memoised briefly so the vector retriever and this step
embed a question once. Measured in docs/retrieval.md ("Page vectors").
"""

from __future__ import annotations

import hashlib
import io
import json
import weakref
from collections.abc import Collection
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.cachedb import keep_newest
from kbtools.config import kb_home
from kbtools.embed.base import embed_question
from kbtools.embed.registry import get_embedder
from kbtools.errors import IndexLoadError
from kbtools.fsutil import atomic_write_bytes, read_json_lines
from kbtools.index.layout import (
    CHUNK_DIR,
    DATA_DIR,
    VECTOR_DIR,
    ReleaseLayout,
    shard_of,
    tree_identity,
)
from kbtools.index.reader import KbIndex, load_release_info
from kbtools.query.fusion import Fused

KEEP_CACHED = 16  # page-vector files kept under KB_HOME (the most recently used)
_PAGES: weakref.WeakKeyDictionary[KbIndex, dict[str, np.ndarray]] = weakref.WeakKeyDictionary()


@lru_cache(maxsize=64)
def _question_vector(model: str, embedder: int, text: str) -> np.ndarray:
    q = np.asarray(embed_question(get_embedder(model), text)[0], dtype=np.float32)
    q.setflags(write=False)
    return q


def question_vector(model: str, text: str) -> np.ndarray:
    """The question's vector under `model` (memoised per embedder object, so a model
    registered anew is asked again: the vector retriever and the page step share one)."""
    return _question_vector(model, id(get_embedder(model)), text)


def page_vectors(index: KbIndex, model: str) -> np.ndarray:
    """Per document of the index (in `index.docs()` order), the unit-length sum of its chunk
    vectors of `model`; zeros for a document without any (no columns: no page vectors).
    The release's own when it ships them, else computed (see the module docstring)."""
    cache = _PAGES.setdefault(index, {})
    if model not in cache:
        shipped = index.shipped_pages(model)
        cache[model] = _checked(index, model, shipped) if shipped is not None \
            else _load_or_compute(index, model)
    return cache[model]


def _checked(index: KbIndex, model: str, pages: np.ndarray) -> np.ndarray:
    """Shipped page vectors, or IndexLoadError when they do not fit the release."""
    if pages.ndim != 2 or len(pages) != len(index.docs()) or pages.dtype != np.float32:
        raise IndexLoadError(f"page vectors of {model!r} do not fit this release "
                             f"({pages.shape} {pages.dtype} for {len(index.docs())} documents); "
                             "rebuild it", path=str(index.layout.pages(model)))
    return pages


def to_bytes(pages: np.ndarray) -> bytes:
    """Page vectors as a .npy file's bytes (the same for the same vectors)."""
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(pages, dtype=np.float32), allow_pickle=False)
    return buf.getvalue()


def from_bytes(data: bytes) -> np.ndarray:
    """The inverse of `to_bytes` (ValueError for anything else)."""
    pages = np.load(io.BytesIO(data), allow_pickle=False)
    if not isinstance(pages, np.ndarray):
        raise ValueError("not a page-vector array")
    return pages


def write_release(root: Path, previous: Path | None = None,
                  kept: Collection[str] = ()) -> list[Path]:
    """Compute the page vectors of every model of the release directory `root` (its index/
    derived) into its data/ (atomically). Returns the files, which the caller lists in the
    manifest.

    `previous`: the release `root` replaces, and `kept` the documents whose data/ shards
    were taken from it as they are (the same chunks and vectors, so the same page rows):
    their rows are copied from the previous page vectors, and only the other documents'
    rows are computed, from their own shards — the bytes a full computation gives, since
    each row is a function of its document's vectors alone (`tests/test_reuse.py`). When
    the previous file does not match its manifest, or anything else does not fit, all rows
    are computed."""
    layout = ReleaseLayout(root)
    # the build's draft (write_manifest validates the final one)
    manifest = json.loads(layout.manifest.read_text(encoding="utf-8"))
    index = KbIndex(layout, manifest, load_release_info(layout, manifest))
    written = []
    try:
        for model in sorted(manifest.get("models", {})):
            pages = _updated(index, model, previous, set(kept)) if previous is not None \
                and kept else None
            if pages is None:
                pages = _compute(index, model)
            atomic_write_bytes(layout.pages(model), to_bytes(pages))
            written.append(layout.pages(model))
    finally:
        index.close()
    return written


def _updated(index: KbIndex, model: str, previous: Path, kept: set[str]) -> np.ndarray | None:
    """The page vectors of `index`, rows of `kept` documents taken from `previous`
    (`write_release`); None when the previous ones cannot be used."""
    old = ReleaseLayout(previous)
    try:
        tree = tree_identity(previous)  # (another build may swap its tree in meanwhile)
        old_manifest = json.loads(old.manifest.read_text(encoding="utf-8"))
        if old_manifest.get("models", {}).get(model) != index.manifest["models"][model] \
                or not _same_shards(old_manifest, index.manifest, kept):
            return None
        path = old.pages(model)
        entry = old_manifest["artifacts"].get(path.relative_to(old.root).as_posix())
        data = path.read_bytes()
        if not entry or hashlib.sha256(data).hexdigest() != entry["sha256"]:
            return None
        old_pages = from_bytes(data)
        old_index = KbIndex(old, old_manifest, load_release_info(old, old_manifest))
        try:
            old_row = {name: i for i, name in enumerate(old_index.store.doc_names())}
        finally:
            old_index.close()
        if tree_identity(previous) != tree:
            return None
    except (OSError, ValueError, KeyError, TypeError, IndexLoadError):
        return None
    names = index.store.doc_names()  # (the order of `index.docs()`)
    if old_pages.ndim != 2 or old_pages.dtype != np.float32 or len(old_pages) != len(old_row) \
            or old_pages.shape[1] == 0:
        return None
    redo = [i for i, name in enumerate(names) if name not in kept or name not in old_row]
    mat, docs = _doc_vectors(index.layout, model, names, redo)
    if mat is None or (len(mat) and mat.shape[1] != old_pages.shape[1]):
        return None
    pages = _sum_pages(mat, docs, len(names)) if len(mat) else \
        np.zeros((len(names), old_pages.shape[1]), dtype=np.float32)
    for i, name in enumerate(names):
        if name in kept and name in old_row:
            pages[i] = old_pages[old_row[name]]
    return pages if pages.any() else None  # (no vectors left at all: a full computation says how)


def _same_shards(old: dict[str, Any], new: dict[str, Any], kept: set[str]) -> bool:
    """Whether the previous release holds the `kept` documents' shards with the entries
    (sha256) this one has: then their rows there are of the same vectors. (A dist/ replaced
    by another build after this one took those shards from it holds other ones.)"""
    shards = {shard_of(doc) for doc in kept}

    def of_kept(artifacts: dict[str, Any]) -> dict[str, Any]:
        return {rel: entry for rel, entry in artifacts.items()
                if rel.startswith((f"{DATA_DIR}/{CHUNK_DIR}/", f"{DATA_DIR}/{VECTOR_DIR}/"))
                and rel.rsplit("/", 1)[1].split(".", 1)[0] in shards}
    return of_kept(old.get("artifacts", {})) == of_kept(new.get("artifacts", {}))


def _doc_vectors(layout: ReleaseLayout, model: str, names: list[str], redo: list[int]
                 ) -> tuple[np.ndarray | None, np.ndarray]:
    """The `model` vectors of the chunks of documents `redo` (indexes into `names`), read
    from their shards, in chunk order, with each one's document index; (None, …) when a
    shard does not add up."""
    wanted = {names[i]: i for i in redo}
    mats: list[np.ndarray] = []
    docs: list[int] = []
    for shard in sorted({shard_of(names[i]) for i in redo}):
        path = layout.chunk_shard(shard)
        if not path.is_file():
            continue  # a document without chunks
        rows = [r for r in read_json_lines(path, error=IndexLoadError) if model in r["models"]]
        if not rows:
            continue
        vecs = np.load(layout.vector_shard(model, shard), allow_pickle=False)
        if len(vecs) != len(rows) or vecs.ndim != 2:
            return None, np.zeros(0, dtype=np.int32)
        take = [j for j, r in enumerate(rows) if r["doc"] in wanted]
        mats.append(np.asarray(vecs[take], dtype=np.float32))
        docs += [wanted[rows[j]["doc"]] for j in take]
    if not mats:
        return np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int32)
    return np.concatenate(mats), np.array(docs, dtype=np.int32)


def _cache_file(index: KbIndex, model: str) -> Path:
    """Where the page vectors of this release and model are kept between processes: named by
    the manifest's hash (it records every chunk's content hash), so a new release never
    reads an old release's vectors."""
    digest = hashlib.sha256(index.layout.manifest.read_bytes()).hexdigest()[:24]
    return kb_home() / "cache" / "pages" / f"{digest}-{hashlib.sha256(model.encode()).hexdigest()[:8]}.npy"


def _load_or_compute(index: KbIndex, model: str) -> np.ndarray:
    """Page vectors from the KB_HOME cache, else computed (and cached; a cache that cannot be
    read or written is skipped, never an error)."""
    try:
        path = _cache_file(index, model)
    except OSError:
        return _compute(index, model)
    try:
        cached = np.load(path)
        if cached.ndim == 2 and len(cached) == len(index.docs()):
            path.touch()
            return np.asarray(cached, dtype=np.float32)
    except (OSError, ValueError):
        pass
    pages = _compute(index, model)
    try:
        atomic_write_bytes(path, to_bytes(pages))
        keep_newest(path, "*.npy", KEEP_CACHED)  # the others by use
    except OSError:
        pass
    return pages


def _compute(index: KbIndex, model: str) -> np.ndarray:
    """Page vectors from the release's vectors (see `page_vectors`)."""
    table = index.chunk_table()
    keys = np.flatnonzero(np.array([model in m.split(",") for m in table.models],
                                   dtype=bool))
    n_docs = len(index.docs())
    if len(keys) == 0:
        return np.zeros((n_docs, 0), dtype=np.float32)
    return _sum_pages(_matrix(index, model, keys), table.doc[keys], n_docs)


def _sum_pages(mat: np.ndarray, docs: np.ndarray, n_docs: int) -> np.ndarray:
    """Rows of `n_docs` page vectors from chunk vectors `mat` (float32, in chunk order) of
    documents `docs`: each row depends on its own document's vectors only (zeros for a
    document without any)."""
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
    order = np.argsort(docs, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(docs[order]) != 0])
    sums = np.add.reduceat(mat[order], starts, axis=0)
    pages = np.zeros((n_docs, mat.shape[1]), dtype=np.float32)
    pages[docs[order][starts]] = sums
    pages /= np.maximum(np.linalg.norm(pages, axis=1, keepdims=True), 1e-9)
    return pages


def _matrix(index: KbIndex, model: str, keys: np.ndarray) -> np.ndarray:
    """The vectors of chunks `keys` (those holding `model`, ascending): the release's vector
    shards read in chunk-shard order (their concatenation is that order), or, when they do
    not add up to `keys`, fetched from the vector index (several times slower)."""
    layout = index.layout
    parts = [np.load(path, mmap_mode="r") for shard in layout.chunk_shards()
             if (path := layout.vector_shard(model, shard.stem)).is_file()]
    if parts and sum(len(p) for p in parts) == len(keys) \
            and len({p.shape[1:] for p in parts}) == 1:
        return np.concatenate(parts).astype(np.float32)
    return np.asarray(index.vectors(model).get(keys.astype(np.uint64)), dtype=np.float32)


_PRESENT: weakref.WeakKeyDictionary[KbIndex, dict[str, np.ndarray | None]] = \
    weakref.WeakKeyDictionary()


def _present(index: KbIndex, model: str) -> np.ndarray | None:
    """Per document: has a page vector of `model` (found once per index); None when every
    document has one (the usual case: nothing to mask)."""
    cache = _PRESENT.setdefault(index, {})
    if model not in cache:
        present = np.linalg.norm(page_vectors(index, model), axis=1) > 0
        cache[model] = None if present.all() else present
    return cache[model]


def page_bonus(index: KbIndex, model: str, question: np.ndarray,
               weight: float) -> np.ndarray:
    """Per document: `weight` × its page cosine with the question, rescaled between the
    index's least and most similar page (documents without vectors get 0)."""
    pages = page_vectors(index, model)
    if pages.shape[1] == 0 or pages.shape[1] != len(question):
        return np.zeros(len(pages), dtype=np.float32)
    q = question / max(float(np.linalg.norm(question)), 1e-9)
    cos = pages @ q
    present = _present(index, model)
    among = cos if present is None else cos[present]
    lo, hi = float(among.min()), float(among.max())
    if hi - lo < 1e-9:
        return np.zeros(len(pages), dtype=np.float32)
    scaled = weight * (cos - lo) / (hi - lo)
    out: np.ndarray = (scaled if present is None else np.where(present, scaled, 0.0)
                       ).astype(np.float32)
    return out


def reweigh(index: KbIndex, fused: Fused, model: str, text: str, weight: float) -> Fused:
    """Fused candidates with their document's page bonus (`weight` for the closest page, in
    fused-score units: the best fused hit scores about 1) added to each score (``why.page``
    holds it); unchanged for a zero weight or no candidates."""
    if not len(fused) or weight <= 0:
        return fused
    bonus = page_bonus(index, model, question_vector(model, text), weight)
    add = bonus[index.chunk_table().doc[fused.keys]]
    return fused.rescored(fused.scores + add.astype(np.float64), ("page", add))
