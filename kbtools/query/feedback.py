"""Pseudo-relevance feedback for hybrid search: the question's words, plus the salient words
of the pages it found first.

A question names what the asker sees ("如何扩容系统盘？"); the page it needs may name it
otherwise (the ResizeDisk API page behind the guide, the limits page behind a how-to). The
first pages a search finds usually say those other words. So, after a first fusion, the
best chunk of each of the ``feedback_docs`` best documents is read (its BM25 terms, as the
index tokenizes them) and the terms that are salient there — in several of them, rare in the
index, not the question's own — are searched with BM25 on their own (RM3-style, on term
presence and idf: a term's weight is the fused-score share of the chunks holding it × its
idf). That second list is merged into the first BM25 list (score + ``feedback_weight`` × the
feedback score, rescaled to the first list's best), and the lists are fused again: pages no
retriever put first can now be candidates, scored by both.

The second search goes through the index's candidate source as an ordinary BM25 request
(the feedback terms as its expansion terms, each weighing 1), so a release searched in
Milvus ranks as its local files do. Measured in docs/retrieval.md ("Pseudo-relevance
feedback").
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.query.candidates import CandidateRequest, CandidateSource
from kbtools.query.fusion import Fused, FusionParams, Hit, Ranked, top

# A feedback term is held by at most this share of the index's chunks, or by at most
# MAX_CHUNKS chunks in a small index (a word most pages use says nothing about which page
# is meant).
MAX_SHARE = 0.02
MAX_CHUNKS = 25
# Digits-only tokens and single characters are never feedback terms.
MIN_TERM_CHARS = 2


def feedback_chunks(hits: list[Hit], doc_of: np.ndarray, docs: int) -> list[Hit]:
    """The best hit of each of the first `docs` documents of the fused list."""
    seen: set[int] = set()
    out: list[Hit] = []
    for h in hits:
        d = int(doc_of[h.num])
        if d in seen:
            continue
        seen.add(d)
        out.append(h)
        if len(out) == docs:
            break
    return out


def salient_terms(index: KbIndex, chunks: list[Hit], texts: dict[int, str],
                  question_ids: set[int], n_terms: int, min_support: int) -> list[int]:
    """Up to `n_terms` BM25 term ids salient in the feedback chunks: weight = Σ over the
    chunks holding the term of the chunk's share of the chunks' fused scores, × idf; terms
    of the question, frequent terms (more than MAX_SHARE of the chunks and MAX_CHUNKS), numbers, single
    characters and terms held by fewer than `min_support` chunks are left out."""
    total = sum(max(h.score, 0.0) for h in chunks) or 1.0
    weight: dict[int, float] = {}
    support: dict[int, int] = {}
    for h in chunks:
        terms, ids, _ = index.bm25.query_terms(texts[h.num])
        for t, i in zip(terms, ids, strict=True):
            if i in question_ids or len(t) < MIN_TERM_CHARS or t.isdigit():
                continue
            weight[i] = weight.get(i, 0.0) + max(h.score, 0.0) / total
            support[i] = support.get(i, 0) + 1
    ids = [i for i in weight if support[i] >= min_support]
    if not ids:
        return []
    share = index.bm25.share(ids)
    idf = index.bm25.idf(ids)
    limit = max(MAX_SHARE, MAX_CHUNKS / max(index.store.count(), 1))
    scored = [(weight[i] * float(f), i) for i, f, s in zip(ids, idf, share, strict=True)
              if s <= limit]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [i for _, i in scored[:n_terms]]


def request(req: CandidateRequest, terms: list[int]) -> CandidateRequest:
    """The BM25-only request for the feedback terms alone (each weighing 1)."""
    return replace(req, mode="bm25", term_ids=(), term_weights=(), expansion_ids=tuple(terms),
                   expansion_weight=1.0)


def merge(first: Ranked, second: Ranked, weight: float, count: int) -> Ranked:
    """BM25 candidates of the question and of its feedback terms, merged: each chunk's
    score + `weight` × its feedback score rescaled so that the best feedback chunk scores as
    the best first-list chunk (a chunk missing from a list counts 0 there); the best
    `count`."""
    if not len(second.keys) or weight <= 0:
        return first
    best_first = float(first.scores[0]) if len(first.scores) else 1.0
    scale = weight * best_first / max(float(second.scores[0]), 1e-9)
    keys = np.union1d(first.keys, second.keys)
    scores = np.zeros(len(keys), dtype=np.float64)
    scores[np.searchsorted(keys, first.keys)] += first.scores
    scores[np.searchsorted(keys, second.keys)] += scale * second.scores
    best = top(scores, count)
    return Ranked(keys[best.keys], best.scores)


def with_feedback(index: KbIndex, fused: Fused, lists: dict[str, Ranked],
                  req: CandidateRequest, params: FusionParams, question_ids: list[int],
                  source: CandidateSource) -> dict[str, Ranked] | None:
    """Hybrid search with `feedback_weight`: the candidate lists with the BM25 list merged
    with `source`'s search on the salient terms of the first pages found, or None when
    there is nothing to add (another mode, no BM25 list, no salient term)."""
    if req.mode != "hybrid" or params.feedback_weight <= 0 or "bm25" not in lists or not fused:
        return None
    chunks = feedback_chunks(fused.hits(), index.chunk_table().doc, params.feedback_docs)
    texts = {n: r["embed_text"] for n, r in
             index.store.ranking_rows([h.num for h in chunks]).items()}
    terms = salient_terms(index, [h for h in chunks if h.num in texts], texts,
                          set(question_ids) | set(req.expansion_ids),
                          params.feedback_terms, params.feedback_support)
    if not terms:
        return None
    second = source.ranked_lists(index, request(req, terms))
    if "bm25" not in second:
        return None
    return {**lists, "bm25": merge(lists["bm25"], second["bm25"], params.feedback_weight,
                                   req.count)}
