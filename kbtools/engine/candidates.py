"""A published release's BM25 and vector candidates, from its Milvus collection
(`MilvusCandidates`, the ``candidate_source`` of `kbtools.engine.remote.MilvusIndex`).

BM25 is a search of the ``sparse`` field (our weights, inner product); each model's vector
list a search of its dense field (HNSW, cosine). The question's filters are the local mask
(`kbtools.query.filters.filter_mask`, widened to the sections allowed chunks share), never
their Milvus expression (`kbtools.engine.expr`): an expression costs its evaluation on every
row of the collection, whatever it matches (milvus-lite, the 54,626-chunk tidb-docs-cn:
13–23 s for a ``json_contains`` of any ``--where``, 15–19 s for ``array_contains(models, …)``
or ``num < 30000``, against 0.1–0.2 s unfiltered), so (`MilvusCandidates._kept`)

* chunks allowed that are at least `BROAD_SHARE` of the release (a broad filter; a model
  most chunks have its own vector of) are searched unfiltered for proportionally more
  hits, the others dropped here, asking for more while too few remain (a section's vector
  lent to its chunks is one hit per chunk);
* fewer are a filter on the primary key (`numbers_expression`: ranges of consecutive
  chunk numbers — a document, a folder — and a list; `numbers_filter`): chunks never a
  hit (without the model's own vector) join the runs around them, and beyond
  `FILTER_RUNS` runs the gaps of fewest other chunks are joined while they add few (the
  filter then searched for proportionally more hits, the others dropped here);
* a model few chunks have (at most `FEW_VECTORS`: the English model of a Chinese corpus)
  has their vectors fetched once per release and ranked exactly, as the local index
  ranks a filtered subset, with or without filters;
* under the question's own filters, at most `EXACT_FILTERED` allowed chunks are ranked
  exactly (their vectors fetched).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kbtools.embed.registry import get_embedder
from kbtools.engine.milvus import Engine
from kbtools.errors import EngineError
from kbtools.index.reader import KbIndex
from kbtools.query import pages
from kbtools.query.candidates import CandidateRequest
from kbtools.query.crosslingual import vector_lists
from kbtools.query.fusion import Ranked
from kbtools.query.local_candidates import rank_exactly

MAX_EF = 32768  # Milvus's bound on a HNSW search's ef
# a filtered vector search over at most this many allowed chunks ranks them all exactly, as
# the local index does (`kbtools.query.local_candidates.EXACT_FILTERED`), but the vectors come over
# the wire (~0.14 ms a row from Milvus Lite: 1,000 rows ~140 ms, 20,000 rows 3.3–3.9 s), so
# the engine's limit is lower; beyond it Milvus's filtered HNSW search is used (recall)
EXACT_FILTERED = 1000
FETCH_BYTES = 8 << 20  # vectors per query when fetching them for an exact ranking
TIE_MARGIN = 10  # extra BM25 candidates fetched so ties at the cut break by chunk number
# a model at most this many chunks have its own vector of: their vectors are fetched once
# per release (~0.14 ms a row from Milvus Lite, 384–512 floats each: 5,000 rows ~10 MB) and
# ranked exactly, as the local index's graph of those chunks alone ranks them
FEW_VECTORS = 5000
MAX_LIMIT = 16384  # Milvus's bound on a search's limit
# a search among chunks allowed by filters (or having a model's own vector) that are at least
# this share of the release is sent unfiltered for 1/share as many hits, the others dropped
# here (`MilvusCandidates._kept`): at most ~4× the hits, against a filter Milvus evaluates
# on every row
BROAD_SHARE = 0.25
# a filter on chunk numbers keeps to this many runs of consecutive numbers (each a range or
# one or two numbers: ~2,500 characters) where it can: Milvus parses it on every search, its
# cost growing with its length (milvus-lite, 54,645 rows: 13,000 numbers listed ~0.7 s,
# 5,000 ~0.3 s, one range ~0.15 s); more are joined over the fewest other chunks
# (`numbers_filter`) ...
FILTER_RUNS = 64
# ... joined over other chunks only while they add at most this share of the allowed ones (a
# search then asks for as many more hits): a scattered few (5,000 numbers, random) widened
# to most of the collection cost 8× the list (2.9 s against 0.36 s)
WIDEN_SHARE = 0.25


class MilvusCandidates:
    """BM25 and vector candidates of one question from one release collection."""

    def __init__(self, engine: Engine, collection: str, fields: dict[str, str],
                 partial: dict[str, float], ef: int):
        self.engine, self.collection, self.fields = engine, collection, fields
        self.partial, self.ef = partial, ef
        self._has: dict[str, np.ndarray] = {}  # model → per chunk: has its own vector
        # model → (its chunks, their vectors) of a model few chunks have (`FEW_VECTORS`)
        self._few: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def _search(self, data: list[Any], field: str, limit: int, filt: str,
                params: dict[str, Any]) -> list[tuple[int, float]]:
        got = self.engine.call(f"searching {self.collection}", "search", self.collection,
                               data=data, anns_field=field, limit=limit, filter=filt,
                               output_fields=["num"], search_params=params)
        return [(int(h["entity"]["num"]), float(h["distance"])) for h in got[0]]

    def ranked_lists(self, index: KbIndex, req: CandidateRequest) -> dict[str, Ranked]:
        """The candidate lists of `req`, as the local source makes them: each searched
        among the chunks the request's mask allows, which is the filters widened to the
        sections whose vectors allowed chunks share (`kbtools.query.inherit.widen_mask`),
        for BM25 as for vectors; `inherit` then keeps the allowed ones. The mask is sent
        as chunk numbers or kept here (`_kept`), never as the filters' expression."""
        lists: dict[str, Ranked] = {}
        if req.mode in ("hybrid", "bm25") and (req.term_ids or req.expansion_ids):
            weights = {int(i): req.expansion_weight for i in req.expansion_ids}
            weights.update({int(i): 1.0 for i in req.term_ids})  # BM25 · weights, as locally
            weights.update({int(i): float(w) for i, w in req.term_weights})
            hits = self._kept([weights], "sparse", req.count + TIE_MARGIN, req.mask,
                              {"metric_type": "IP", "params": {"drop_ratio_search": 0.0}})
            hits = sorted((h for h in hits if h[1] > 0), key=lambda h: (-h[1], h[0]))
            lists["bm25"] = _ranked(hits[: req.count])
        if req.mode in ("hybrid", "vector"):
            lists.update(vector_lists(index, req.text,
                                      lambda model: self._vector(index, model, req)))
        return lists

    def _kept(self, data: list[Any], field: str, want: int, keep: np.ndarray | None,
              params: dict[str, Any], ef: int = 0,
              free: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The best `want` hits of a search of `field` among the chunks `keep` allows (all:
        None). A filter expression costs Milvus its evaluation on every row, whatever it
        matches (milvus-lite, 54,626 chunks: 13–23 s for any ``json_contains`` of a
        ``--where``; a list of chunk numbers 0.3–3 s by its length): where `keep` allows at
        least `BROAD_SHARE` of the chunks, the search is sent unfiltered for proportionally
        more hits and the others dropped here, asking for more while too few remain; else
        the allowed chunk numbers are the filter (`numbers_filter`: kept short, widened over
        the chunks `free` marks, never a hit, then over the fewest others). `ef`: a vector
        search's, raised with the hits asked for when sent unfiltered or widened (`params`
        are the filtered search's)."""
        if keep is None:
            return self._search(data, field, want, "", params)
        share = float(keep.mean()) if len(keep) else 0.0
        if share >= BROAD_SHARE:
            limit = math.ceil(want / share) + TIE_MARGIN
            while True:
                limit = min(MAX_LIMIT, limit)
                asked = {**params, "params": {"ef": min(MAX_EF, max(ef, limit))}} if ef \
                    else params
                hits = self._search(data, field, limit, "", asked)
                own = [h for h in hits if keep[h[0]]]
                if len(own) >= want or len(hits) < limit:
                    return own[:want]
                if limit == MAX_LIMIT:
                    break  # as many as Milvus returns, too few allowed: filtered after all
                limit *= 4
        matched, filt = numbers_filter(keep, free)
        if int(matched.sum()) > int(keep.sum()):  # widened: as many more hits as it matches
            limit = math.ceil(want * int(matched.sum()) / max(int(keep.sum()), 1)) + TIE_MARGIN
            while True:
                limit = min(MAX_LIMIT, limit)
                inner = params.get("params", {})
                asked = {**params, "params": {**inner, "ef": min(MAX_EF, max(
                    int(inner.get("ef", 0)), ef, limit))}} if ef else params
                hits = self._search(data, field, limit, filt, asked)
                own = [h for h in hits if keep[h[0]]]
                if len(own) >= want or len(hits) < limit:
                    return own[:want]
                if limit == MAX_LIMIT:
                    break  # too few allowed among as many as Milvus returns: listed after all
                limit *= 4
            filt = numbers_expression(np.flatnonzero(keep))
        return self._search(data, field, want, filt, params)

    def _vector(self, index: KbIndex, model: str, req: CandidateRequest) -> Ranked:
        emb = get_embedder(model)
        want = index.manifest["models"][model]["fingerprint"]
        if emb.fingerprint() != want:
            raise EngineError(f"the release in the engine holds {model!r} vectors of model "
                              f"{want}, this machine has {emb.fingerprint()}; install the "
                              "matching model or publish a release built with this one",
                              path=str(self.engine.url), key="model_mismatch",
                              values={"model": model})
        q = pages.question_vector(model, req.text)  # embedded once: the page step reuses it
        has = self._has_vector(index, model)
        few = model in self.partial and int(has.sum()) <= FEW_VECTORS
        if req.mask is not None:  # the filters as the local mask, widened to the lenders
            allowed = np.flatnonzero(req.mask & has)
            if few or len(allowed) <= EXACT_FILTERED:
                return self._exact(index, model, q, allowed, req.count)
        elif few:
            return self._exact(index, model, q, np.flatnonzero(has), req.count)
        # the chunks without their own vector of the model (a section's lent to its chunks,
        # another language's) are placeholders in its graph: never a candidate
        keep = (has if req.mask is None else req.mask & has) if model in self.partial \
            else req.mask
        ef = max(self.ef, req.count)
        if model in self.partial:
            # the graph also holds the rows without this model's vector: a filtered search
            # that skips most of its nodes explores as many more to find what the local
            # graph of embedded chunks finds
            ef = min(MAX_EF, math.ceil(ef / max(self.partial[model], 1e-3)))
        params = {"metric_type": "COSINE", "params": {"ef": ef}}
        return _ranked(self._kept([q.tolist()], self.fields[model], req.count, keep, params,
                                  max(self.ef, req.count),
                                  ~has if model in self.partial else None))

    def _has_vector(self, index: KbIndex, model: str) -> np.ndarray:
        if model not in self._has:
            self._has[model] = np.array([model in m.split(",")
                                         for m in index.chunk_table().models], dtype=bool)
        return self._has[model]

    def _exact(self, index: KbIndex, model: str, q: np.ndarray, allowed: np.ndarray,
               count: int) -> Ranked:
        """The allowed chunks ranked exactly by cosine, as the local index ranks a filtered
        subset: their vectors fetched by chunk number, normalised, best first, ties in chunk
        order. (A filtered HNSW search in Milvus leaves out eligible chunks, and the lowest
        score of a list moves every score the fusion normalises with it.)"""
        if len(allowed) == 0:
            return Ranked(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))
        if model in self._few:  # every chunk with its own vector, fetched once
            nums, vectors = self._few[model]
            return rank_exactly(allowed, vectors[np.searchsorted(nums, allowed)], q, count)
        has = self._has_vector(index, model)
        if model in self.partial and int(has.sum()) <= FEW_VECTORS:
            nums = np.flatnonzero(has)
            self._few[model] = (nums, self._vectors(index, model, nums,
                                                    f"that have their own {model} vector"))
            return self._exact(index, model, q, allowed, count)
        return rank_exactly(allowed, self._vectors(index, model, allowed, "a filter allows"),
                            q, count)

    def _vectors(self, index: KbIndex, model: str, allowed: np.ndarray,
                 whose: str) -> np.ndarray:
        """The vectors of `model` of chunks `allowed` (ascending), fetched by chunk number;
        `whose` says which chunks those are in the error a missing one is (a filter's, or
        every chunk with the model's own vector: a model few chunks have, no filter sent)."""
        field = self.fields[model]
        dim = int(index.manifest["models"][model]["dim"])
        mat = np.empty((len(allowed), dim), dtype=np.float32)
        row_of = {int(n): i for i, n in enumerate(allowed)}
        found = 0
        step = max(1, FETCH_BYTES // (4 * dim))
        for start in range(0, len(allowed), step):
            nums = ", ".join(str(int(n)) for n in allowed[start:start + step])
            got = self.engine.call(f"reading vectors of {self.collection}", "query",
                                   self.collection, filter=f"num in [{nums}]",
                                   output_fields=[field])
            for r in got:
                mat[row_of[int(r["num"])]] = np.asarray(r[field], dtype=np.float32)
            found += len(got)
        if found != len(allowed):
            raise EngineError(f"release {self.collection} in the engine lacks the vectors of "
                              f"{len(allowed) - found} of the {len(allowed)} chunks {whose}; "
                              "publish it again", path=str(self.engine.url),
                              key="engine_release_incomplete")
        return mat


def numbers_filter(keep: np.ndarray, free: np.ndarray | None = None,
                   runs: int | None = None) -> tuple[np.ndarray, str]:
    """A filter on chunk numbers (`numbers_expression`) matching every chunk `keep` allows,
    and per chunk whether it matches. Gaps between allowed chunks holding only chunks
    `free` marks (never a hit: rows without the model's own vector) are joined to the runs
    around them; while more than `runs` (`FILTER_RUNS`) runs remain, so are the gaps
    holding the fewest other chunks (a tie: the first) as long as they add at most
    `WIDEN_SHARE` of the allowed chunks in all; the allowed chunks alone when that is no
    shorter. Matches exactly the allowed chunks (and free ones) when they fit; a scattered
    few stay listed (at most `BROAD_SHARE` of the chunks: more are searched unfiltered)."""
    runs = FILTER_RUNS if runs is None else runs
    nums = np.flatnonzero(keep)
    if len(nums) < 2:
        return keep.copy(), numbers_expression(nums)
    others = ~keep if free is None else ~keep & ~free  # what joining a gap adds to matches
    before = np.concatenate([[0], np.cumsum(others)])
    cost = before[nums[1:]] - before[nums[:-1] + 1]  # such chunks between allowed neighbours
    joined = cost == 0
    spare = int((~joined).sum()) + 1 - max(runs, 1)  # runs beyond the bound
    if spare > 0:  # the cheapest gaps joined too, while they add few chunks in all
        order = np.argsort(np.where(joined, -1, cost), kind="stable")[int(joined.sum()):]
        within = np.cumsum(cost[order]) <= WIDEN_SHARE * len(nums)
        joined[order[:min(spare, int(within.sum()))]] = True
    starts = nums[np.concatenate([[0], np.flatnonzero(~joined) + 1])]
    ends = nums[np.concatenate([np.flatnonzero(~joined), [len(nums) - 1]])]
    edges = np.zeros(len(keep) + 1, dtype=np.int64)
    np.add.at(edges, starts, 1)
    np.add.at(edges, ends + 1, -1)
    matched: np.ndarray = np.cumsum(edges[:-1]) > 0
    exact, joined_text = numbers_expression(nums), numbers_expression(np.flatnonzero(matched))
    if len(joined_text) >= len(exact):  # scattered: ranges of a few numbers say more
        return keep.copy(), exact
    return matched, joined_text


def numbers_expression(nums: np.ndarray) -> str:
    """A filter on the chunks `nums` (ascending) by their primary key: runs of three or more
    consecutive numbers (a document's chunks, a folder's documents) as ranges, the others
    listed, whichever of that and the plain list is shorter."""
    if not len(nums):
        return "num < 0"
    listed = f"num in [{', '.join(str(int(n)) for n in nums)}]"
    runs = np.split(nums, np.flatnonzero(np.diff(nums) != 1) + 1)
    ranges = [f"(num >= {int(r[0])} and num <= {int(r[-1])})" for r in runs if len(r) >= 3]
    singles = [str(int(n)) for r in runs if len(r) < 3 for n in r]
    ranged = " or ".join([*ranges, *([f"num in [{', '.join(singles)}]"] if singles else [])])
    return ranged if len(ranged) < len(listed) else listed


def _ranked(hits: list[tuple[int, float]]) -> Ranked:
    return Ranked(np.array([h[0] for h in hits], dtype=np.int64),
                  np.array([h[1] for h in hits], dtype=np.float32))
