"""Opening the SQLite files of kbtools' caches (embeddings, parsed documents, tokens, check
results and scans): WAL, ``synchronous=NORMAL`` (a power cut may lose the last entries, which
are simply made again), and the tables created if missing.

Several connections may open the same file at once: the build's embed stage opens one per
model thread, forked check workers one each, and two commands may share a cache directory.
Switching a new file to WAL takes an exclusive lock, and SQLite answers a connection that
finds it taken with SQLITE_BUSY at once, without waiting through the busy timeout the way it
does for reads and writes. `open_cache_db` therefore retries the whole set-up while the
answer is "busy", until ``timeout`` seconds have passed; a busy file is then reported as
`CacheBusy` (never as a damaged file: a caller that replaces damaged caches must not delete
one that another process is writing).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path


class CacheBusy(sqlite3.OperationalError):
    """The file stayed locked by other connections for the whole timeout."""


def is_busy(exc: sqlite3.Error) -> bool:
    """Whether `exc` is SQLite's "database is locked" (SQLITE_BUSY or an extended form), or
    `CacheBusy`."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, CacheBusy) or (code is not None and code & 0xFF == sqlite3.SQLITE_BUSY)


def open_cache_db(path: Path, tables: list[str], timeout: float = 5.0) -> sqlite3.Connection:
    """A connection to the cache file `path` (its directory made if missing) in WAL mode,
    with each ``CREATE TABLE IF NOT EXISTS`` statement of `tables` run."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, timeout=timeout)
    deadline = time.monotonic() + timeout
    pause = 0.002
    try:
        while True:
            try:
                con.execute("PRAGMA journal_mode=WAL")
                con.execute("PRAGMA synchronous=NORMAL")
                for ddl in tables:
                    con.execute(ddl)
                return con
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise CacheBusy(f"{path}: locked by another process for {timeout:g} s") \
                        from exc
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
    except BaseException:
        con.close()
        raise
