"""The default candidate source: a release's own files (kbtools.query.candidates' seam).

`LOCAL_CANDIDATES.ranked_lists` answers a `CandidateRequest` from the release's BM25
matrices (the question's terms, weighed ones at their weight, synonym expansions at theirs;
the best of the scores by `fusion.top`) and its usearch graphs (one ``vector:<model>`` list
per query model, `kbtools.query.crosslingual.vector_lists`); a filtered search over few
enough chunks ranks them exactly (`rank_exactly`, which the engine's source shares); one
allowing a broad share of them searches the graph unfiltered for proportionally more hits,
drops the others (`_kept`) as the engine does, and scores the few kept exactly: reading
~20,000 vectors to rank them all cost a warm search on the 54,626-chunk tidb-docs-cn ~10×
an unfiltered one.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from kbtools.embed.registry import get_embedder
from kbtools.errors import IndexLoadError
from kbtools.index import vectors
from kbtools.index.reader import KbIndex
from kbtools.query import fusion, pages
from kbtools.query.candidates import CandidateRequest
from kbtools.query.crosslingual import vector_lists

# a filtered vector search over at most this many allowed chunks ranks them all exactly (the
# vectors are read from memory here; the engine's limit is lower); beyond, the graph is searched
EXACT_FILTERED = 20000
# a filter allowing at least this share of the chunks with a model's vectors is searched in the
# graph unfiltered for 1/share as many hits (and a margin), the others dropped, asking for more
# while too few remain (`kbtools.engine.candidates.BROAD_SHARE`, the engine's same rule)
BROAD_SHARE = 0.25
TIE_MARGIN = 10
# ... and for at least this many times the hits wanted: the graph's recall grows with the hits
# asked (its search breadth is at least their number), and a filtered list is that of ~8×
# (what a search beyond EXACT_FILTERED asked before; a lower floor changed 2 of 60 tidb
# answers under ``kind!=table``)
OVERSAMPLE = 8
_HOLDERS: weakref.WeakKeyDictionary[KbIndex, dict[str, np.ndarray]] = \
    weakref.WeakKeyDictionary()


class LocalCandidates:
    """The default candidate source: the release's BM25 matrices and usearch graphs."""

    def ranked_lists(self, index: KbIndex, req: CandidateRequest) -> dict[str, fusion.Ranked]:
        return _candidates(index, req.text, req.mode, req.mask, list(req.term_ids), req.count,
                           list(req.expansion_ids), req.expansion_weight,
                           dict(req.term_weights))


LOCAL_CANDIDATES = LocalCandidates()


def _candidates(index: KbIndex, text: str, mode: str, mask: np.ndarray | None, ids: list[int],
                count: int, expansion: list[int] | None = None,
                expansion_weight: float = 0.0,
                weights: dict[int, float] | None = None) -> dict[str, fusion.Ranked]:
    """Ranked candidate lists: ``bm25`` (the question's terms, those of `weights` at their
    weight, plus its expansion terms at `expansion_weight`) and one ``vector:<model>`` per
    query model."""
    lists: dict[str, fusion.Ranked] = {}
    if mode in ("hybrid", "bm25") and (ids or expansion):
        weights = weights or {}
        scores = index.bm25.scores([i for i in ids if i not in weights])
        for i, w in weights.items():
            one = index.bm25.scores([i]) if i in ids else None
            if one is not None:
                scores = w * one if scores is None else scores + w * one
        extra = index.bm25.scores(expansion or [])
        if extra is not None:
            scores = expansion_weight * extra if scores is None else scores + expansion_weight * extra
        if scores is not None:
            lists["bm25"] = fusion.top(scores if mask is None else np.where(mask, scores, 0.0),
                                       count)
    if mode in ("hybrid", "vector"):
        lists.update(vector_lists(index, text, lambda model: _vector_candidates(
            index, model, text, mask, count)))
    return lists


def _vector_candidates(index: KbIndex, model: str, text: str, mask: np.ndarray | None,
                       count: int) -> fusion.Ranked:
    emb = get_embedder(model)
    if emb.fingerprint() != index.manifest["models"][model]["fingerprint"]:
        raise IndexLoadError(f"index vectors for {model!r} came from another model version; "
                             "rebuild the index", path=str(index.root), key="model_mismatch",
                             values={"model": model})
    q = pages.question_vector(model, text)
    vindex = index.vectors(model)
    if mask is None:
        keys, sims = vectors.search(vindex, q, count)
        return fusion.Ranked(keys, sims)
    keep = mask & holders(index, model)
    allowed = np.flatnonzero(keep)
    if len(allowed) == 0:
        return fusion.Ranked(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))
    share = len(allowed) / max(int(holders(index, model).sum()), 1)
    if share >= BROAD_SHARE or len(allowed) > EXACT_FILTERED:
        kept = _kept(vindex, q, keep, count, share)
        if kept is not None:  # these few scored as the exact ranking scores them (the engine's)
            allowed = np.sort(kept.keys)
    # exact over the filtered subset (or the graph's best of it): cheap when few, never misses
    mat = np.asarray(vindex.get(allowed.astype(np.uint64)), dtype=np.float32)
    return rank_exactly(allowed, mat, q, count)


def _kept(vindex: Any, q: np.ndarray, keep: np.ndarray, count: int,
          share: float) -> fusion.Ranked | None:
    """The best `count` chunks `keep` allows, from the graph searched unfiltered for 1/`share`
    as many hits (and `TIE_MARGIN`; `OVERSAMPLE` times as many at least), four times as many while too few allowed ones remain;
    None when the graph, asked for all its chunks, returned fewer (then rank them exactly)."""
    limit = max(math.ceil(count / share) + TIE_MARGIN, OVERSAMPLE * count)
    while True:
        keys, sims = vectors.search(vindex, q, limit)
        own = keep[keys]
        if int(own.sum()) >= count or len(keys) >= len(vindex):  # enough, or all there are
            return fusion.Ranked(keys[own][:count], sims[own][:count])
        if limit >= len(vindex):
            return None
        limit *= 4


def holders(index: KbIndex, model: str) -> np.ndarray:
    """Per chunk of `index`: has it its own vector of `model` (a key of its graph)? Made
    once per opened index and model (each distinct ``models`` value read once)."""
    known = _HOLDERS.setdefault(index, {})
    if model not in known:
        names, inverse = np.unique(index.chunk_table().models.astype(str), return_inverse=True)
        has = np.array([model in str(n).split(",") for n in names], dtype=bool)
        held = has[inverse.reshape(-1)]
        held.flags.writeable = False
        known[model] = held
    return known[model]


def rank_exactly(nums: np.ndarray, mat: np.ndarray, q: np.ndarray, count: int) -> fusion.Ranked:
    """Chunks `nums` (ascending), whose vectors are the rows of `mat` (float32, normalised
    here in place), ranked by cosine with unit question vector `q`: the best `count`, ties
    in chunk order. The one exact ranking of a filtered subset, local and in the engine."""
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
    sims = mat @ q
    order = np.argsort(-sims, kind="stable")[:count]
    return fusion.Ranked(nums[order], sims[order])
