"""The query pipeline, shared by `kb query`, `kb eval` and the MCP server.

open_index(path) → Index; search(index, query, …) → the JSON contract of `kb query --json`.
Stages: clean the question → filters (explicit --where, verified-only) and routing boosts
(front-matter vocabulary found in the question) → BM25 and vector candidates → score-aware
fusion (kbtools.query.fusion) → nested-duplicate suppression → relevance threshold → citations.
"""

from __future__ import annotations

import json
import os
import re
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.config import Vocabulary
from kbtools.errors import IndexLoadError, UsageError
from kbtools.index.manifest import load_manifest
from kbtools.query import fusion

MAX_QUERY_CHARS = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass
class Index:
    root: Path
    manifest: dict[str, Any]
    release: dict[str, Any]
    _store: Any = None
    _bm25: Any = None
    _vectors: dict[str, Any] = field(default_factory=dict)
    _chunk_meta: Any = None
    _docs: Any = None
    _facets: Any = None

    # lazily opened parts -------------------------------------------------------------
    @property
    def store(self):
        if self._store is None:
            from kbtools.index.store import Store

            self._store = Store(self.root / "index" / "store.sqlite")
        return self._store

    @property
    def bm25(self):
        if self._bm25 is None:
            from kbtools.index.bm25 import Bm25
            from kbtools.index.tokenize import Tokenizer

            words = (self.root / "data" / "dictionary.txt").read_text(encoding="utf-8").split()
            cfg = self.manifest["config"]["values"]["bm25"]
            self._bm25 = Bm25(self.root / "index" / "bm25",
                              Tokenizer(backend=cfg["tokenizer"], words=tuple(words)))
        return self._bm25

    def vectors(self, model: str):
        if model not in self._vectors:
            from kbtools.index import vectors

            ef = self.manifest["config"]["values"]["index"]["expansion_search"]
            self._vectors[model] = vectors.load(self.root / "index" / f"vectors-{model}.usearch", ef)
        return self._vectors[model]

    def chunk_table(self) -> dict[str, np.ndarray]:
        """Per-chunk arrays used for filtering: doc index, kind, verified, model."""
        if self._chunk_meta is None:
            docs = {d["doc"]: i for i, d in enumerate(self.docs())}
            rows = self.store.con.execute("SELECT doc, kind, models FROM chunks ORDER BY num").fetchall()
            self._chunk_meta = {
                "doc": np.array([docs[r[0]] for r in rows], dtype=np.int32),
                "kind": np.array([r[1] for r in rows], dtype=object),
                "models": np.array([r[2] for r in rows], dtype=object),
            }
        return self._chunk_meta

    # API for other adapters ------------------------------------------------------------
    def docs(self) -> list[dict[str, Any]]:
        if self._docs is None:
            self._docs = self.store.docs()
        return self._docs

    def facets(self) -> dict[str, set[str]]:
        if self._facets is None:
            self._facets = self.store.facets()
        return self._facets

    def source_path(self, doc: str) -> Path:
        return self.root / "data" / "source" / doc

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def resolve_index_path(path: Path | None) -> Path:
    """--index, else $KB_INDEX, else ./dist of the repo, else the default device dir."""
    from kbtools.config import find_root, load_config
    from kbtools.ship import device

    if path is None and os.environ.get("KB_INDEX"):
        path = Path(os.environ["KB_INDEX"])
    if path is None:
        cfg = load_config(find_root())
        candidate = cfg.path("dist")
        path = candidate if (candidate / "manifest.json").is_file() else device.default_device_dir()
    if (path / "manifest.json").is_file():
        return path
    if device.is_device_dir(path):
        served = device.served_release(path)
        if served is None:
            raise IndexLoadError("device directory has no served release yet (run `kb sync`)",
                                 path=str(path))
        return served
    raise IndexLoadError("no index here: run `kb build`, or `kb sync` on a device, or pass "
                         "--index", path=str(path))


def open_index(path: Path | None = None) -> Index:
    root = resolve_index_path(path)
    manifest = load_manifest(root)
    for rel in ("index/store.sqlite", "index/bm25/kb_vocab.json", "data/dictionary.txt"):
        if not (root / rel).is_file():
            raise IndexLoadError(f"index file missing: {rel} (rebuild or re-sync)", path=str(root))
    _check_models(manifest, root)
    release = {"tag": None, "source_commit": manifest["source"]["commit"]}
    rel_json = root / "release.json"
    if rel_json.is_file():
        try:
            info = json.loads(rel_json.read_text(encoding="utf-8"))
            release["tag"] = info.get("tag")
            release["serial"] = info.get("serial")
        except ValueError:
            raise IndexLoadError("release.json is corrupted", path=str(rel_json)) from None
    return Index(root=root, manifest=manifest, release=release)


def _check_models(manifest: dict[str, Any], root: Path) -> None:
    """Refuse an index whose vectors came from a different model than we would load."""
    from kbtools.embed.registry import get_embedder

    for key, meta in manifest["models"].items():
        if not (root / "index" / f"vectors-{key}.usearch").is_file():
            raise IndexLoadError(f"index file missing: index/vectors-{key}.usearch", path=str(root))
        if key == "use":  # cheap to check eagerly; others are checked when first used
            fp = get_embedder(key).fingerprint()
            if fp != meta["fingerprint"]:
                raise IndexLoadError(
                    f"index was built with embedding model {meta['fingerprint']} but this "
                    f"machine has {fp}; rebuild the index or install the matching model",
                    path=str(root))


def clean_query(query: str) -> str:
    query = unicodedata.normalize("NFKC", query or "")
    query = _CONTROL.sub(" ", query)
    query = re.sub(r"\s+", " ", query).strip()
    return query[:MAX_QUERY_CHARS]


# filters ---------------------------------------------------------------------------------
_WHERE = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*(>=|<=|!=|=)\s*(.*?)\s*$")
CHUNK_KEYS = {"doc", "kind"}


def parse_where(items: list[str] | None) -> list[tuple[str, str, str]]:
    out = []
    for item in items or []:
        m = _WHERE.match(item)
        if not m:
            raise UsageError(f"bad --where {item!r}: use KEY=VALUE, KEY>=VALUE or KEY<=VALUE")
        out.append((m.group(1), m.group(2), m.group(3)))
    return out


def _compare(value: Any, op: str, want: str) -> bool:
    if isinstance(value, list):
        if op in ("=", "!="):
            hit = any(_compare(v, "=", want) for v in value)
            return hit if op == "=" else not hit
        return any(_compare(v, op, want) for v in value)
    if isinstance(value, bool):
        value = "true" if value else "false"
    if value is None:
        return op == "!="
    sval = str(value)
    if op == "=":
        return sval.casefold() == want.casefold()
    if op == "!=":
        return sval.casefold() != want.casefold()
    try:
        a, b = float(sval), float(want)
    except ValueError:
        a, b = sval, want  # ISO dates compare correctly as strings
    return a >= b if op == ">=" else a <= b


def filter_mask(index: Index, where: list[tuple[str, str, str]], verified_only: bool) -> np.ndarray | None:
    if not where and not verified_only:
        return None
    docs = index.docs()
    table = index.chunk_table()
    known = set(CHUNK_KEYS) | {"verified"} | {k for d in docs for k in d["metadata"]}
    doc_ok = np.ones(len(docs), dtype=bool)
    chunk_ok = np.ones(len(table["doc"]), dtype=bool)
    for key, op, want in where:
        if key not in known:
            raise UsageError(f"unknown --where key {key!r}; known keys: {', '.join(sorted(known))}")
        if key == "kind":
            chunk_ok &= np.array([_compare(k, op, want) for k in table["kind"]], dtype=bool)
        elif key == "doc":
            doc_ok &= np.array([_compare(d["doc"], op, want) for d in docs], dtype=bool)
        else:
            doc_ok &= np.array([_compare(d["metadata"].get(key), op, want) for d in docs], dtype=bool)
    if verified_only:
        doc_ok &= np.array([d["metadata"].get("verified") is True for d in docs], dtype=bool)
    return chunk_ok & doc_ok[table["doc"]]


def route(index: Index, query: str) -> list[dict[str, str]]:
    """Front-matter vocabulary that occurs in the question (→ boosts): values of the routing
    fields the index was built with (kb.toml [vocabulary] routing, recorded in the manifest)."""
    routing = set(Vocabulary.from_values(index.manifest["config"]["values"]).routing)
    q = query.casefold()
    hits = []
    for fld, values in sorted(index.facets().items()):
        if fld not in routing:
            continue
        for v in sorted(values):
            if len(v) >= 2 and v.casefold() in q:
                hits.append({"field": fld, "value": v})
    return hits


def _boost_vector(index: Index, routed: list[dict[str, str]]) -> np.ndarray | None:
    if not routed:
        return None
    docs = index.docs()
    doc_hit = np.zeros(len(docs), dtype=np.float32)
    for i, d in enumerate(docs):
        for r in routed:
            val = d["metadata"].get(r["field"])
            vals = val if isinstance(val, list) else [val]
            if any(isinstance(v, str) and v.casefold() == r["value"].casefold() for v in vals):
                doc_hit[i] += 1
    return np.minimum(doc_hit, 2)[index.chunk_table()["doc"]]


def _unverified_vector(index: Index) -> np.ndarray | None:
    flags = np.array([d["metadata"].get("verified") is not True for d in index.docs()], dtype=bool)
    return flags[index.chunk_table()["doc"]] if flags.any() else None


# the pipeline --------------------------------------------------------------------------
def search(index: Index, query: str, *, k: int = 5, where: list[str] | None = None,
           verified_only: bool | None = None, mode: str = "hybrid",
           params: fusion.FusionParams | None = None,
           keep_results: bool = False, reranker: str | None = None) -> dict[str, Any]:
    """Run one question. ``keep_results`` returns the ranking even when the relevance
    threshold says "no answer" (evaluation scores ranking and threshold separately)."""
    t0 = time.perf_counter()
    qcfg = index.manifest["config"]["values"]["query"]
    if verified_only is None:
        verified_only = bool(qcfg.get("verified_only", False))
    params = params or fusion.FusionParams.from_config(qcfg)
    parsed = parse_where(where)
    text = clean_query(query)
    filters = {"where": [f"{a}{op}{b}" for a, op, b in parsed], "verified_only": verified_only,
               "routed": []}
    result: dict[str, Any] = {"query": text, "release": dict(index.release), "no_answer": True,
                              "filters": filters, "results": []}
    if not text:
        result["reason"] = "empty question"
        return result
    mask = filter_mask(index, parsed, verified_only)
    routed = route(index, text)
    filters["routed"] = [dict(r, effect="boost") for r in routed]
    n = index.store.count()
    if n == 0 or (mask is not None and not mask.any()):
        result["reason"] = "the index is empty" if n == 0 else "no chunk matches the filters"
        return result

    lists: dict[str, fusion.Ranked] = {}
    terms, ids, unknown = index.bm25.query_terms(text)
    coverage = np.zeros(0)
    if mode in ("hybrid", "bm25") and ids:
        scores = index.bm25.scores(ids)
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        lists["bm25"] = fusion.top(scores, params.candidates)
    if mode in ("hybrid", "vector"):
        for model in query_models(index, text):
            lists[f"vector:{model}"] = _vector_candidates(index, model, text, mask, params.candidates)
    boost = _boost_vector(index, routed)
    fused = fusion.fuse(lists, params, boost=boost, unverified=_unverified_vector(index))
    if not fused:
        result["reason"] = "nothing matched"
        return result
    nums = [h.num for h in fused[: max(k * 4, 20)]]
    rows = index.store.chunks(nums)
    hits = _collapse_to_sections(index, [h for h in fused if h.num in rows], rows)
    if reranker or qcfg.get("reranker"):
        hits = rerank(reranker or qcfg["reranker"], text, hits, rows)
        filters["reranked_by"] = reranker or qcfg["reranker"]
    picked = _suppress_nested(hits, rows, k)
    if ids or unknown:
        idf = index.bm25.idf(ids) if ids else np.zeros(0)
        # a question term the knowledge never uses weighs as much as the rarest term
        missing = len(unknown) * index.bm25.max_idf()
        coverage = np.array([_coverage(index, ids, terms, idf, h.num, missing) for h in picked])
    verdict = fusion.answerable(picked, coverage, params, has_terms=bool(ids or unknown),
                                unknown_terms=unknown)
    filters["unknown_terms"] = unknown
    result["no_answer"] = not verdict
    if not verdict:
        result["reason"] = "no passage is relevant enough (below the relevance threshold)"
    result["results"] = [_cite(index, rows[h.num], h, rank, terms, ids)
                         for rank, h in enumerate(picked, 1)] if verdict or keep_results else []
    result["took_ms"] = round((time.perf_counter() - t0) * 1000, 2)
    return result


def query_models(index: Index, text: str) -> list[str]:
    """Models to embed the question with: the language model configured for the question's
    language when the index has it (its vectors are the stronger ones), else the base model."""
    from kbtools.build.pipeline import language_of

    emb = index.manifest["config"]["values"]["embedding"]
    lang_model = emb.get("languages", {}).get(language_of(text))
    if lang_model and lang_model in index.manifest["models"]:
        return [lang_model]
    return [emb["model"]] if emb["model"] in index.manifest["models"] else sorted(index.manifest["models"])


def _vector_candidates(index: Index, model: str, text: str, mask, count: int) -> fusion.Ranked:
    from kbtools.embed.registry import get_embedder
    from kbtools.index import vectors

    emb = get_embedder(model)
    if emb.fingerprint() != index.manifest["models"][model]["fingerprint"]:
        raise IndexLoadError(f"index vectors for {model!r} came from another model version; "
                             "rebuild the index", path=str(index.root))
    q = emb.embed_batch([text])[0]
    vindex = index.vectors(model)
    if mask is None:
        keys, sims = vectors.search(vindex, q, count)
        return fusion.Ranked(keys, sims)
    has_model = np.array([model in m.split(",") for m in index.chunk_table()["models"]])
    allowed = np.flatnonzero(mask & has_model)
    if len(allowed) == 0:
        return fusion.Ranked(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))
    if len(allowed) <= 20000:  # exact over the filtered subset: cheap and never misses
        mat = np.asarray(vindex.get(allowed.astype(np.uint64)), dtype=np.float32)
        mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
        sims = mat @ q
        order = np.argsort(-sims, kind="stable")[:count]
        return fusion.Ranked(allowed[order], sims[order])
    keys, sims = vectors.search(vindex, q, count * 8)
    keep = mask[keys]
    return fusion.Ranked(keys[keep][:count], sims[keep][:count])


def _coverage(index: Index, ids, terms, idf, num: int, missing: float) -> float:
    """Share of the question's idf weight that chunk `num` contains."""
    matched = set(index.bm25.matched(ids, terms, num)) if ids else set()
    total = float(idf.sum()) + missing or 1.0
    return float(sum(w for t, w in zip(terms, idf, strict=True) if t in matched)) / total


RERANK_DEPTH = 20


def rerank(model: str, query: str, hits, rows):
    """Re-order the top hits by a sentence-transformers CrossEncoder (configured by name or
    local path; loaded offline only). Hits below the rerank depth keep their order."""
    from kbtools.embed.sentence_models import get_cross_encoder

    head, tail = hits[:RERANK_DEPTH], hits[RERANK_DEPTH:]
    if not head:
        return hits
    scores = get_cross_encoder(model).score(query, [rows[h.num]["embed_text"] for h in head])
    order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
    return [fusion.Hit(head[i].num, head[i].score, {**head[i].why,
                                                     "rerank_score": round(float(scores[i]), 6)})
            for i in order] + tail


# A hit on one of these is answered better by its whole section (the item alone lacks the
# surrounding steps); table rows and formulas are complete answers on their own.
COLLAPSE_KINDS = {"list_item", "code", "mermaid", "image"}


def _collapse_to_sections(index: Index, hits, rows):
    """Replace list-item/code/image hits by their parent section (kept at the hit's rank)."""
    parents = {rows[h.num]["extra"].get("parent") for h in hits
               if rows[h.num]["kind"] in COLLAPSE_KINDS}
    parents.discard(None)
    if not parents:
        return hits
    by_id = index.store.chunks_by_id(sorted(parents))
    rows.update({r["num"]: r for r in by_id.values()})
    out, seen = [], set()
    for h in hits:
        row = rows[h.num]
        parent = by_id.get(row["extra"].get("parent")) if row["kind"] in COLLAPSE_KINDS else None
        if parent is not None:
            h = fusion.Hit(parent["num"], h.score, {**h.why, "collapsed_from": row["kind"]})
        if h.num not in seen:
            seen.add(h.num)
            out.append(h)
    return out


def _suppress_nested(hits, rows, k: int):
    """Drop a hit whose lines sit inside (or around) an already chosen hit of the same doc."""
    chosen = []
    for h in hits:
        r = rows[h.num]
        nested = any(rows[c.num]["doc"] == r["doc"]
                     and (rows[c.num]["line_start"] <= r["line_start"] <= r["line_end"] <= rows[c.num]["line_end"]
                          or r["line_start"] <= rows[c.num]["line_start"] <= rows[c.num]["line_end"] <= r["line_end"])
                     for c in chosen)
        if not nested:
            chosen.append(h)
        if len(chosen) == k:
            break
    return chosen


def _cite(index: Index, row: dict[str, Any], hit, rank: int, terms, ids) -> dict[str, Any]:
    doc = index.store.doc(row["doc"]) or {"metadata": {}}
    meta = doc["metadata"]
    matched = index.bm25.matched(ids, terms, row["num"]) if ids else []
    return {
        "rank": rank,
        "score": round(float(hit.score), 6),
        "chunk_id": row["id"],
        "doc": row["doc"],
        "title": meta.get("title") or row["doc"],
        "heading_path": row["heading_path"],
        "line_start": row["line_start"],
        "line_end": row["line_end"],
        "kind": row["kind"],
        "text": row["text"],
        "verified": meta.get("verified") is True,
        "source": meta.get("source"),
        "metadata": meta,
        "links": row["links"],
        "extra": row["extra"],
        "last_commit": row.get("last_commit"),
        "last_author": row.get("last_author"),
        "last_changed": row.get("last_changed"),
        "why": {**hit.why, "matched_terms": matched},
    }
