"""Embedding cache keyed by (model's vectors key, sha256 of the text embedded).

Lives outside dist/ (kb.toml paths.cache, default .kb-cache/embeddings.sqlite) so it
survives rebuilds; `kbtools.build.embed_stage.seed_cache` refills it from a previous build or release, which is
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

import fcntl
import hashlib
import os
import sqlite3
import time
from pathlib import Path

import numpy as np

from kbtools.cachedb import is_busy, open_cache_db

# how long an opener waits for another to finish opening (as long as a cache's busy wait)
LOCK_WAIT = 5.0
TABLE = "CREATE TABLE IF NOT EXISTS vec (model TEXT, key TEXT, v BLOB, PRIMARY KEY (model, key))"
COLUMNS = ["model", "key", "v"]


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def open_vectors(path: Path, wait: float = LOCK_WAIT) -> sqlite3.Connection | None:
    """A connection to the cache file `path`. A file that is not a database, or whose `vec`
    table has another layout (damaged, or a format this kbtools does not write), is ours to
    replace: it is removed and made anew, so the build embeds once and caches again. None
    (no cache: everything is embedded) when that fails or another process keeps it busy.
    Opening holds an flock on the cache directory, so two openers (the embed stage's model
    threads, two builds) never replace a file the other has just made; an opener waits for it
    at most `wait` seconds, then goes without the cache: a process stopped while it held the
    lock (a `kb watch` suspended with Ctrl-Z) must not hang every later build."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        held = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        if not _lock(held, wait):
            return None
        return _open_or_replace(path)
    finally:
        os.close(held)  # releases the lock


def _lock(fd: int, wait: float) -> bool:
    """An exclusive flock on `fd`, waited for at most `wait` seconds (False: not taken)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


def _open_or_replace(path: Path) -> sqlite3.Connection | None:
    for attempt in range(2):
        try:
            con = open_cache_db(path, [TABLE])
            try:
                if [r[1] for r in con.execute("PRAGMA table_info(vec)")] == COLUMNS:
                    return con
            except sqlite3.Error:
                pass
            con.close()
        except sqlite3.DatabaseError as exc:
            if is_busy(exc):
                return None
        except OSError:
            return None
        if attempt:
            return None
        try:
            for part in (path, path.with_name(path.name + "-wal"),
                         path.with_name(path.name + "-shm")):
                part.unlink(missing_ok=True)
        except OSError:
            return None
    return None


class EmbeddingCache:
    """Reads are misses and writes are skipped when the file cannot be used: a cache only
    ever costs time."""

    def __init__(self, path: Path | None):
        self.path = path
        self.con: sqlite3.Connection | None = None
        if path is not None:
            self.con = open_vectors(path)

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        if self.con is None or not keys:
            return {}
        out: dict[str, np.ndarray] = {}
        try:
            for i in range(0, len(keys), 500):
                part = keys[i:i + 500]
                marks = ",".join("?" * len(part))
                rows = self.con.execute(
                    f"SELECT key, v FROM vec WHERE model = ? AND key IN ({marks})",
                    [model, *part])
                for key, blob in rows:
                    out[key] = np.frombuffer(blob, dtype=np.float16)
        except sqlite3.Error:
            pass  # what was read so far; the rest is embedded
        return out

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        if self.con is None or not items:
            return
        try:
            with self.con:
                self.con.executemany(
                    "INSERT OR REPLACE INTO vec VALUES (?,?,?)",
                    [(model, k, np.asarray(v, dtype=np.float16).tobytes())
                     for k, v in items.items()])
        except sqlite3.Error:
            pass  # not kept: the next build embeds these texts again

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
