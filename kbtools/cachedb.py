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

Every SQLite file of kbtools (the caches and an index's store) is opened with `connect`: by a
URI whose path is percent-encoded, so a directory named ``kb #1``, ``50%`` or ``a?b`` is a
name and not URI syntax (unescaped, SQLite opened ``kb `` and found no table), and a path
longer than SQLite's unix VFS opens (512 bytes, symbolic links resolved: ~170 Chinese
characters) is refused up front in words (`SqlitePathTooLong`), not "unable to open database
file".
"""

from __future__ import annotations

import os
import sqlite3
import time
import urllib.parse
from pathlib import Path
from typing import Any

from kbtools.errors import KbError

SQLITE_MAX_PATH = 512  # bytes: the unix VFS's mxPathname (SQLite's MAX_PATHNAME)


class SqlitePathTooLong(KbError, sqlite3.OperationalError):
    """A SQLite file whose path SQLite cannot open. A KbError (one line from the CLI) and a
    sqlite3.OperationalError (a cache that cannot be opened is skipped, as any other)."""


def connect(path: Path, *, read_only: bool = False, immutable: bool = False,
            **kwargs: Any) -> sqlite3.Connection:
    """`sqlite3.connect` to the file `path`, whatever characters its directories' names hold;
    `read_only` opens it ``mode=ro``, `immutable` also tells SQLite that nothing changes it.
    A path too long for SQLite is a `SqlitePathTooLong` naming the limit."""
    full = os.path.realpath(path)
    size = len(os.fsencode(full))
    if size > SQLITE_MAX_PATH:
        raise SqlitePathTooLong(f"cannot open a SQLite file: its path is {size} bytes long "
                                f"and SQLite opens none over {SQLITE_MAX_PATH}; use a "
                                f"directory with a shorter path than {full}")
    params = [("mode", "ro")] if read_only or immutable else []
    if immutable:
        params.append(("immutable", "1"))
    query = f"?{urllib.parse.urlencode(params)}" if params else ""
    uri = f"file:{urllib.parse.quote(os.fsencode(full))}{query}"
    con: sqlite3.Connection = sqlite3.connect(uri, uri=True, **kwargs)
    return con


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
    con = connect(path, timeout=timeout)
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


def keep_newest(path: Path, pattern: str, keep: int) -> None:
    """Remove the cache files `pattern` matches beside `path` (just written) but the
    ``keep - 1`` others used last, by modification time; `path` itself is kept whatever its
    time (a clock set back since the others were used would put it last, and remove it at
    once). An OSError is the caller's: caches are best effort."""
    others = sorted((p for p in path.parent.glob(pattern) if p != path),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in others[keep - 1:]:
        old.unlink(missing_ok=True)
