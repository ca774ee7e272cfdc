"""Derive index/ (SQLite store, BM25 matrices, usearch graphs) from data/.

Deterministic: the same data/ always yields byte-identical index/ files (fixed order,
single-threaded graph construction, no timestamps). That lets a device re-derive the
index after a sync and check it against the manifest's ``derived`` hashes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

INDEX_FILES = ("store.sqlite",)


def read_shards(root: Path) -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
    """All chunk records in global order, and per model the matrix of their vectors.

    Returns (chunks, {model: (n_model_chunks, dim) float32}); chunk["vec_row"] is the
    row of that chunk in its model's matrix.
    """
    chunks: list[dict[str, Any]] = []
    parts: dict[str, list[np.ndarray]] = {}
    counters: dict[str, int] = {}
    for shard in sorted((root / "data" / "chunks").glob("*.jsonl")):
        rows = [json.loads(line) for line in shard.read_text(encoding="utf-8").splitlines() if line]
        by_model: dict[str, int] = {}
        for r in rows:
            by_model[r["model"]] = by_model.get(r["model"], 0) + 1
        for model in sorted(by_model):
            vecs = np.load(root / "data" / "vectors" / model / f"{shard.stem}.npy")
            parts.setdefault(model, []).append(vecs)
        for r in rows:
            r["vec_row"] = counters.get(r["model"], 0)
            counters[r["model"]] = r["vec_row"] + 1
            chunks.append(r)
    matrices = {m: np.concatenate(p).astype(np.float32) for m, p in parts.items()}
    return chunks, matrices


def materialize(root: Path) -> None:
    """(Re)build root/index/ from root/manifest.json and root/data/."""
    from kbtools import bm25index, vectors
    from kbtools.store import write_store
    from kbtools.tokenize import Tokenizer

    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    out = root / "index"
    out.mkdir(parents=True, exist_ok=True)
    chunks, matrices = read_shards(root)
    docs = [json.loads(line) for line in
            (root / "data" / "docs.jsonl").read_text(encoding="utf-8").splitlines() if line]
    write_store(out / "store.sqlite", docs, chunks,
                info={"source_commit": manifest["source"]["commit"]})
    cfg = manifest["config"]["values"]
    dictionary = (root / "data" / "dictionary.txt").read_text(encoding="utf-8").split()
    tok = Tokenizer(backend=cfg["bm25"]["tokenizer"], words=tuple(dictionary))
    bm25index.build(out / "bm25", [c["embed_text"] for c in chunks], tok,
                    k1=cfg["bm25"]["k1"], b=cfg["bm25"]["b"])
    for model, matrix in sorted(matrices.items()):
        keys = np.array([i for i, c in enumerate(chunks) if c["model"] == model], dtype=np.uint64)
        vectors.build(out / f"vectors-{model}.usearch", keys, matrix, cfg["index"])
