"""The default candidate source: a release's own files (kbtools.query.candidates' seam).

`LOCAL_CANDIDATES.ranked_lists` answers a `CandidateRequest` from the release's BM25
matrices (the question's terms, weighed ones at their weight, synonym expansions at theirs;
the best of the scores by `fusion.top`) and its usearch graphs (one ``vector:<model>`` list
per query model, `kbtools.query.crosslingual.vector_lists`); a filtered search over few
enough chunks ranks them exactly (`rank_exactly`, which the engine's source shares); one
allowing a broad share of them searches the graph unfiltered for proportionally more hits,
drops the others (`_kept`) as the engine does, and scores the few kept exactly: reading
~20,000 vectors to rank them all cost a warm search on the 54,626-chunk tidb-docs-cn ~10×
an unfiltered one. A process ranking a filtered subset exactly again (`kb serve`, `kb mcp`,
an agent's session) keeps the model's vectors normalised in memory (`_normalised`): reading
a big folder's ~7,700 vectors from the graph one key at a time, widening and normalising
them was most of such a search (~7× an unfiltered one).
"""

from __future__ import annotations

import math
import threading
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


class _Normalised:
    """One index's holders of a model (`holders`): the exact rankings asked so far, and
    from the second on, their vectors normalised (a row per holder, in chunk order) and
    each chunk's row."""

    def __init__(self) -> None:
        self.asked = 0
        self.rows: np.ndarray | None = None
        self.row_of: np.ndarray | None = None


_NORMALISED: weakref.WeakKeyDictionary[KbIndex, dict[str, _Normalised]] = \
    weakref.WeakKeyDictionary()
_NORMALISED_LOCK = threading.Lock()  # the web app's searches run on several threads


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
        mat = np.asarray(vindex.get(allowed.astype(np.uint64)), dtype=np.float32)
        return rank_exactly(allowed, mat, q, count)
    # exact over the filtered subset: cheap when few, never misses
    return rank_normalised(allowed, _normalised(index, model, vindex, allowed), q, count)


def _normalised(index: KbIndex, model: str, vindex: Any, allowed: np.ndarray) -> np.ndarray:
    """The vectors of chunks `allowed` (holders of `model`, ascending), normalised as
    `rank_exactly` normalises them: read from the graph the first time an index ranks a
    subset exactly; from the second on (a long-lived process), rows of all its holders'
    vectors normalised once and kept, when they take at most `vectors.RESIDENT_SHARE` of
    the memory available (54,645 chunks × 512 floats: 94 MB)."""
    with _NORMALISED_LOCK:
        kept = _NORMALISED.setdefault(index, {}).setdefault(model, _Normalised())
        kept.asked += 1
        rows, row_of, asked = kept.rows, kept.row_of, kept.asked
    if rows is None or row_of is None:
        held = holders(index, model)
        if asked < 2 or not vectors.memory_fits(int(held.sum()) * int(vindex.ndim) * 4):
            return normalise(np.asarray(vindex.get(allowed.astype(np.uint64)),
                                        dtype=np.float32))
        rows, row_of = _all_normalised(vindex, held)
        with _NORMALISED_LOCK:
            kept.rows, kept.row_of = rows, row_of
    mine: np.ndarray = rows[row_of[allowed]]
    return mine


# holders' vectors are read from the graph this many at a time to be kept (`_normalised`):
# usearch's `get` answers a tuple of one array per key, converted here a batch at a time
READ_BATCH = 4096


def _all_normalised(vindex: Any, held: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every holder's vector (`held`: per chunk, has it one), normalised, a row per holder in
    chunk order, read-only; and per chunk its row (-1: none)."""
    keys = np.flatnonzero(held)
    rows = np.empty((len(keys), int(vindex.ndim)), dtype=np.float32)
    for start in range(0, len(keys), READ_BATCH):
        part = keys[start:start + READ_BATCH].astype(np.uint64)
        rows[start:start + len(part)] = np.asarray(vindex.get(part), dtype=np.float32)
    normalise(rows)
    rows.flags.writeable = False
    row_of = np.full(len(held), -1, dtype=np.int64)
    row_of[keys] = np.arange(len(keys))
    row_of.flags.writeable = False
    return rows, row_of


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
    return rank_normalised(nums, normalise(mat), q, count)


def normalise(mat: np.ndarray) -> np.ndarray:
    """`mat` (float32 rows) divided in place by each row's length; each row's numbers do
    not depend on the other rows (normalised alone or among all a model's, the same)."""
    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
    return mat


def rank_normalised(nums: np.ndarray, mat: np.ndarray, q: np.ndarray,
                    count: int) -> fusion.Ranked:
    """`rank_exactly` of rows `mat` already normalised (`normalise`)."""
    sims = mat @ q
    order = np.argsort(-sims, kind="stable")[:count]
    return fusion.Ranked(nums[order], sims[order])
