"""Derive index/ (SQLite store, BM25 matrices, usearch graphs) from data/.

`materialize(root)` derives everything afresh: deterministic, the same data/ always yields
byte-identical index/ files (fixed order, single-threaded graph construction, no
timestamps). `materialize(root, previous=dir)` starts from the index of an earlier release
(the dist/ being replaced, the release a device serves) and redoes only what belongs to
changed chunk shards (`kbtools.index.incremental`): the same chunks, keys and BM25 matrices
and the same answers, but store and graph files whose bytes differ from a fresh derivation,
which is why a release is checked with `kbtools.index.selfcheck` rather than by hashing
index/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.config import Vocabulary
from kbtools.errors import IndexLoadError
from kbtools.fsutil import fresh_dir, read_json_lines
from kbtools.index import bm25 as bm25index
from kbtools.index import vectors
from kbtools.index.incremental import derive_incremental
from kbtools.index.layout import ReleaseLayout, shard_of
from kbtools.index.selfcheck import derivation_info, sampled_shards
from kbtools.index.store import write_store
from kbtools.index.tokenize import Tokenizer


def read_shards(root: Path) -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
    """All chunk records in global order, and per model the matrix of their vectors.

    Returns (chunks, {model: (n_model_chunks, dim) float32}); a model's matrix holds the
    vectors of the chunks listing that model, in global chunk order.
    """
    layout = ReleaseLayout(root)
    chunks: list[dict[str, Any]] = []
    parts: dict[str, list[np.ndarray]] = {}
    for shard in layout.chunk_shards():
        rows = read_json_lines(shard, error=IndexLoadError)
        for model in sorted({m for r in rows for m in r["models"]}):
            vecs = np.load(layout.vector_shard(model, shard.stem))
            parts.setdefault(model, []).append(vecs)
        chunks.extend(rows)
    matrices = {m: np.concatenate(p).astype(np.float32) for m, p in parts.items()}
    return chunks, matrices


def materialize(root: Path, previous: Path | None = None) -> str:
    """(Re)build the derived index/ of release directory `root` from its manifest and data/;
    returns how: "incremental" (from `previous`, a release directory with an index derived
    by this kbtools under the same settings) or "full".

    index/ is made afresh as a real directory; a link in its place is an error (OSError), so
    the libraries writing the store and graphs by path never write through one.
    """
    if previous is not None and derive_incremental(root, previous):
        return "incremental"
    derive_full(root)
    return "full"


def derive_full(root: Path) -> None:
    """Derive index/ from data/ alone."""
    layout = ReleaseLayout(root)
    manifest = json.loads(layout.manifest.read_text(encoding="utf-8"))
    fresh_dir(layout.derived)
    chunks, matrices = read_shards(root)
    cfg = manifest["config"]["values"]
    graphs = []
    for model, matrix in sorted(matrices.items()):
        keys = np.array([i for i, c in enumerate(chunks) if model in c["models"]], dtype=np.uint64)
        graphs.append((layout.usearch(model), keys, matrix, cfg["index"]))
    side = vectors.build_aside(graphs)  # the graphs on the other core while BM25 runs here
    try:
        _store_and_bm25(layout, manifest, chunks)
    except BaseException:
        side.abandon()
        raise
    side.result()


def _store_and_bm25(layout: ReleaseLayout, manifest: dict[str, Any],
                    chunks: list[dict[str, Any]]) -> None:
    docs = read_json_lines(layout.docs, error=IndexLoadError)
    cfg = manifest["config"]["values"]
    write_store(layout.store, docs, chunks,
                info={"source_commit": manifest["source"]["commit"],
                      **derivation_info(cfg["bm25"]["tokenizer"])},
                facet_fields=Vocabulary.from_values(cfg).collected)
    dictionary = layout.dictionary.read_text(encoding="utf-8").split()
    tok = Tokenizer(backend=cfg["bm25"]["tokenizer"], words=tuple(dictionary))
    # what the tokenizer says is kept for the texts the self-check samples, not for all
    sample = sampled_shards(sorted({shard_of(c["doc"]) for c in chunks}))
    bm25index.build(layout.bm25, [c["embed_text"] for c in chunks], tok,
                    k1=cfg["bm25"]["k1"], b=cfg["bm25"]["b"],
                    remember=[i for i, c in enumerate(chunks) if shard_of(c["doc"]) in sample])
