"""Anchor text for hybrid search: a page described in the words of the pages linking to it.

The classic web-retrieval signal. A page's own text names its subject the way its writer
does ("使用限制", "ResizeDisk"); the pages that link to it name it the way a reader looking
for it would ("块存储使用限制", "云盘数量上限请参见使用限制", "调用ResizeDisk扩容云盘"). So
every document gets an *anchor field*: the label of every link to it from another document
plus the sentence around that link (identical texts counted once: templated pages repeat
them). The field is searched as one bag of words per page with BM25 (the index's own
tokenizer and vocabulary, idf over the pages that have one); after fusion every candidate
chunk of a page rises by ``[query] anchor_weight`` × the page's anchor score relative to
the best page's, but never past ``ANCHOR_CAP`` × the best hit's score unless it is the best
page's own (other pages' words can bring a page up to the best answer, not over it: the
uncapped bonus put reference pages over the FAQ answers that link to them, tidb_faq_zh
Hit@1 −0.024), and the ``ANCHOR_JOIN`` best anchor pages that no retriever listed join
with their first chunk (their title and introduction) at that bonus alone: the field brings
pages into the candidates, not only reorders them. Chunk texts, display and citations are
untouched. Only for a question whose words the best candidates do not hold
(`kbtools.query.fusion.words_found`). Measured in docs/retrieval.md ("aliyun linked, fourth
round", "fifth round").

Links are those of the link graph (`kbtools.query.neighbours`: resolved by the build, or here
by path, ``source`` field or title); the field is derived from the release's chunks once per
index object, so it needs no data/ change and an older release has it too.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass

import numpy as np

from kbtools.index.bm25 import lucene_scores
from kbtools.index.reader import KbIndex
from kbtools.query import link_cache
from kbtools.query.fusion import Hit, best_first
from kbtools.query.neighbours import MD_LINK, first_chunks, link_targets, resolver_of

ANCHOR_JOIN = 3  # pages found by their anchor field alone that join the candidates
CONTEXT_CHARS = 80  # at most this much of the sentence on each side of a link
ANCHOR_CAP = 0.9  # anchor text lifts a page to at most this share of the best page's score
K1, B = 1.2, 0.75  # BM25 of the anchor field (the chunk index's usual values)

SENTENCE_END = re.compile(r"[。！？；!?;\n]")
# a whole Markdown link, its target included even when written with spaces (exported sites),
# or a reference link with its label (`[text][label]`, `[label][]`)
WHOLE_LINK = re.compile(r"\[(?P<label>[^\[\]\n]*)\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")


@dataclass(frozen=True)
class AnchorField:
    """Per page, BM25 weights of its anchor field's terms: a CSR matrix over term ids
    (``indptr`` by term id, ``docs`` and ``weights`` its postings)."""

    indptr: np.ndarray
    docs: np.ndarray
    weights: np.ndarray
    n_docs: int

    def scores(self, ids: list[int]) -> np.ndarray:
        """Per document, the anchor field's BM25 score for the question's term ids."""
        out = np.zeros(self.n_docs, dtype=np.float64)
        for i in sorted(set(ids)):  # a fixed order: the same sums on every machine
            if 0 <= i < len(self.indptr) - 1:
                lo, hi = self.indptr[i], self.indptr[i + 1]
                np.add.at(out, self.docs[lo:hi], self.weights[lo:hi])
        return out


def context(text: str, written: str) -> str:
    """The sentence of `text` around the link written as `written` (cut at CONTEXT_CHARS on
    each side), links in it reduced to their labels; just the label when it is not found."""
    m = MD_LINK.match(written)
    label = m.group("label") if m else written
    at = text.find(written)
    if at < 0:
        return label
    lo = max(at - CONTEXT_CHARS, 0)
    ends = list(SENTENCE_END.finditer(text, lo, at))
    start = ends[-1].end() if ends else lo
    end_m = SENTENCE_END.search(text, at + len(written), at + len(written) + CONTEXT_CHARS)
    end = end_m.start() if end_m else min(len(text), at + len(written) + CONTEXT_CHARS)
    return WHOLE_LINK.sub(lambda x: x.group("label"), text[start:end])


def anchor_texts(index: KbIndex) -> list[list[str]]:
    """Per document (in `index.docs()` order), the distinct anchor texts of the links to it
    from other documents, in chunk order (an engine's index: as published)."""
    docs = index.docs()
    if (published := index.published_links()) is not None:
        texts = published.get("anchors") or []  # none: published before anchors were
        return [list(texts[d]) if d < len(texts) else [] for d in range(len(docs))]
    resolver = resolver_of(index)
    out: list[dict[str, None]] = [{} for _ in docs]
    for doc, links, text in index.store.chunk_links_text():
        for _, target, link in link_targets(resolver, doc, links):
            out[target].setdefault(" ".join(context(text, str(link.get("text") or "")).split()))
    return [list(d) for d in out]


_FIELDS: weakref.WeakKeyDictionary[KbIndex, AnchorField] = weakref.WeakKeyDictionary()


def anchor_field(index: KbIndex) -> AnchorField:
    """The index's anchor field (made once per index object): BM25 over the pages that have
    one (their count and mean length give idf and length normalisation), the index's own
    formula (`kbtools.index.bm25.lucene_scores`)."""
    if index not in _FIELDS:
        local = index.published_links() is None  # an engine's: from what Milvus publishes
        settings = [CONTEXT_CHARS, K1, B, SENTENCE_END.pattern, WHOLE_LINK.pattern]
        kept = link_cache.load(index, "anchors", settings) if local else None
        if kept is not None:
            _FIELDS[index] = AnchorField(kept["indptr"], kept["docs"], kept["weights"],
                                         int(kept["n_docs"]))
            return _FIELDS[index]
        bm25 = index.bm25
        vocab = bm25.vocab
        per_doc = [[vocab[t] for text in texts for t in bm25.tok(text) if t in vocab]
                   for texts in anchor_texts(index)]
        has = np.flatnonzero(np.array([len(ids) > 0 for ids in per_doc], dtype=bool))
        if not len(has):
            _FIELDS[index] = AnchorField(np.zeros(len(vocab) + 1, dtype=np.int64),
                                         np.zeros(0, dtype=np.int64), np.zeros(0), len(per_doc))
        else:
            flat = np.array([i for d in has for i in per_doc[d]], dtype=np.int64)
            offsets = np.r_[0, np.cumsum([len(per_doc[d]) for d in has])].astype(np.int64)
            m = lucene_scores(flat, offsets, len(vocab), k1=K1, b=B)
            _FIELDS[index] = AnchorField(m["indptr"], has[m["indices"]],
                                         m["data"].astype(np.float64), len(per_doc))
        if local:
            f = _FIELDS[index]
            link_cache.save(index, "anchors", {"indptr": f.indptr, "docs": f.docs,
                                               "weights": f.weights,
                                               "n_docs": np.array(f.n_docs)}, settings)
    return _FIELDS[index]


def reweigh(index: KbIndex, hits: list[Hit], ids: list[int], weight: float,
            mask: np.ndarray | None = None,
            uncapped: dict[int, float] | None = None) -> list[Hit]:
    """`hits` with their page's anchor bonus (``why.anchor``) added (capped as the module
    docstring says), the ANCHOR_JOIN best anchor pages without a hit joining with their
    first chunk (unless `mask` excludes it); re-sorted best first, equal scores by the
    score without the cap (`kbtools.query.fusion.best_first`). ``uncapped``, when given,
    gets each lifted or joined hit's score without the cap (chunk number → score; an
    earlier step's entry is added to). Unchanged for a zero weight, no hits or no known
    terms."""
    if weight <= 0 or not hits or not ids:
        return hits
    scores = anchor_field(index).scores(ids)
    top = float(scores.max()) if len(scores) else 0.0
    if top <= 0:
        return hits
    bonus = weight * scores / top
    doc_of = index.chunk_table().doc
    best = min(hits, key=lambda h: (-h.score, h.num))
    best_score, best_doc = best.score, int(doc_of[best.num])

    def lifted(h: Hit) -> float:
        new = h.score + float(bonus[doc_of[h.num]])
        if int(doc_of[h.num]) == best_doc:
            return new
        return min(new, max(h.score, ANCHOR_CAP * best_score))

    raw = {} if uncapped is None else uncapped
    out = []
    for h in hits:
        if bonus[doc_of[h.num]] > 0 and (s := lifted(h)) > h.score:
            raw[h.num] = raw.get(h.num, h.score) + float(bonus[doc_of[h.num]])
            h = h.noted(s, anchor=round(s - h.score, 6))
        out.append(h)
    listed = {int(doc_of[h.num]) for h in hits}
    firsts = first_chunks(index)
    joined = 0
    for d in np.lexsort((np.arange(len(scores)), -scores)):
        if joined == ANCHOR_JOIN or scores[d] <= 0:
            break
        if int(d) in listed or firsts[d] < 0 or (mask is not None and not mask[firsts[d]]):
            continue
        joined += 1
        score = min(float(bonus[d]), ANCHOR_CAP * best_score)
        raw[int(firsts[d])] = float(bonus[d])
        out.append(Hit(int(firsts[d]), score, {
            "bm25_rank": None, "bm25_score": None, "vector_rank": None,
            "vector_score": None, "anchor": round(score, 6)}))
    return best_first(out, raw)
