"""The chunk store: one SQLite file with documents and chunks, indexed for filters.

Written by `materialize` (deterministic: fixed insertion order, no timestamps) or updated
in place from a previous release's store (`kbtools.index.incremental`), then opened read-only by queries (`mode=ro`), so several processes can read it at once.

`verified` is stored per chunk (`verdicts.chunk_verification`): a chunk is verified only when its
document says `verified: true` and the build found the chunk still covered by the review
(the chunk record's `verification`, see `kbtools.build.verified`). A document's `verified`
column is true only when all its chunks are.

`shares` is set on a finer chunk that has no vector of its own (`kbtools.build.vector_plan`):
its chunk number minus the number of the chunk whose vector it shares, a chunk of the same
document; NULL for a chunk with vectors of its own. An offset, not a number, so it stays
right when an incremental update moves a document's chunks as a block. Readers load it once
with the per-chunk arrays (`kbtools.index.reader.ChunkTable.parent`, in the same pass).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from kbtools.cachedb import connect
from kbtools.index.verdicts import (
    LAST_LINE,
    NOT_CHECKED,
    by_section,
    changed_rank,
    chunk_verification,
    finest,
    span_verdict,
)
from kbtools.markdown.drawings import drawing_title

SCHEMA = """
PRAGMA page_size = 4096;
CREATE TABLE docs (
    doc TEXT PRIMARY KEY, title TEXT, category TEXT, verified INTEGER, source TEXT,
    author TEXT, timestamp TEXT, lang TEXT, metadata TEXT,
    last_commit TEXT, last_author TEXT, last_changed TEXT, n_chunks INTEGER, body_tags TEXT
);
CREATE TABLE chunks (
    num INTEGER PRIMARY KEY, id TEXT UNIQUE, doc TEXT, kind TEXT, heading_path TEXT,
    line_start INTEGER, line_end INTEGER, text TEXT, embed_text TEXT, models TEXT,
    links TEXT, extra TEXT, last_commit TEXT, last_author TEXT, last_changed TEXT,
    verified INTEGER, verification TEXT, shares INTEGER
);
CREATE INDEX chunks_doc ON chunks(doc);
CREATE TABLE facets (field TEXT, value TEXT, doc TEXT);
CREATE INDEX facets_fv ON facets(field, value);
CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT);
"""


_MAGIC = b"SQLite format 3\x00"  # the first bytes of every SQLite database file
_HEADER = 100  # the bytes of an SQLite database file's header


# (num, doc, heading path, line_start, line_end, parent's number or None, table index or
# None, whether it ships a decision table): `Store.section_rows`
SectionRow = tuple[int, str, tuple[str, ...], int, int, int | None, int | None, bool]

def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _doc_record(row: sqlite3.Row) -> dict[str, Any]:
    """A docs row as a document record: its front matter (`metadata`) and the Obsidian
    tags its text writes (`body_tags`, [] for none) decoded."""
    d = dict(row)
    d["metadata"] = json.loads(d["metadata"])
    d["body_tags"] = _load(d.get("body_tags") or "[]")
    return d


def input_headers(extra: Any) -> list[str]:
    """The input headers of the decision table a table chunk's `extra` ships
    (``extra["decision"]``, `DecisionTable.to_record`); [] for none."""
    record = extra.get("decision") if isinstance(extra, dict) else None
    if not isinstance(record, dict):
        return []
    header, inputs = record.get("header"), record.get("inputs")
    if not (isinstance(header, list) and isinstance(inputs, list)):
        return []
    return [str(header[i]) for i in inputs if type(i) is int and 0 <= i < len(header)]


def _load(text: str) -> Any:
    """A JSON column's value; the empty list and object, most links and many extras, without
    the parser."""
    if text == "[]":
        return []
    if text == "{}":
        return {}
    return json.loads(text)


# distinct flat JSON objects `_load_flat` keeps parsed (a release has a few: the verdicts
# of unverified documents' chunks are one text)
FLAT_MEMORY = 256
_FLAT: dict[str, dict[str, Any]] = {}
_SCALARS = (str, bool, int, float, type(None))


def _load_flat(text: str) -> Any:
    """`_load` of a JSON column whose object is often the same text (``verification``: every
    chunk of an unverified document carries the same verdict): an object of scalars is
    parsed once and handed out as a new dict each time (the caller may change it)."""
    got = _FLAT.get(text)
    if got is not None:
        return dict(got)
    value = _load(text)
    if type(value) is dict and len(_FLAT) < FLAT_MEMORY and \
            all(isinstance(v, _SCALARS) for v in value.values()):
        _FLAT[text] = value
        return dict(value)
    return value


def _load_strings(text: str) -> Any:
    """A JSON column holding a list of strings (``heading_path``), without the parser when
    `_dump` wrote it with no escape: then no string holds a quote, so splitting on the
    separator is exact. Anything else goes to `_load`."""
    if text.startswith('["') and text.endswith('"]') and "\\" not in text:
        parts = text[2:-2].split('", "')
        if text.count('"') == 2 * len(parts):
            return parts
    return _load(text)


def write_store(path: Path, docs: Iterable[dict[str, Any]], chunks: Iterable[dict[str, Any]],
                info: dict[str, str], facet_fields: Sequence[str]) -> None:
    """Write the store; `facet_fields` are the front-matter fields whose values go into the
    facets table, in this order (`Vocabulary.collected` of the build's config)."""
    path.unlink(missing_ok=True)
    docs, chunks = list(docs), list(chunks)
    metas = {d["doc"]: d.get("metadata") or {} for d in docs}
    con = connect(path, isolation_level=None)
    try:
        con.executescript(SCHEMA)
        con.execute("BEGIN")
        lapsed = insert_chunks(con, enumerate(chunks), metas)
        insert_docs(con, docs, lapsed, facet_fields)
        for key, value in sorted(info.items()):
            con.execute("INSERT INTO info VALUES (?,?)", (key, value))
        con.execute("COMMIT")
        con.execute("VACUUM")
    finally:
        con.close()


def insert_chunks(con: sqlite3.Connection, numbered: Iterable[tuple[int, dict[str, Any]]],
                  metas: dict[str, dict[str, Any]]) -> set[str]:
    """Insert chunk records at their chunk numbers (whole documents: a chunk's parent is
    among them); returns the documents that have a chunk that is not verified."""
    lapsed: set[str] = set()
    numbered = list(numbered)
    num_of = {c["id"]: num for num, c in numbered}
    for num, c in numbered:
        v = chunk_verification(metas.get(c["doc"], {}), c)
        if not v["verified"]:
            lapsed.add(c["doc"])
        prov = c.get("provenance") or {}
        con.execute(
            "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (num, c["id"], c["doc"], c["kind"], _dump(c["heading_path"]), c["line_start"],
             c["line_end"], c["text"], c["embed_text"], ",".join(c["models"]),
             _dump(c.get("links", [])), _dump(c.get("extra", {})), prov.get("last_commit"),
             prov.get("last_author"), prov.get("last_changed"), 1 if v["verified"] else 0,
             _dump(v), shares_value(c, num, num_of)))
    return lapsed


def shares_value(c: dict[str, Any], num: int, num_of: dict[str, int]) -> int | None:
    """The `shares` column of chunk record `c` numbered `num` (None: own vectors), its
    document's chunks numbered by `num_of` (id → number)."""
    if c["models"]:
        return None
    parent = num_of.get(str(c.get("extra", {}).get("parent")))
    if parent is None:
        raise ValueError(f"chunk {c['id']} shares the vector of a chunk not in its document")
    return num - parent


def insert_docs(con: sqlite3.Connection, docs: Iterable[dict[str, Any]], lapsed: set[str],
                facet_fields: Sequence[str]) -> None:
    """Insert document records and their facet values; a document in `lapsed` (one of its
    chunks is not verified) is stored as not verified."""
    for d in docs:
        meta = d.get("metadata") or {}
        con.execute(
            "INSERT INTO docs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (d["doc"], str(meta.get("title") or "") or drawing_title(meta, d["doc"]),
             str(meta.get("category") or ""),
             1 if meta.get("verified") is True and d["doc"] not in lapsed else 0,
             str(meta.get("source") or ""),
             str(meta.get("author") or ""), str(meta.get("timestamp") or ""),
             d.get("lang") or "", _dump(meta), d.get("last_commit"), d.get("last_author"),
             d.get("last_changed"), d.get("n_chunks", 0), _dump(d.get("body_tags") or [])))
        for field in facet_fields:
            values = meta.get(field)
            for v in values if isinstance(values, list) else [values]:
                if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v):
                    con.execute("INSERT INTO facets VALUES (?,?,?)", (field, str(v), d["doc"]))


def stored_info(path: Path, key: str) -> str | None:
    """One value of the info table of the store at `path`; None when the file, the table or
    the key is missing."""
    if not path.is_file():
        return None
    con = connect(path, read_only=True)
    try:
        row = con.execute("SELECT value FROM info WHERE key = ?", (key,)).fetchone()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    return None if row is None else str(row[0])


def store_damage(path: Path) -> str | None:
    """What cutting the store at `path` short or appending to it made of it, as its own
    first 100 bytes (which no such change reaches once there are 100) tell: too short for
    an SQLite header, no SQLite header, or a length other than the page count its header
    records times its page size; None when none of these. A header written by an SQLite
    before 3.7.0 records no valid page count: nothing to hold the length to. Two reads, no
    SQLite open: why a store's info table, read only from a store that passes this, is
    what says it was derived by other rules (`kbtools.ship.readonly.stale_served`) — SQLite
    reads a store cut short as one without that table, or malformed."""
    try:
        with open(path, "rb") as f:
            head, size = f.read(_HEADER), os.fstat(f.fileno()).st_size
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if len(head) < _HEADER or not head.startswith(_MAGIC):
        return f"not an SQLite database ({size} bytes)"
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    changed, pages, valid_for = (int.from_bytes(head[at:at + 4], "big") for at in (24, 28, 92))
    if pages and changed == valid_for and size != page * pages:
        return f"{size} bytes, its header says {pages} pages of {page} ({page * pages} bytes)"
    return None


def read_infos(path: Path) -> dict[str, str]:
    """The info table of the store at `path`; sqlite3.Error when it cannot be read (no
    table, a malformed file)."""
    con = connect(path, read_only=True)
    try:
        return {str(k): str(v) for k, v in con.execute("SELECT key, value FROM info")}
    finally:
        con.close()


def stored_infos(path: Path) -> dict[str, str]:
    """The info table of the store at `path` ({} when the file or the table is missing)."""
    if not path.is_file():
        return {}
    try:
        return read_infos(path)
    except sqlite3.Error:
        return {}


# What ranking reads of a candidate: its section (doc, heading_path), kind, lines, id and the
# text identifiers are looked for in (embed_text); `extra` (a parent, a table index) is read
# for few candidates, so it is decoded when first asked for.
_EAGER = ("num", "id", "doc", "kind", "heading_path", "line_start", "line_end", "embed_text")
_LAZY = ("extra",)
RANKING_COLUMNS = _EAGER + _LAZY
_HEADING, _N_EAGER = _EAGER.index("heading_path"), len(_EAGER)


def identifier_text(row: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    """A chunk row's text its identifiers are looked for in (``embed_text``), its own
    heading (the last of its heading path, "" for none) and the headings above it (a
    dotted configuration key is named by them: ``raftstore`` › ``store-pool-size``): what
    `Store.identifier_texts` reads of a chunk."""
    return _identifier_text(row["embed_text"], row["heading_path"])


def _identifier_text(text: str, path: list[str]) -> tuple[str, str, tuple[str, ...]]:
    return text, (path or [""])[-1], tuple(path[:-1])


def _decode(d: dict[str, Any]) -> None:
    """A whole chunk row's JSON columns decoded in place, and `verified` derived from its
    `verification`."""
    d["heading_path"] = _load_strings(d["heading_path"])
    d["links"] = _load(d["links"])
    d["extra"] = _load(d["extra"])
    raw = d.get("verification")  # absent in stores derived by an older kbtools
    d["verification"] = _load_flat(raw) if raw else {
        "verified": False, "status": "unchecked", "reason": NOT_CHECKED, "review": None}
    d["verified"] = bool(d["verification"]["verified"])


def _section_rows(cur: sqlite3.Cursor) -> Iterator[SectionRow]:
    paths: dict[str, tuple[str, ...]] = {}  # a heading path decoded once per distinct text
    for num, doc, raw, start, end, parent, table, decision in cur:
        path = paths.get(raw)
        if path is None:
            path = paths[raw] = tuple(_load_strings(raw))
        yield num, doc, path, start, end, parent, table, decision == 1


class RankingRow(dict[str, Any]):
    """A chunk row read with `RANKING_COLUMNS` only. Asking for any other column (``text``,
    ``links``, ``verification``, …, by ``row[key]`` or ``row.get``) reads the whole row
    once (or `Store.complete` reads those of many rows at once); the columns it holds are
    read as from a plain dict."""

    __slots__ = ("_store", "_lazy", "_complete")

    def __init__(self, store: Store, values: Sequence[Any]):
        """`values`: the row's `RANKING_COLUMNS`, as SQLite returns them."""
        super().__init__(zip(_EAGER, values, strict=False))  # values also holds _LAZY
        self["heading_path"] = _load_strings(values[_HEADING])
        self._store = store
        self._lazy = values[_N_EAGER:]  # raw JSON of the _LAZY columns
        self._complete = False

    def _fill(self, full: dict[str, Any] | None) -> None:
        self._complete = True
        if full is not None:
            self.update((k, v) for k, v in full.items() if k not in self)

    def __missing__(self, key: str) -> Any:
        if key in _LAZY and not self._complete:
            value = self[key] = _load(self._lazy[_LAZY.index(key)])
            return value
        if self._complete:
            raise KeyError(key)
        self._fill(self._store.chunks([self["num"]]).get(self["num"]))
        return self[key]

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


class Store:
    """Read-only access to a chunk store."""

    def __init__(self, path: Path):
        self.con = connect(path, immutable=True, check_same_thread=False)
        self.con.row_factory = sqlite3.Row
        self._doc_cache: dict[str, dict[str, Any]] = {}
        self._count: int | None = None

    def close(self) -> None:
        self.con.close()

    def info(self, key: str) -> str | None:
        """A value of the store's info table (`source_commit`, `tokens`), None when absent."""
        row = self.con.execute("SELECT value FROM info WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def infos(self) -> dict[str, str]:
        """The store's info table."""
        return {str(k): str(v) for k, v in self.con.execute("SELECT key, value FROM info")}

    def count(self) -> int:
        """Chunks in the store (counted once: the file is opened immutable, and every
        question asks)."""
        if self._count is None:
            self._count = int(self.con.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
        return self._count

    def verified_column(self) -> str:
        """An SQL expression over `chunks` for a chunk's `verified` (0 in a store derived by an
        older kbtools, which had no per-chunk verification)."""
        cols = {r[1] for r in self.con.execute("PRAGMA table_info(chunks)")}
        return "verified" if "verified" in cols else "0"

    def parent_column(self) -> str:
        """An SQL expression over `chunks` for the number of the chunk whose vector a chunk
        shares (NULL: its own vectors; always NULL in a store derived before `shares`)."""
        cols = {r[1] for r in self.con.execute("PRAGMA table_info(chunks)")}
        return "num - shares" if "shares" in cols else "NULL"

    def chunks(self, nums: list[int]) -> dict[int, dict[str, Any]]:
        return {d["num"]: d for d in self._select("num", nums)}

    def chunks_by_id(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        return {d["id"]: d for d in self._select("id", ids)}

    def ranking_rows(self, nums: list[int]) -> dict[int, dict[str, Any]]:
        """Chunk rows with the columns that rank candidates (`RANKING_COLUMNS`); any other
        column is read when first asked for (`RankingRow`). A search ranks 50 to 100
        candidates and shows a handful: reading and decoding every column of every
        candidate was a large share of a warm query."""
        return {d["num"]: d for d in self._select("num", nums, RANKING_COLUMNS)}

    def ranking_rows_by_id(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """`ranking_rows` by chunk id."""
        return {d["id"]: d for d in self._select("id", ids, RANKING_COLUMNS)}

    def identifier_texts(self, nums: list[int]) -> dict[int, tuple[str, str, tuple[str, ...]]]:
        """Per chunk of `nums`, its `identifier_text`, and nothing else of its row (a
        question with an identifier asks this of its 30-odd ranked chunks, and shows a few
        of them)."""
        if not nums:
            return {}
        cur = self.con.execute("SELECT num, embed_text, heading_path FROM chunks "
                               f"WHERE num IN ({','.join('?' * len(nums))})", nums)
        cur.row_factory = None
        return {num: _identifier_text(text, _load_strings(path))
                for num, text, path in cur.fetchall()}

    def complete(self, rows: Iterable[dict[str, Any]]) -> None:
        """Read the remaining columns of the ranking rows among `rows` in one query (the
        results a search shows); whole rows are left as they are."""
        todo = {r["num"]: r for r in rows if isinstance(r, RankingRow) and not r._complete}
        for num, full in self.chunks(sorted(todo)).items():
            todo[num]._fill(full)

    def _select(self, column: str, values: list[Any],
                columns: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
        if not values:
            return []
        marks = ",".join("?" * len(values))
        cur = self.con.execute(f"SELECT {', '.join(columns) if columns else '*'} FROM chunks "
                               f"WHERE {column} IN ({marks})", values)
        cur.row_factory = None  # plain tuples: a dict per row is made once, below
        if columns is RANKING_COLUMNS:
            return [RankingRow(self, r) for r in cur.fetchall()]
        names = [c[0] for c in cur.description]
        out: list[dict[str, Any]] = []
        for r in cur.fetchall():
            d = dict(zip(names, r, strict=True))
            _decode(d)
            out.append(d)
        return out

    def section_rows(self, kinds: Collection[str],
                     table_kinds: Collection[str]) -> Iterator[SectionRow] | None:
        """Of every chunk, in number order: (num, doc, heading path, line_start, line_end,
        the number of the chunk its ``extra`` names as ``parent`` when its kind is one of
        `kinds`, else None, its ``extra``'s integer ``table_index`` when its kind is one of
        `table_kinds`, else None, and whether such a chunk's ``extra`` holds a ``decision``
        table, `DecisionTable.to_record`), in one pass over the table (the parent found
        through the id index, in SQLite), as the query steps (no list of every row at once). None when
        this SQLite cannot read JSON (no JSON1): the caller reads rows as it needs them."""
        marks, tables = ",".join("?" * len(kinds)), ",".join("?" * len(table_kinds))
        try:
            cur = self.con.execute(
                "SELECT c.num, c.doc, c.heading_path, c.line_start, c.line_end, p.num, "
                f"CASE WHEN c.kind IN ({tables}) "
                "AND json_type(c.extra, '$.table_index') = 'integer' "
                "THEN json_extract(c.extra, '$.table_index') END, "
                f"c.kind IN ({tables}) AND json_type(c.extra, '$.decision') = 'object' "
                f"FROM chunks c LEFT JOIN chunks p ON c.kind IN ({marks}) "
                "AND json_type(c.extra, '$.parent') = 'text' "
                "AND p.id = json_extract(c.extra, '$.parent') ORDER BY c.num",
                [*sorted(table_kinds), *sorted(table_kinds), *sorted(kinds)])
            cur.row_factory = None
        except sqlite3.OperationalError:
            return None
        return _section_rows(cur)

    def decision_inputs(self) -> list[str]:
        """The input headers of every decision table the store ships (``extra["decision"]``
        of its table chunks, `DecisionTable.to_record`), in chunk order: one pass over the
        table chunks."""
        out: list[str] = []
        for (extra,) in self.con.execute(
                "SELECT extra FROM chunks WHERE kind = 'table' AND extra LIKE '%\"decision\"%' "
                "ORDER BY num"):
            out.extend(input_headers(_load(extra) if extra else None))
        return out

    def chunk_links(self) -> list[tuple[str, list[dict[str, Any]]]]:
        """(document, links) of every chunk that holds links (for the page link graph of
        `kbtools.query.neighbours`)."""
        rows = self.con.execute("SELECT doc, links FROM chunks WHERE links != '[]' ORDER BY num")
        return [(doc, _load(links)) for doc, links in rows.fetchall() if links]

    def chunk_links_text(self) -> list[tuple[str, list[dict[str, Any]], str]]:
        """(document, links, text) of every chunk that holds links (for the anchor text of
        `kbtools.query.anchors`)."""
        rows = self.con.execute(
            "SELECT doc, links, text FROM chunks WHERE links != '[]' ORDER BY num")
        return [(doc, _load(links), text) for doc, links, text in rows.fetchall() if links]

    def span_reason(self, doc: str, line_start: int, line_end: int) -> str | None:
        """Why lines line_start..line_end of `doc` are not verified; None when they are, as
        `span_verdict` judges them from the chunks over them (the document's chunks when
        none covers a line of the range)."""
        rows = self.overlapping(doc, line_start, line_end)
        if not rows:
            rows = self.overlapping(doc, 1, LAST_LINE)
        return span_verdict(by_section(rows, line_start, line_end), line_start, line_end)

    def span_provenance(self, doc: str, line_start: int, line_end: int) -> dict[str, Any]:
        """What a search result says of who wrote and who reviewed lines line_start..line_end
        of `doc`, from the chunks over them (the document's when none covers a line):
        `last_commit`, `last_author`, `last_changed` of the newest of the finest chunks
        over each line (`finest`: a table row's own, not its section's, which holds an
        edited row beside it; uncommitted first, then by author date) and `review`, the
        review behind the document (`{"commit", "by", "at"}`, None when none)."""
        rows = by_section(self.overlapping(doc, line_start, line_end), line_start, line_end) \
            or self.overlapping(doc, 1, LAST_LINE)
        newest = max(finest(rows, line_start, line_end), key=changed_rank, default={})
        review = next((v["review"] for v in (r.get("verification") for r in rows)
                       if isinstance(v, dict) and isinstance(v.get("review"), dict)), None)
        return {"last_commit": newest.get("last_commit"), "last_author": newest.get("last_author"),
                "last_changed": newest.get("last_changed"), "review": review}

    def overlapping(self, doc: str, line_start: int, line_end: int) -> list[dict[str, Any]]:
        """Chunks of `doc` overlapping lines line_start..line_end, by first line."""
        nums = [r[0] for r in self.con.execute(
            "SELECT num FROM chunks WHERE doc = ? AND line_start <= ? AND line_end >= ? "
            "ORDER BY line_start, num", (doc, line_end, line_start))]
        found = self.chunks(nums)
        return [found[n] for n in nums]

    def doc(self, doc: str) -> dict[str, Any] | None:
        if doc not in self._doc_cache:
            row = self.con.execute("SELECT * FROM docs WHERE doc = ?", (doc,)).fetchone()
            if row is None:
                return None
            d = _doc_record(row)
            self._doc_cache[doc] = d
        return self._doc_cache[doc]

    def docs(self) -> list[dict[str, Any]]:
        """Every document record, sorted by path (one query)."""
        out = []
        for row in self.con.execute("SELECT * FROM docs ORDER BY doc"):
            d = self._doc_cache.get(row["doc"])
            if d is None:
                d = _doc_record(row)
                self._doc_cache[d["doc"]] = d
            out.append(d)
        return out

    def heading_paths(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Every (document, heading path) a chunk lies under, once each, in no set order:
        where a section lies now, asked when a cited document is gone (`agents.moved`)."""
        for doc, raw in self.con.execute("SELECT DISTINCT doc, heading_path FROM chunks"):
            yield doc, tuple(_load_strings(raw))

    def doc_names(self) -> list[str]:
        """Every document's path, sorted (the order of `docs`), without decoding records."""
        return [r[0] for r in self.con.execute("SELECT doc FROM docs ORDER BY doc")]

    def facets(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for field, value in self.con.execute("SELECT DISTINCT field, value FROM facets"):
            out.setdefault(field, set()).add(value)
        return out

