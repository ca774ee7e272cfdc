"""Embedding cache keyed by (model's vectors key, sha256 of the text embedded).

Lives outside dist/ (kb.toml paths.cache, default .kb-cache/embeddings.sqlite) so it
survives rebuilds; `kbtools.build.pipeline.seed_cache` refills it from a previous build or release, which is
how CI avoids re-embedding unchanged chunks. Vectors are stored as float16 — the precision
the index ships — so a vector from the cache is bit-identical to a freshly embedded one
after rounding, and warm and cold builds produce the same artifacts, provided a text's
vector does not depend on its batch (USE's do not; the vectors key, `embed.base.vectors_key`,
is the fingerprint plus the revision of the arithmetic, so vectors of an older revision are
not taken).

Every `put_many` is its own transaction, and the build calls it once per embedded batch, so a
build that fails late (or is interrupted) keeps every vector embedded before the failure; WAL
with ``synchronous=NORMAL`` keeps those commits cheap (a crash of the process loses nothing
committed; a power cut may lose the last batches, which are simply embedded again).
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np

from kbtools.cachedb import open_cache_db


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, path: Path | None):
        self.path = path
        self.con: sqlite3.Connection | None = None
        if path is not None:
            self.con = open_cache_db(path, ["CREATE TABLE IF NOT EXISTS vec (model TEXT, "
                                            "key TEXT, v BLOB, PRIMARY KEY (model, key))"])

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        if self.con is None or not keys:
            return {}
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(keys), 500):
            part = keys[i:i + 500]
            marks = ",".join("?" * len(part))
            rows = self.con.execute(
                f"SELECT key, v FROM vec WHERE model = ? AND key IN ({marks})", [model, *part])
            for key, blob in rows:
                out[key] = np.frombuffer(blob, dtype=np.float16)
        return out

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        if self.con is None or not items:
            return
        with self.con:
            self.con.executemany(
                "INSERT OR REPLACE INTO vec VALUES (?,?,?)",
                [(model, k, np.asarray(v, dtype=np.float16).tobytes()) for k, v in items.items()])

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
