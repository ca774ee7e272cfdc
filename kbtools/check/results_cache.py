"""Per-document check results kept between runs: an edit re-checks the edited document.

A document's own findings (front matter, schema, body, links, formulas, decision tables)
and the facts the corpus-wide checks need from it (heading slugs, #anchor links, CSV names)
depend on its path and bytes and on nothing else but

- the run's settings: lenient, schema checks, size limit, the knowledge folder, the
  content checks registered (only the built-in set is cached), kbtools's version;
- the schemas (every file under the schemas folder, by content);
- the formula failures earlier builds recorded (every file of the failure cache);
- which files exist under the root (link targets, their letter case, symlinks): the
  `tree_signature`, every path with its type and link target, hidden folders (`.git`,
  staging directories) and the build output and cache folders left out.

The key hashes all of those, so an entry can be missing but never stale. A document whose
checks looked where the signature does not (a path in a hidden or output folder) is not
cached. Links written as absolute paths are judged partly by the file system outside the
root; those outcomes are cached with the document (`kb check --no-cache` re-judges them).
The corpus-wide checks (anchors, duplicate CSV names, lapsed verification, synonyms) always
run, over the cached facts. Entries are JSON in `<cache>/check-results.sqlite`; a cache
that cannot be opened or written only costs time.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kbtools import __version__

FILE_NAME = "check-results.sqlite"
FORMAT = 1  # bump when a check's findings for the same inputs change


def _digest(parts: Iterable[str]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def tree_signature(root: Path, excluded: Iterable[Path] = ()) -> str:
    """A digest of every path under `root` with its type (and a link's target), leaving
    out hidden folders and the `excluded` folders (the build output, the cache)."""
    skip = {os.path.realpath(p) for p in excluded}
    parts: list[str] = []
    for top, dirs, files in os.walk(root, followlinks=False):
        rel = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and os.path.realpath(os.path.join(top, d)) not in skip)
        for name in sorted(dirs + files):
            path = os.path.join(top, name)
            kind = f"l:{os.readlink(path)}" if os.path.islink(path) else \
                ("d" if name in dirs else "f")
            parts.append(f"{rel}/{name}\0{kind}")
    return _digest(parts)


def folder_signature(folder: Path | None) -> str:
    """A digest of every file under `folder` by name and content ("" when there is none)."""
    if folder is None or not folder.is_dir():
        return ""
    parts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            data = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
            parts.append(f"{path.relative_to(folder).as_posix()}\0{data}")
        except OSError:
            parts.append(f"{path.relative_to(folder).as_posix()}\0unreadable")
    return _digest(parts)


class ResultsCache:
    """Entries by key (`key_for`); every method is a miss or a no-op when the file cannot
    be used."""

    def __init__(self, path: Path, context: str, excluded: tuple[str, ...]):
        self.path = path
        self.context = context  # digest of everything but the document itself
        self.excluded = excluded  # rel path prefixes the signature leaves out
        self._con: sqlite3.Connection | None = None
        self._pid = 0

    @property
    def con(self) -> sqlite3.Connection | None:
        """This process's connection (a forked check worker opens its own)."""
        if self._pid != os.getpid():
            self._pid, self._con = os.getpid(), None
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._con = sqlite3.connect(self.path)
                self._con.execute("PRAGMA journal_mode=WAL")
                self._con.execute("CREATE TABLE IF NOT EXISTS results "
                                  "(doc TEXT PRIMARY KEY, key TEXT, value TEXT)")
            except (OSError, sqlite3.Error):
                self._con = None
        return self._con

    @classmethod
    def open(cls, cache_dir: Path, root: Path, settings: dict[str, Any],
             schemas: Path | None, failures: Path, excluded: list[Path]) -> ResultsCache:
        inside = tuple(p.resolve().relative_to(root.resolve()).as_posix()
                       for p in excluded if p.resolve().is_relative_to(root.resolve()))
        context = _digest([str(FORMAT), __version__, json.dumps(settings, sort_keys=True),
                           folder_signature(schemas), folder_signature(failures),
                           tree_signature(root, excluded)])
        return cls(cache_dir / FILE_NAME, context, inside)

    def key_for(self, rel: str, raw: bytes) -> str:
        return _digest([self.context, rel, hashlib.blake2b(raw, digest_size=16).hexdigest()])

    def covers(self, touched: Iterable[str]) -> bool:
        """Whether the signature covers every root-relative path a document's checks
        looked at."""
        for rel in touched:
            parts = [p for p in rel.split("/") if p]
            if any(p.startswith(".") for p in parts) or any(
                    rel == e or rel.startswith(e + "/") for e in self.excluded):
                return False
        return True

    def get(self, rel: str, key: str) -> dict[str, Any] | None:
        con = self.con
        if con is None:
            return None
        try:
            row = con.execute("SELECT value FROM results WHERE doc = ? AND key = ?",
                                   (rel, key)).fetchone()
            return json.loads(row[0]) if row is not None else None
        except (sqlite3.Error, ValueError):  # UnicodeEncodeError is a ValueError
            return None

    def save(self, entries: Iterable[tuple[str, str, str]]) -> None:
        """Write (doc, key, JSON value) entries, one transaction, best effort."""
        rows = list(entries)
        con = self.con
        if con is None or not rows:
            return
        try:
            with con:
                con.executemany("INSERT OR REPLACE INTO results VALUES (?,?,?)", rows)
        except (sqlite3.Error, ValueError):
            pass

    def close(self) -> None:
        if self._con is not None and self._pid == os.getpid():
            self._con.close()
        self._con, self._pid = None, 0
