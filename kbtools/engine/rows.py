"""What `kbtools.engine.publish` writes into Milvus for one release: the chunk collection's
schema and rows (citation fields, filter fields, BM25 weights as sparse vectors, one dense
vector per model) and the ``__meta`` collection's schema and blobs (everything else a
reader needs, `kbtools.engine.remote`). Pure over an open `KbIndex`: no engine calls."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from kbtools.engine import expr
from kbtools.engine.cache import encode_files
from kbtools.engine.milvus import Engine
from kbtools.index import synonyms
from kbtools.index.reader import KbIndex
from kbtools.query import anchors, neighbours, pages
from kbtools.query.filter_fields import document_facts

BATCH = 256
BLOB_CHARS = 60_000
VARCHAR_MAX = 65_535
# A Milvus server refuses a JSON value over ``common.JSONMaxLength`` bytes (65,536 by
# default; milvus-lite takes any): a chunk row whose text is larger (a long code block or
# table, kept whole by the chunker) failed the insert, and the publish with it, after
# everything before it was loaded. Such a row is stored in the ``__meta`` part `LONG_ROWS`
# and its ``row`` field holds `LONG_MARK` only (`kbtools.engine.remote.MilvusStore` reads
# it back); the bound leaves room for pymilvus's serialisation differing from ours.
ROW_BYTES = 60_000
LONG_ROWS = "long_rows"
LONG_MARK = "in_meta"


class Release(Protocol):
    """What the meta rows record of a checked release (`publish.CheckedRelease`)."""

    @property
    def root(self) -> Path: ...
    @property
    def manifest_text(self) -> str: ...
    @property
    def release_text(self) -> str: ...
    @property
    def signed_by(self) -> str | None: ...


@dataclass(frozen=True)
class SparseRows:
    """Per chunk, {vocabulary id: BM25 weight} — the bm25s score matrix (one row per term)
    transposed to one row per chunk, kept as arrays (`row(num)` makes one dict). A
    question's sparse vector is 1.0 per known term, so the inner product is its score."""

    bounds: np.ndarray  # chunk num → its slice of terms/weights
    terms: np.ndarray
    weights: np.ndarray

    @classmethod
    def of(cls, index: KbIndex) -> SparseRows:
        n = index.store.count()
        ret = index.bm25.retriever
        if ret is None:
            return cls(np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                       np.zeros(0, dtype=np.float32))
        s = ret.scores
        indptr = np.asarray(s["indptr"])
        terms = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        docs = np.asarray(s["indices"])
        order = np.argsort(docs, kind="stable")
        return cls(np.searchsorted(docs[order], np.arange(n + 1)), terms[order],
                   np.asarray(s["data"], dtype=np.float32)[order])

    def row(self, num: int) -> dict[int, float]:
        a, b = int(self.bounds[num]), int(self.bounds[num + 1])
        return {int(t): float(w) for t, w in zip(self.terms[a:b], self.weights[a:b], strict=True)
                if w > 0}


def blob_rows(parts: dict[str, Any]) -> list[dict[str, Any]]:
    """Meta collection rows: each part as zlib-compressed JSON, base64, in pieces."""
    rows = []
    for part, value in parts.items():
        raw = json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8")
        text = base64.b64encode(zlib.compress(raw, 6)).decode("ascii")
        pieces = [text[i:i + BLOB_CHARS] for i in range(0, len(text), BLOB_CHARS)] or [""]
        rows += [{"key": f"{part}/{i:06d}", "part": part, "seq": i, "data": piece,
                  "pad": [1.0, 0.0]} for i, piece in enumerate(pieces)]
    return rows


def meta_parts(index: KbIndex, checked: Release, fields: dict[str, str]) -> dict[str, Any]:
    """Everything a reader needs besides the chunk rows (see `kbtools.engine.remote`)."""
    ret = index.bm25.retriever
    indptr = np.asarray(ret.scores["indptr"]) if ret is not None else np.zeros(1, dtype=int)
    table = index.chunk_table()
    return {
        "manifest": checked.manifest_text,
        "release": checked.release_text,
        "docs": index.docs(),
        "facets": {k: sorted(v) for k, v in index.facets().items()},
        "vocab": index.bm25.vocab,
        "df": np.diff(indptr).tolist(),
        "num_docs": int(ret.scores["num_docs"]) if ret is not None else 0,
        "dictionary": list(index.bm25.tok.words),
        "synonyms": synonyms.dump(index.synonyms()),
        "no_answer": index.no_answer_record(),  # the release's own no-answer calibration
        "pages": page_parts(index),
        "links": link_parts(index),
        "chunk_table": {"doc": table.doc.tolist(), "kind": table.kind.tolist(),
                        "models": table.models.tolist(), "verified": table.verified.tolist(),
                        "parent": table.parent.tolist()},
        "ids": chunk_ids(index),
        "fields": fields,
        "count": index.store.count(),
        "sources": sources(index),
        "files": encode_files(checked.root, index.manifest),
        "verified": {"signed_by": checked.signed_by,
                     "verified_at": datetime.now(UTC).isoformat(timespec="seconds")},
    }


def chunk_ids(index: KbIndex) -> list[str]:
    """Every chunk's id, by chunk number: a reader fetches the rows a question names by id
    (a section a row or an item collapses to) by their number, the collection's primary
    key, not by an ``id in [...]`` filter the engine evaluates on every row (0.2–0.9 s a
    question on the 54,626-chunk tidb-docs-cn in milvus-lite)."""
    return [str(r[0]) for r in index.store.con.execute("SELECT id FROM chunks ORDER BY num")]


def page_parts(index: KbIndex) -> dict[str, str]:
    """Per model, the release's page vectors (`kbtools.query.pages`) as base64 of their
    .npy bytes: the engine's searches weigh pages as the local files do."""
    return {model: base64.b64encode(pages.to_bytes(pages.page_vectors(index, model))
                                    ).decode("ascii")
            for model in sorted(index.manifest.get("models", {}))}


def link_parts(index: KbIndex) -> dict[str, Any]:
    """The release's link graph and anchor texts as `KbIndex.published_links` returns
    them: the engine's searches follow links and read anchors as the local files do."""
    return {"graph": [sorted(g) for g in neighbours.link_graph(index)],
            "anchors": anchors.anchor_texts(index)}


def sources(index: KbIndex) -> dict[str, str]:
    """The release's Markdown sources by document (MCP `read` serves sections of them)."""
    out = {}
    for d in index.docs():
        path = index.source_path(d["doc"])
        if path.is_file() and not path.is_symlink():
            out[d["doc"]] = path.read_text(encoding="utf-8", errors="replace")
    return out


def chunk_schema(engine: Engine, dims: dict[str, int], description: str = "") -> Any:
    pm = engine.pymilvus
    dt = pm.DataType
    s = pm.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False,
                                      description=description)
    s.add_field("num", dt.INT64, is_primary=True)
    s.add_field("id", dt.VARCHAR, max_length=256)
    s.add_field("doc", dt.VARCHAR, max_length=4096)
    s.add_field("kind", dt.VARCHAR, max_length=256)
    s.add_field("line_start", dt.INT64)
    s.add_field("line_end", dt.INT64)
    s.add_field("verified", dt.BOOL)
    s.add_field("models", dt.ARRAY, element_type=dt.VARCHAR, max_capacity=64, max_length=256)
    s.add_field("row", dt.JSON)
    s.add_field(expr.EQ_FIELD, dt.JSON)
    s.add_field(expr.NUM_FIELD, dt.JSON)
    s.add_field(expr.ORD_FIELD, dt.JSON)
    s.add_field("sparse", dt.SPARSE_FLOAT_VECTOR)
    for field, dim in dims.items():
        s.add_field(field, dt.FLOAT_VECTOR, dim=dim)
    return s


def meta_schema(engine: Engine) -> Any:
    pm = engine.pymilvus
    dt = pm.DataType
    s = pm.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    s.add_field("key", dt.VARCHAR, is_primary=True, max_length=256)
    s.add_field("part", dt.VARCHAR, max_length=64)
    s.add_field("seq", dt.INT64)
    s.add_field("data", dt.VARCHAR, max_length=VARCHAR_MAX)
    s.add_field("pad", dt.FLOAT_VECTOR, dim=2)  # Milvus wants a vector field; never searched
    return s


ROW_FIELDS = ("heading_path", "text", "embed_text", "links", "extra", "last_commit",
              "last_author", "last_changed", "verification")


def filter_problem(index: KbIndex) -> str | None:
    """Why a Milvus server would refuse a chunk row of `index` (None: it would not): the
    filter fields of a document's chunks (`expr.filter_fields` of its front matter and
    inline tags, which every chunk of it carries and filters read whole) over `ROW_BYTES`
    as a JSON value, the first such document named. Unlike a long text they cannot be kept
    elsewhere: a filter reads them in the engine."""
    for d in index.docs():
        facts = expr.chunk_facts(document_facts(d), d["doc"], "section", True)
        for field, value in expr.filter_fields(facts).items():
            if (size := row_bytes(value)) > ROW_BYTES:
                keys = sorted(value, key=lambda k: -row_bytes({k: value[k]}))[:3]
                return (f"{d['doc']}: its front matter (with its inline tags) makes filter "
                        f"field {field} {size:,} bytes, mostly {', '.join(keys)}; a Milvus "
                        "server takes at most 65,536 bytes in one JSON field: shorten "
                        "those values or lists")
    return None


def row_bytes(row: dict[str, Any]) -> int:
    """The size of `row` as a JSON field value (compact UTF-8, as pymilvus sends it)."""
    return len(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def chunk_rows(index: KbIndex, fields: dict[str, str], long: dict[str, Any] | None = None
               ) -> Iterator[list[dict[str, Any]]]:
    """The chunk rows to insert, in batches of BATCH. A ``row`` over `ROW_BYTES` is put in
    `long` (chunk number as text → the row) and replaced by `LONG_MARK`: the caller
    publishes `long` as the ``__meta`` part `LONG_ROWS`."""
    n = index.store.count()
    sparse = SparseRows.of(index)
    metas = {d["doc"]: document_facts(d) for d in index.docs()}  # inline tags in `tags`
    table = index.chunk_table()
    parent_of, models_of = table.parent, table.models
    for start in range(0, n, BATCH):
        nums = list(range(start, min(n, start + BATCH)))
        rows = index.store.chunks(nums)
        vecs: dict[str, dict[int, list[float]]] = {}
        for model, field in fields.items():
            have = [i for i in nums if model in rows[i]["models"].split(",")]
            # a chunk sharing its section's vector is stored with that vector, not a
            # placeholder: thousands of identical placeholders degrade the HNSW graph (its
            # searches still exclude the chunk: kbtools.query.inherit adds it)
            lent = [i for i in nums if parent_of[i] >= 0
                    and model in models_of[parent_of[i]].split(",")]
            keys = have + [int(parent_of[i]) for i in lent]
            got: Any = np.asarray(index.vectors(model).get(np.array(keys, dtype=np.uint64)),
                             dtype=np.float32).reshape(len(keys), -1) if keys else []
            vecs[field] = {i: v.tolist() for i, v in zip(have + lent, got, strict=True)}
            if len(vecs[field]) < len(nums):
                spare = placeholders(start, len(nums), int(index.vectors(model).ndim))
                vecs[field].update((i, spare[i - start].tolist()) for i in nums
                                   if i not in vecs[field])
        batch = []
        for i in nums:
            r = rows[i]
            models = [m for m in r["models"].split(",") if m]
            facts = expr.chunk_facts(metas.get(r["doc"], {}), r["doc"], r["kind"],
                                     bool(r["verified"]))
            row: dict[str, Any] = {
                "num": i, "id": r["id"], "doc": r["doc"], "kind": r["kind"],
                "line_start": int(r["line_start"]), "line_end": int(r["line_end"]),
                "verified": bool(r["verified"]), "models": models,
                "row": _stored_row({k: r.get(k) for k in ROW_FIELDS}, i, long),
                "sparse": sparse.row(i) or {0: 0.0},
                **expr.filter_fields(facts)}
            for field, have_vec in vecs.items():
                row[field] = have_vec[i]
            batch.append(row)
        yield batch


def _stored_row(row: dict[str, Any], num: int, long: dict[str, Any] | None
                ) -> dict[str, Any]:
    """`row` as the chunk collection stores it: itself, or `LONG_MARK` when it is too large
    for a JSON field (kept in `long`)."""
    if long is None or row_bytes(row) <= ROW_BYTES:
        return row
    long[str(num)] = row
    return {LONG_MARK: True}


def placeholders(start: int, count: int, dim: int) -> np.ndarray:
    """Unit vectors for chunks `start` … `start + count - 1` that have no vector of a model
    (another language's chunks; searches exclude them): each its own random direction, the
    same on every publish. One vector shared by all of them made hundreds of identical
    nodes in the HNSW graph, whose links then led only to each other: a search filtered to
    the model's chunks found none of them (an English question got no vector candidates
    once most chunks were Chinese)."""
    mat = np.random.default_rng([start, dim]).standard_normal((count, dim))
    return np.asarray(mat / np.linalg.norm(mat, axis=1, keepdims=True), dtype=np.float32)
