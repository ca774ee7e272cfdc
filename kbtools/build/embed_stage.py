"""The build's embed stage: every chunk text a model needs, embedded once or read from the
embedding cache.

Each model's texts are embedded in document order, each distinct text once where it first
occurs, so that a batch holds whole documents (`kbtools.embed.parallel.doc_batches`; USE
shares work between a document's texts). A model whose job is big enough for worker
processes (`processes = True` and `parallel.MIN_BATCHES` batches: USE, and MiniLM for an
English corpus) keeps both cores busy on its own, one such model after another; a model
embedded in this process (MiniLM on one BLAS thread, for a Chinese corpus's few English
chunks) would otherwise run before or after them with a core idle, so it runs on a thread
of its own meanwhile. Vectors do not depend on any of that: each model's batches are the
same whatever runs beside them, and a text's vector the same bits in any batch.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.config import Config
from kbtools.embed.base import Embedder, model_meta, vectors_key
from kbtools.embed.cache import EmbeddingCache
from kbtools.embed.parallel import doc_batches, embed_parts, workers_for
from kbtools.errors import IndexLoadError
from kbtools.fsutil import read_json_lines
from kbtools.index.layout import ReleaseLayout

Vectors = dict[str, np.ndarray]  # "<model>:<content hash>" → float16 vector
Models = dict[str, dict[str, Any]]  # model key → its `model_meta` (the manifest's "models")


def embed_records(records: list[dict[str, Any]], embedders: dict[str, Embedder], batch: int,
                  cache_file: Path | None, progress: bool) -> tuple[Vectors, Models, int, int]:
    """(vectors, models, texts embedded, texts read from the cache) of the texts `records`
    name for each model of `embedders`."""
    models: Models = {}
    jobs: dict[str, list[tuple[str, tuple[str, str]]]] = {}
    for key in sorted(embedders):
        emb = embedders[key]
        models[key] = model_meta(emb)
        first: dict[str, tuple[str, str]] = {}  # content hash → (doc, text), first occurrence
        for r in records:
            if key in r["models"]:
                first.setdefault(r["content_hash"], (r["doc"], r["embed_text"]))
        jobs[key] = list(first.items())

    def run(key: str) -> tuple[Vectors, int, int]:
        return _embed_model(key, embedders[key], vectors_key(models[key]), jobs[key], batch,
                            cache_file, progress)

    pooled = [k for k in jobs if workers_for(embedders[k], -(-len(jobs[k]) // batch)) > 1]
    here = [k for k in jobs if k not in pooled]
    vectors: Vectors = {}
    embedded = reused = 0
    if not pooled:  # nothing to run beside: every model here, one after the other
        pooled, here = here, []
    with ThreadPoolExecutor(1) as side:
        beside = [side.submit(run, k) for k in here]
        results = [run(k) for k in pooled] + [f.result() for f in beside]
    for got, fresh, cached in results:
        vectors.update(got)
        embedded += fresh
        reused += cached
    return vectors, models, embedded, reused


def _embed_model(key: str, emb: Embedder, fp: str, wanted: list[tuple[str, tuple[str, str]]],
                 batch: int, cache_file: Path | None, progress: bool) -> tuple[Vectors, int, int]:
    """One model's vectors of `wanted` (content hash, (doc, text)), with its own connection
    to the cache (one per thread); each embedded batch is committed as it comes, so a crash
    loses one batch."""
    cache = EmbeddingCache(cache_file)
    try:
        have = cache.get_many(fp, [h for h, _ in wanted])
        todo = [(h, dt) for h, dt in wanted if h not in have]
        parts = doc_batches([dt[0] for _, dt in todo], batch)
        texts = [dt[1] for _, dt in todo]
        live = progress and len(todo) > batch
        for i, got in embed_parts(emb, [texts[a:b] for a, b in parts]):
            part = todo[i:i + len(got)]
            fresh = dict(zip([h for h, _ in part], got.astype(np.float16), strict=True))
            cache.put_many(fp, fresh)
            have.update(fresh)
            if live:
                _progress(f"kb build: embedding {key}: {i + len(got)}/{len(todo)}")
        if live and _on_terminal():
            print(file=sys.stderr)
        return {f"{key}:{h}": have[h] for h, _ in wanted}, len(todo), len(wanted) - len(todo)
    finally:
        cache.close()


PROGRESS_WIDTH = 48  # a progress line is padded to this: a shorter one overwrites it whole


def _on_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        return False


def _progress(message: str) -> None:
    """One progress report on stderr: rewritten in place on a terminal, a line of its own in
    a pipe or log file (where a carriage return would run the reports together)."""
    if _on_terminal():
        print(f"\r{message:<{PROGRESS_WIDTH}}", end="", file=sys.stderr, flush=True)
    else:
        print(message, file=sys.stderr, flush=True)


def seed_cache(cfg: Config, index_dir: Path) -> int:
    """Copy the vectors of a built index (dist/ or a release) into the embedding cache, so a
    build on a fresh machine re-embeds only what changed since that index."""
    layout = ReleaseLayout(index_dir)
    manifest = json.loads(layout.manifest.read_text(encoding="utf-8"))
    cache = EmbeddingCache(cfg.cache_dir() / "embeddings.sqlite")
    n = 0
    try:
        for model_key, meta in manifest.get("models", {}).items():
            for shard in layout.chunk_shards():
                vec_path = layout.vector_shard(model_key, shard.stem)
                if not vec_path.is_file():
                    continue
                vecs = np.load(vec_path)
                rows = read_json_lines(shard, error=IndexLoadError)
                keys = [r["content_hash"] for r in rows if model_key in r["models"]]
                cache.put_many(vectors_key(meta), dict(zip(keys, vecs, strict=True)))
                n += len(keys)
    finally:
        cache.close()
    return n
