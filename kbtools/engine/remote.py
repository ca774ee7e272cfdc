"""Search a release published in Milvus with our own query pipeline.

`EngineReader.current()` resolves the alias to the collection it serves now and returns a
`MilvusIndex` bound to that collection: a `KbIndex` whose small parts (manifest, documents,
facets, BM25 vocabulary and document frequencies, per-chunk arrays) come from the
release's ``__meta`` collection, whose chunk rows are fetched from Milvus, and whose
``candidate_source`` asks Milvus for the BM25 (sparse, inner product) and dense (HNSW,
cosine) candidates (`kbtools.engine.candidates`). Its
root is a local copy of the release's files taken from the engine (`kbtools.engine.cache`:
the Markdown sources, and with ``files=True`` — the web app — formulas, images, tables).
Fusion, the no-answer rule and citations stay in `kbtools.query.search`, so the answers
equal the local index's. One search runs on one collection even when the alias moves
meanwhile; the next `current()` sees the move.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Collection, Iterator
from typing import Any

import numpy as np

from kbtools.base_identity import base_parts
from kbtools.engine import expr
from kbtools.engine.cache import forget_gone, keep_parts, kept_parts, release_root
from kbtools.engine.candidates import MilvusCandidates
from kbtools.engine.milvus import ALIAS, P_BASE, Engine, engine_error
from kbtools.engine.parts import PAGE_ROWS, check_derivation, read_parts
from kbtools.engine.published import EarlierReleases
from kbtools.engine.rows import LONG_MARK, LONG_ROWS
from kbtools.errors import EngineError, IndexLoadError
from kbtools.index.bm25 import Bm25
from kbtools.index.layout import ReleaseLayout
from kbtools.index.manifest import parse_manifest
from kbtools.index.reader import ChunkTable, KbIndex, ReleaseInfo
from kbtools.index.store import SectionRow, Store, identifier_text, input_headers
from kbtools.index.synonyms import parse as parse_synonyms
from kbtools.index.tokenize import Tokenizer
from kbtools.query import pages

# the chunk numbers one listing query asks for (`MilvusStore.listed`): a Milvus server caps
# what one query returns (16,384 rows by default), and a large release has more table chunks
LIST_ROWS = 8192
# a sparse search returns at most this many hits (Milvus's bound on a search's limit)
MAX_HOLDERS = 16384
CHUNK_FIELDS = ["num", "id", "doc", "kind", "line_start", "line_end", "verified", "models",
                "row", "sparse"]


class MilvusStore(Store):
    """The chunk store's reads, answered from the release collection (rows cached)."""

    def __init__(self, engine: Engine, collection: str, docs: list[dict[str, Any]],
                 facets: dict[str, set[str]], count: int, verified: list[bool], *,
                 page_rows: int = PAGE_ROWS, list_rows: int = LIST_ROWS,
                 long_rows: dict[str, Any] | None = None, ids: list[str] | None = None):
        """`ids`: every chunk's id by chunk number (the ``ids`` part; None for a release
        published before it was: rows are then fetched by an ``id in [...]`` filter)."""
        self.engine, self.collection = engine, collection
        self.page_rows = page_rows  # chunk rows read by one query (`read_parts`' reason)
        self.list_rows = list_rows  # chunk numbers one listing query ranges over
        self._docs = {d["doc"]: d for d in docs}
        self._facets, self._total, self._verified = facets, count, verified
        self._rows: dict[int, dict[str, Any]] = {}
        self._long = long_rows or {}  # rows too large for the collection (`rows.LONG_ROWS`)
        self.terms: dict[int, set[int]] = {}  # chunk number → its BM25 vocabulary ids
        self._num_of = None if ids is None else {cid: n for n, cid in enumerate(ids)}

    def close(self) -> None:
        pass

    def count(self) -> int:
        return self._total

    def chunk_verified(self) -> list[bool]:
        return list(self._verified)

    def _fetch(self, field: str, keys: list[int] | list[str]) -> list[dict[str, Any]]:
        """The rows whose `field` ("num" or "id") is one of `keys`, read in pages of at most
        `page_rows` rows (a chunk row holds its text: a server bounds what one query
        returns)."""
        out: list[dict[str, Any]] = []
        for i in range(0, len(keys), self.page_rows):
            listed = ", ".join(expr.literal(k) if isinstance(k, str) else str(int(k))
                               for k in keys[i:i + self.page_rows])
            out += self._read(f"{field} in [{listed}]")
        return out

    def terms_of(self, nums: list[int]) -> dict[int, set[int]]:
        """The BM25 vocabulary ids each chunk of `nums` holds: its ``sparse`` field alone
        for those not read before (whole rows, a chunk's text among them, are not needed to
        learn which terms it holds), in queries of `list_rows` chunks."""
        todo = sorted({int(n) for n in nums} - self.terms.keys())
        for i in range(0, len(todo), self.list_rows):
            listed = ", ".join(str(n) for n in todo[i:i + self.list_rows])
            got = self.engine.call(f"reading terms of {self.collection}", "query",
                                   self.collection, filter=f"num in [{listed}]",
                                   output_fields=["num", "sparse"])
            for r in got:
                self.terms[int(r["num"])] = {int(t) for t, w in dict(r["sparse"]).items()
                                             if w > 0}
        return {n: self.terms.get(n, set()) for n in nums}

    def listed(self, doing: str, filt: str) -> list[int]:
        """The numbers of the chunks matching `filt`, in order: one query of at most
        `list_rows` rows; when that many match, over ranges of `list_rows` chunk numbers,
        one query each. A query returns at most the server's cap (16,384 rows by default),
        and offset pages cannot pass it either (offset + limit is capped alike); a
        release's chunks are numbered 0 … count - 1 (`engine.rows`), so no range holds more
        than `list_rows`. (Ranges cost a query each, ~0.1 s over 60,000 chunks in Milvus
        Lite: only a release with that many matching chunks pays them.)"""
        got = self.engine.call(doing, "query", self.collection, filter=filt,
                               output_fields=["num"], limit=self.list_rows)
        if len(got) < self.list_rows:
            return sorted(int(r["num"]) for r in got)
        out: list[int] = []
        for lo in range(0, self._total, self.list_rows):
            got = self.engine.call(
                doing, "query", self.collection, output_fields=["num"],
                filter=f"({filt}) and num >= {lo} and num < {lo + self.list_rows}")
            out += sorted(int(r["num"]) for r in got)
        return out

    def _read(self, filt: str) -> list[dict[str, Any]]:
        got = self.engine.call(f"reading chunks of {self.collection}", "query", self.collection,
                               filter=filt, output_fields=CHUNK_FIELDS)
        out = []
        for r in got:
            stored = r["row"]
            if stored.get(LONG_MARK):
                stored = self._long.get(str(r["num"]))
                if not isinstance(stored, dict):
                    raise EngineError(f"release {self.collection} is incomplete in the engine "
                                      f"(chunk {r['num']}'s row is not in its {LONG_ROWS}); "
                                      "publish it again", path=str(self.engine.url),
                                      key="engine_release_incomplete")
            row = {"num": int(r["num"]), "id": r["id"], "doc": r["doc"], "kind": r["kind"],
                   "line_start": int(r["line_start"]), "line_end": int(r["line_end"]),
                   "models": ",".join(r["models"]), **stored}
            row["verified"] = bool(r["verified"])
            self._rows[row["num"]] = row
            self.terms[row["num"]] = {int(t) for t, w in dict(r["sparse"]).items() if w > 0}
            out.append(row)
        return out

    def chunks(self, nums: list[int]) -> dict[int, dict[str, Any]]:
        missing = sorted({int(n) for n in nums} - self._rows.keys())
        if missing:
            self._fetch("num", missing)
        return {n: self._rows[n] for n in nums if n in self._rows}

    def chunks_by_id(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """By chunk number where the release lists its ids (`chunks`: the primary key, and
        the rows read before kept), else by an ``id in [...]`` filter."""
        if not ids:
            return {}
        if self._num_of is not None:
            nums = [n for i in dict.fromkeys(ids) if (n := self._num_of.get(i)) is not None]
            return {r["id"]: r for r in self.chunks(nums).values()}
        return {r["id"]: r for r in self._fetch("id", list(dict.fromkeys(ids)))}

    def ranking_rows(self, nums: list[int]) -> dict[int, dict[str, Any]]:
        return self.chunks(nums)  # whole rows: the collection returns them in one query

    def ranking_rows_by_id(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        return self.chunks_by_id(ids)

    def identifier_texts(self, nums: list[int]) -> dict[int, tuple[str, str, tuple[str, ...]]]:
        return {n: identifier_text(r) for n, r in self.chunks(nums).items()}

    def section_rows(self, kinds: Collection[str],
                     table_kinds: Collection[str]) -> Iterator[SectionRow] | None:
        return None  # no pass over the collection: ranking reads the rows it needs

    def decision_inputs(self) -> list[str]:
        """As the local store's: the table chunks' numbers listed first (a few bytes a row,
        in ranges: `listed`), then their rows read in pages, each decision table's input
        headers from the ``extra["decision"]`` its row carries (the release's own data: no
        publish change)."""
        found = self.chunks(self.listed(f"listing tables of {self.collection}",
                                        'kind == "table"'))
        return [h for n in sorted(found) for h in input_headers(found[n].get("extra"))]

    def overlapping(self, doc: str, line_start: int, line_end: int) -> list[dict[str, Any]]:
        """As the local store's: the chunk numbers are listed first (a few bytes a row, in
        ranges: `listed`; a document's page asks for all of its chunks), then their rows
        read in pages."""
        found = self.chunks(self.listed(
            f"reading chunks of {self.collection}",
            f"doc == {expr.literal(doc)} and line_start <= {int(line_end)} "
            f"and line_end >= {int(line_start)}"))
        return sorted(found.values(), key=lambda r: (r["line_start"], r["num"]))

    def doc(self, doc: str) -> dict[str, Any] | None:
        return self._docs.get(doc)

    def docs(self) -> list[dict[str, Any]]:
        return [self._docs[d] for d in sorted(self._docs)]

    def doc_names(self) -> list[str]:
        return sorted(self._docs)

    def heading_paths(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """As the local store's: every (document, heading path) once, read from every chunk
        row in ranges of `list_rows` chunk numbers and not kept (asked only when a cited
        document is gone, `kbtools.agents.moved`)."""
        seen: set[tuple[str, tuple[str, ...]]] = set()
        for lo in range(0, self._total, self.list_rows):
            got = self.engine.call(
                f"reading heading paths of {self.collection}", "query", self.collection,
                filter=f"num >= {lo} and num < {lo + self.list_rows}",
                output_fields=["num", "doc", "row"])
            for r in got:
                stored = r["row"]
                if stored.get(LONG_MARK):
                    stored = self._long.get(str(r["num"])) or {}
                seen.add((r["doc"], tuple(stored.get("heading_path") or ())))
        return iter(seen)

    def facets(self) -> dict[str, set[str]]:
        return self._facets


class MilvusBm25(Bm25):
    """Question tokenizing and idf from the published vocabulary; scores come from Milvus."""

    def __init__(self, tok: Tokenizer, vocab: dict[str, int], df: list[int], num_docs: int,
                 store: MilvusStore):
        self.tok, self.vocab, self.retriever = tok, vocab, None
        self.df = np.asarray(df, dtype=np.float64)
        self.num_docs = num_docs
        self.store = store

    def max_idf(self) -> float:
        return float(np.log(1 + (self.num_docs + 0.5) / 0.5))

    def scores(self, ids: list[int]) -> np.ndarray | None:
        return None  # the candidate source searches the engine

    def idf(self, ids: list[int]) -> np.ndarray:
        df = self.df[ids]
        return np.asarray(np.log(1 + (self.num_docs - df + 0.5) / (df + 0.5)))

    def share(self, ids: list[int]) -> np.ndarray:
        """Share of the chunks that hold each term, from the published document frequencies
        (what the local index reads off its postings)."""
        if not ids:
            return np.zeros(0)
        return np.asarray(self.df[ids] / max(float(self.num_docs), 1.0), dtype=np.float64)

    def holders(self, ids: list[int], limit: int) -> list[int]:
        """The same as the local postings give: a sparse search on the terms alone."""
        if not ids:
            return []
        got = self.store.engine.call(
            f"searching {self.store.collection}", "search", self.store.collection,
            data=[{int(i): 1.0 for i in ids}], anns_field="sparse", limit=limit,
            output_fields=["num"],
            search_params={"metric_type": "IP", "params": {"drop_ratio_search": 0.0}})
        hits = [(int(h["entity"]["num"]), float(h["distance"])) for h in got[0]]
        return [n for n, d in sorted(hits, key=lambda h: (-h[1], h[0])) if d > 0]

    def holding_all(self, ids: list[int], limit: int) -> list[int]:
        """The chunks holding every one of the terms among the `limit` best of a sparse
        search on them (those holding all of them score highest but where a chunk repeats
        one term), by chunk number."""
        nums = self.holders(ids, limit)
        terms = self.store.terms_of(nums)
        return sorted(n for n in nums if set(ids) <= terms[n])

    def co_held(self, term: int, ids: list[int], limit: int) -> dict[int, int]:
        """`Bm25.co_held` from one sparse search: `term`'s holders (all of them when at
        most `limit` and `MAX_HOLDERS`), the terms of each read once, instead of a search
        and a read of whole rows per id."""
        held = int(self.df[term])
        if not ids or held > min(limit, MAX_HOLDERS):
            return super().co_held(term, ids, limit)
        nums = self.holders([term], held)
        terms = self.store.terms_of(nums)
        return {i: sum(i in terms[n] for n in nums) for i in ids}

    def matched(self, ids: list[int], terms: list[str], num: int) -> list[str]:
        if num not in self.store.terms:
            self.store.chunks([num])
        have = self.store.terms.get(num, set())
        return [t for t, i in zip(terms, ids, strict=True) if i in have]


class MilvusIndex(KbIndex):
    """A published release, opened for `kbtools.query.search.search`; the earlier releases
    its searches ask for are kept open (`EarlierReleases`) until it is closed."""

    kept = False  # held open by the served release's `EarlierReleases`: its close does it

    def __init__(self, engine: Engine, collection: str, parts: dict[str, Any],
                 props: dict[str, str] | None = None):
        """`props`: the collection's properties as read before `parts` (`release_parts`:
        described once per release opened, not again for each check)."""
        props = engine.properties(collection) if props is None else props
        manifest = parse_manifest(parts["manifest"].encode("utf-8"), f"{collection}/manifest")
        rel = json.loads(parts["release"]) if parts["release"] else {}
        release = ReleaseInfo(tag=rel.get("tag"), source_commit=manifest["source"]["commit"],
                              serial=rel.get("serial"), released=bool(rel),
                              dirty=manifest["source"].get("dirty") is True)
        check_derivation(engine, collection, manifest, release.tag, props)  # before any file
        root = release_root(engine, collection, parts, props)
        super().__init__(ReleaseLayout(root), manifest, release)
        self.engine, self.collection = engine, collection
        self._earlier = EarlierReleases(engine, lambda name: MilvusIndex(
            engine, name, *release_parts(engine, name)))
        table = parts["chunk_table"]
        parents = table.get("parent") or [-1] * len(table["doc"])  # none shared before
        docs: list[dict[str, Any]] = parts["docs"]
        facets = {k: set(v) for k, v in parts["facets"].items()}
        self._docs, self._facets = docs, facets
        self._chunk_table = ChunkTable(doc=np.array(table["doc"], dtype=np.int32),
                                       kind=np.array(table["kind"], dtype=object),
                                       models=np.array(table["models"], dtype=object),
                                       verified=np.array(table["verified"], dtype=bool),
                                       parent=np.array(parents, dtype=np.int64))
        store = MilvusStore(engine, collection, docs, facets, int(parts["count"]),
                            table["verified"], long_rows=parts.get(LONG_ROWS),
                            ids=parts.get("ids"))  # none before they shipped
        self._store = store
        cfg = manifest["config"]["values"]
        tok = Tokenizer(backend=cfg["bm25"]["tokenizer"], words=tuple(parts["dictionary"]))
        self._bm25 = MilvusBm25(tok, parts["vocab"], parts["df"], int(parts["num_docs"]), store)
        self._synonyms = parse_synonyms(parts.get("synonyms") or "")[0]  # none before they shipped
        self._no_answer = parts.get("no_answer") or {}  # the global rule before it shipped
        self._page_blobs: dict[str, str] = parts.get("pages") or {}  # none before they shipped
        self._links: dict[str, Any] = parts.get("links") or {}  # none before they shipped
        fields: dict[str, str] = parts["fields"]
        have = {m: sum(m in s.split(",") for s in table["models"]) for m in fields}
        partial = {m: n / max(len(table["models"]), 1) for m, n in have.items()
                   if n < len(table["models"])}  # model → share of the rows with its vector
        self.candidate_source = MilvusCandidates(engine, collection, fields, partial,
                                                 int(cfg["index"]["expansion_search"]))

    def vectors(self, model: str) -> Any:
        raise IndexLoadError("the vectors of this release are in the engine, not in files",
                             path=str(self.root))

    def shipped_pages(self, model: str) -> np.ndarray | None:
        """The page vectors published with the release; none (no columns: no page evidence)
        for a release published before they were."""
        if model not in self._pages:
            blob = self._page_blobs.get(model)
            if blob is None:
                self._pages[model] = np.zeros((len(self.docs()), 0), dtype=np.float32)
            else:
                try:
                    self._pages[model] = pages.from_bytes(base64.b64decode(blob))
                except ValueError:
                    raise EngineError(f"the page vectors of {model!r} in {self.collection} "
                                      "are unreadable; publish the release again",
                                      path=str(self.root)) from None
        return self._pages[model]

    def published_links(self) -> dict[str, Any] | None:
        return self._links

    def hold(self) -> KbIndex:
        return self

    def published_release(self, commit: str | None, tag: str | None) -> KbIndex | str:
        """Another release of this one's knowledge base that the engine holds, asked for by
        `tag` and/or `commit` (`kbtools.agents.asked`), opened for searching (the caller
        closes it); else one line saying it is not published there (`find_published`)."""
        return self._earlier.find(self.collection, commit, tag)

    def close(self) -> None:
        if not self.kept:
            self._earlier.close()
            super().close()


class EngineReader:
    """The release an alias serves, re-resolved on every `current()` (cheap: one call),
    with each release's index opened once and kept while it is served."""

    def __init__(self, engine: Engine, alias: str = ALIAS, *, files: bool = False):
        self.engine, self.alias, self.files = engine, alias, files
        self._lock = threading.Lock()
        self._open: dict[str, MilvusIndex] = {}

    def current(self) -> MilvusIndex:
        try:
            name = self.engine.alias_target(self.alias)
        except EngineError:
            raise
        if name is None:
            # another knowledge base of the database is read behind an alias of its own
            # (each named with the knowledge base it serves: 农业知识 is kb_f26ff632c0)
            others = [f"{a} ({name})" if (name := self._base_name(target)) else a
                      for target, aliases in sorted(self.engine.aliased().items())
                      for a in sorted(aliases) if a != self.alias]
            if others:
                raise EngineError(f"alias {self.alias} is missing here; the database's "
                                  f"releases are served behind {', '.join(others)}: give "
                                  f"--alias {others[0].split(' ')[0]}, or run `kb publish "
                                  "--engine …`", path=str(self.engine.url),
                                  key="engine_no_release")
            self._unserved()
            raise EngineError(f"no release is published here (alias {self.alias} is missing); "
                              "run `kb publish --engine …`", path=str(self.engine.url),
                              key="engine_no_release")
        with self._lock:
            if name not in self._open:
                try:
                    parts, props = release_parts(self.engine, name, files=self.files)
                except EngineError as exc:
                    if "not exist" in exc.message or "not found" in exc.message:
                        raise EngineError(f"alias {self.alias} points at {name}, which is gone "
                                          "from the engine; publish or roll back again",
                                          path=str(self.engine.url),
                                          key="engine_release_gone") from None
                    raise
                self._open = {name: MilvusIndex(self.engine, name, parts, props)}
                self._forget()
            return self._open[name]

    def _forget(self) -> None:
        """Remove the local copies of releases gone from the engine (`forget_gone`)."""
        listed_at = time.time()
        try:
            held = self.engine.call("listing collections", "list_collections")
        except EngineError:
            return  # the next release opened cleans up
        forget_gone(self.engine, set(held), listed_at)


    def _base_name(self, collection: str) -> str | None:
        """The name of the knowledge base the release in `collection` is of, when its
        kb.toml names it (None: not named, or the collection is gone)."""
        base = (self.engine.listed_properties(collection) or {}).get(P_BASE)
        return base_parts(base)[1] if base else None

    def _unserved(self) -> None:
        """EngineError when the database holds complete releases though no alias serves
        any (the alias was dropped by hand, or with the collection it served: milvus-lite
        drops a served collection and its aliases): not "no release is published", but the
        rollback that serves one again."""
        held = [r for r in self.engine.releases() if r["complete"]]
        if not held:
            return
        named = "" if self.alias == ALIAS else f" --alias {self.alias}"
        raise EngineError(f"alias {self.alias} is missing here (dropped by hand, or with "
                          "the collection it served), but the database holds "
                          f"{len(held)} complete release(s), the newest "
                          f"{held[-1]['tag'] or held[-1]['collection']}: `kb rollback --engine "
                          f"{self.engine.url}{named}` serves the newest again, or run `kb "
                          "publish --engine …`", path=str(self.engine.url),
                          key="engine_alias_missing")


def release_parts(engine: Engine, collection: str, *, files: bool = False
                  ) -> tuple[dict[str, Any], dict[str, str]]:
    """The ``__meta`` record of `collection` (`read_parts`; with `files`, the app's files
    too): as kept locally of its publication (`kept_parts`: a `kb query --engine` run reads
    the collection's properties, not the record), else read from the engine and kept; and
    the collection's properties, read before it (what `MilvusIndex` checks it by)."""
    props = engine.properties(collection)  # before the record: a later publication misses
    kept = kept_parts(engine, collection, props, files=files)
    if kept is not None:
        return kept, props
    parts = read_parts(engine, collection, files=files)
    keep_parts(engine, collection, props, parts)
    return parts, props


def open_engine_index(engine: Engine, alias: str = ALIAS) -> MilvusIndex:
    """The release `alias` serves now, opened for searching."""
    return EngineReader(engine, alias).current()


__all__ = ["EngineReader", "MilvusIndex", "engine_error", "open_engine_index"]
