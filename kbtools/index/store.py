"""The chunk store: one SQLite file with documents and chunks, indexed for filters.

Written once by `materialize` (deterministic: fixed insertion order, no timestamps), then
opened read-only by queries (`mode=ro`), so several processes can read it at once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

SCHEMA = """
PRAGMA page_size = 4096;
CREATE TABLE docs (
    doc TEXT PRIMARY KEY, title TEXT, category TEXT, verified INTEGER, source TEXT,
    author TEXT, timestamp TEXT, lang TEXT, metadata TEXT,
    last_commit TEXT, last_author TEXT, last_changed TEXT, n_chunks INTEGER
);
CREATE TABLE chunks (
    num INTEGER PRIMARY KEY, id TEXT UNIQUE, doc TEXT, kind TEXT, heading_path TEXT,
    line_start INTEGER, line_end INTEGER, text TEXT, embed_text TEXT, models TEXT,
    links TEXT, extra TEXT, last_commit TEXT, last_author TEXT, last_changed TEXT
);
CREATE INDEX chunks_doc ON chunks(doc);
CREATE TABLE facets (field TEXT, value TEXT, doc TEXT);
CREATE INDEX facets_fv ON facets(field, value);
CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT);
"""


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def write_store(path: Path, docs: Iterable[dict[str, Any]], chunks: Iterable[dict[str, Any]],
                info: dict[str, str], facet_fields: Sequence[str]) -> None:
    """Write the store; `facet_fields` are the front-matter fields whose values go into the
    facets table, in this order (`Vocabulary.collected` of the build's config)."""
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.executescript(SCHEMA)
        con.execute("BEGIN")
        for d in docs:
            meta = d.get("metadata") or {}
            con.execute(
                "INSERT INTO docs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (d["doc"], str(meta.get("title") or ""), str(meta.get("category") or ""),
                 1 if meta.get("verified") is True else 0, str(meta.get("source") or ""),
                 str(meta.get("author") or ""), str(meta.get("timestamp") or ""),
                 d.get("lang") or "", _dump(meta), d.get("last_commit"), d.get("last_author"),
                 d.get("last_changed"), d.get("n_chunks", 0)))
            for field in facet_fields:
                values = meta.get(field)
                for v in values if isinstance(values, list) else [values]:
                    if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v):
                        con.execute("INSERT INTO facets VALUES (?,?,?)", (field, str(v), d["doc"]))
        for num, c in enumerate(chunks):
            prov = c.get("provenance") or {}
            con.execute(
                "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (num, c["id"], c["doc"], c["kind"], _dump(c["heading_path"]), c["line_start"],
                 c["line_end"], c["text"], c["embed_text"], ",".join(c["models"]), _dump(c.get("links", [])),
                 _dump(c.get("extra", {})), prov.get("last_commit"), prov.get("last_author"),
                 prov.get("last_changed")))
        for key, value in sorted(info.items()):
            con.execute("INSERT INTO info VALUES (?,?)", (key, value))
        con.execute("COMMIT")
        con.execute("VACUUM")
    finally:
        con.close()


class Store:
    """Read-only access to a chunk store."""

    def __init__(self, path: Path):
        uri = f"file:{path}?mode=ro&immutable=1"
        self.con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self.con.row_factory = sqlite3.Row
        self._doc_cache: dict[str, dict[str, Any]] = {}

    def close(self) -> None:
        self.con.close()

    def count(self) -> int:
        return int(self.con.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])

    def chunks(self, nums: list[int]) -> dict[int, dict[str, Any]]:
        return {d["num"]: d for d in self._select("num", nums)}

    def chunks_by_id(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        return {d["id"]: d for d in self._select("id", ids)}

    def _select(self, column: str, values: list[Any]) -> list[dict[str, Any]]:
        if not values:
            return []
        marks = ",".join("?" * len(values))
        rows = self.con.execute(f"SELECT * FROM chunks WHERE {column} IN ({marks})", values)
        out = []
        for r in rows.fetchall():
            d = dict(r)
            d["heading_path"] = json.loads(d["heading_path"])
            d["links"] = json.loads(d["links"])
            d["extra"] = json.loads(d["extra"])
            out.append(d)
        return out

    def doc(self, doc: str) -> dict[str, Any] | None:
        if doc not in self._doc_cache:
            row = self.con.execute("SELECT * FROM docs WHERE doc = ?", (doc,)).fetchone()
            if row is None:
                return None
            d = dict(row)
            d["metadata"] = json.loads(d["metadata"])
            self._doc_cache[doc] = d
        return self._doc_cache[doc]

    def docs(self) -> list[dict[str, Any]]:
        rows = self.con.execute("SELECT doc FROM docs ORDER BY doc").fetchall()
        return [d for r in rows if (d := self.doc(r[0])) is not None]

    def facets(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for field, value in self.con.execute("SELECT DISTINCT field, value FROM facets"):
            out.setdefault(field, set()).add(value)
        return out

