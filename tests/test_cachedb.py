"""The caches' SQLite files opened from several connections at once (the build's embed stage
opens one per model thread; CI once failed with "database is locked" there)."""

from __future__ import annotations

import functools
import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

import kbtools.check.cache as scan_cache
from kbtools.cachedb import CacheBusy, open_cache_db
from kbtools.check.cache import ScanCache
from kbtools.embed.cache import EmbeddingCache

TABLE = "CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v TEXT)"


def _at_once(n: int, work) -> list[str]:
    """Run `work(i)` on `n` threads released together; the errors they raised."""
    start = threading.Barrier(n)
    errors: list[str] = []

    def run(i: int) -> None:
        start.wait()
        try:
            work(i)
        except Exception as exc:  # noqa: BLE001 - collected and asserted on
            errors.append(repr(exc))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_new_cache_file_opened_by_many_threads_at_once(tmp_path):
    for round_ in range(60):
        path = tmp_path / str(round_) / "c.sqlite"

        def work(i: int, path: Path = path) -> None:
            con = open_cache_db(path, [TABLE])
            with con:
                con.execute("INSERT INTO t VALUES (?, ?)", (str(i), "x"))
            con.close()

        assert _at_once(6, work) == []
        con = sqlite3.connect(path)
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert con.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 6
        con.close()


def test_embedding_cache_written_by_two_model_threads_on_a_new_file(tmp_path):
    for round_ in range(60):
        path = tmp_path / str(round_) / "embeddings.sqlite"

        def work(i: int, path: Path = path) -> None:
            cache = EmbeddingCache(path)
            cache.get_many(f"m{i}", ["a"])
            cache.put_many(f"m{i}", {"a": np.full(4, i, dtype=np.float32)})
            cache.close()

        assert _at_once(2, work) == []
        cache = EmbeddingCache(path)
        for i in range(2):
            assert cache.get_many(f"m{i}", ["a"])["a"].tolist() == [i] * 4
        cache.close()


def _locked(path: Path) -> sqlite3.Connection:
    """A connection holding an exclusive lock on a rollback-journal database at `path`."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute(TABLE)
    con.execute("INSERT INTO t VALUES ('kept', 'yes')")
    con.execute("BEGIN EXCLUSIVE")
    return con


def test_a_file_locked_past_the_timeout_is_reported_busy_and_left_alone(tmp_path):
    path = tmp_path / "c.sqlite"
    holder = _locked(path)
    with pytest.raises(CacheBusy, match="c.sqlite: locked"):
        open_cache_db(path, [TABLE], timeout=0.2)
    holder.execute("COMMIT")
    holder.close()
    con = open_cache_db(path, [TABLE])
    assert con.execute("SELECT v FROM t WHERE k = 'kept'").fetchone() == ("yes",)
    con.close()


def test_scan_cache_never_deletes_a_file_another_process_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(scan_cache, "open_cache_db", functools.partial(open_cache_db,
                                                                       timeout=0.2))
    path = tmp_path / scan_cache.FILE_NAME
    holder = _locked(path)
    assert ScanCache.load(tmp_path).con is None  # no cache this time: it only costs time
    holder.execute("COMMIT")
    holder.close()
    con = sqlite3.connect(path)
    assert con.execute("SELECT v FROM t WHERE k = 'kept'").fetchone() == ("yes",)
    con.close()


def test_scan_cache_replaces_a_file_that_is_not_a_database(tmp_path):
    path = tmp_path / scan_cache.FILE_NAME
    path.write_bytes(b"not a database " * 100)
    cache = ScanCache.load(tmp_path)
    assert cache.con is not None
    assert cache.size() == 0


@pytest.mark.parametrize("name", ["kb #1", "a?b", "50%41", "知识 库"])
def test_store_opens_under_any_directory_name(tmp_path, name):
    """A device or dist/ directory named with '#', '?' or '%' (URI syntax to SQLite) holds
    an index like any other: the store's URI escapes its path (unescaped, ``kb #1`` opened
    ``kb `` and found no table; a sync refused the release, a query found no index)."""
    from kbtools.index.store import Store, stored_info, write_store

    path = tmp_path / name / "index" / "store.sqlite"
    path.parent.mkdir(parents=True)
    write_store(path, [], [], {"tokens": "t1"}, [])
    assert stored_info(path, "tokens") == "t1"
    store = Store(path)
    try:
        assert store.info("tokens") == "t1" and store.count() == 0
    finally:
        store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing beside it


def test_too_long_a_path_for_sqlite_is_one_clear_error(tmp_path):
    """SQLite opens no file whose path passes 512 bytes (~170 Chinese characters): said in
    words, as a KbError (one line from the CLI), not "unable to open database file"."""
    from kbtools.errors import KbError
    from kbtools.index.store import Store, write_store

    deep = tmp_path.joinpath(*["知识库目录" * 8] * 5)  # 5 × 120 bytes
    deep.mkdir(parents=True)
    with pytest.raises(KbError, match="SQLite opens none over 512"):
        write_store(deep / "store.sqlite", [], [], {}, [])
    with pytest.raises(KbError, match="SQLite opens none over 512"):
        Store(deep / "store.sqlite")
    assert EmbeddingCache(deep / "vectors.sqlite").get_many("m", ["k"]) == {}  # a cache
    # there is skipped (a miss), not an error


def test_a_stopped_opener_does_not_hang_the_next_one(tmp_path):
    """A build stopped (SIGSTOP, a `kb watch` suspended with Ctrl-Z) while it opened the
    embedding cache held the cache directory's flock, and every later build waited for it
    forever (seen as a 120 s hang of a build beside a stopped one): the next opener waits a
    bounded time, then embeds without the cache; once the lock is free it opens it."""
    import fcntl
    import os

    from kbtools.embed.cache import open_vectors

    path = tmp_path / "cache" / "embeddings.sqlite"
    path.parent.mkdir()
    held = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)  # its own open file: its own lock
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        assert open_vectors(path, wait=0.2) is None
    finally:
        os.close(held)
    con = open_vectors(path, wait=0.2)
    assert con is not None
    con.close()
