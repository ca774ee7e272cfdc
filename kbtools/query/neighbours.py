"""Linked pages for hybrid search: the pages that the first pages found link to.

Documentation answers a question on more than one page: a guide links to the API reference
behind it (扩容系统盘 → ResizeDisk), a how-to to the limits and billing pages it depends on,
many pages to a few hub pages (使用向导创建实例). The question names the guide's subject, so
retrieval finds the guide; the linked page may share no words with the question at all. So,
after fusion, each page that one of the ``NEIGHBOUR_SOURCES`` best documents links to gains
``[query] link_weight`` × (the linking page's score, relative to the best) × (the question's
page similarity, `kbtools.query.pages.page_bonus` rescaled to [0, 1]), summed over the
pages linking to it — but never more than ``LINK_CAP`` × the best linking page's score: a
linked page can come right after the page that cites it, never before it. A linked page
already among the candidates lifts its best chunk; one that is not joins with its first
chunk (its title and introduction). Only for a question whose words the best candidates
do not hold (`kbtools.query.fusion.words_found`). Measured in docs/retrieval.md ("Linked
pages", "aliyun linked, fifth round").

Links are read once per index from the store (each chunk's `links`): a link the build
resolved names its document; one it could not (a corpus exported from another site, whose
links name the original paths) is resolved here by the longest tail of its path that is a
document's path or the path named by the document's ``source`` field, else by a link label
or file name that is exactly a document's title.
"""

from __future__ import annotations

import posixpath
import re
import weakref
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.query import link_cache
from kbtools.query.fusion import Fused, Hit, best_first

NEIGHBOUR_SOURCES = 3  # the best documents whose links are followed
LINK_CAP = 0.9  # a linked page scores at most this share of the best page linking to it
PATH_TAIL = 3  # path components compared when resolving a link by its path

MD_LINK = re.compile(r"\[(?P<label>[^\[\]\n]*)\]\((?P<href>[^()\s]*)")
_GRAPHS: weakref.WeakKeyDictionary[KbIndex, list[frozenset[int]]] = weakref.WeakKeyDictionary()


def _tails(path: str) -> list[str]:
    """The last 1 … PATH_TAIL components of a path, longest first."""
    parts = [p for p in posixpath.normpath(path.replace("\\", "/")).split("/")
             if p not in ("", ".", "..")]
    return ["/".join(parts[-k:]) for k in range(min(len(parts), PATH_TAIL), 0, -1)]


class Resolver:
    """Link → document number, for links the build left unresolved."""

    def __init__(self, docs: list[dict[str, Any]]):
        self.by_doc = {d["doc"]: i for i, d in enumerate(docs)}
        self.by_tail: dict[str, int] = {}
        self.by_title: dict[str, int] = {}
        for i, d in enumerate(docs):
            source = str(d.get("source") or d["metadata"].get("source") or "")
            paths = [d["doc"]] + [w for w in source.split() if w.lower().endswith(".md")]
            for path in paths:
                for tail in _tails(path):
                    self.by_tail.setdefault(tail, i)
            title = str(d.get("title") or "").strip()
            if title:
                self.by_title.setdefault(title, i)

    def resolve(self, link: dict[str, Any]) -> int | None:
        if link.get("doc"):
            return self.by_doc.get(link["doc"])
        m = MD_LINK.search(str(link.get("text") or ""))
        path = unquote(m.group("href").partition("#")[0].split("?")[0]) if m else ""
        if m is None or not path.lower().endswith((".md", ".markdown")):
            return None  # not a link to a page (an anchor, an asset, another site)
        for tail in _tails(path):
            if tail in self.by_tail:
                return self.by_tail[tail]
        stem = posixpath.splitext(posixpath.basename(path))[0].strip()
        return self.by_title.get(stem, self.by_title.get(m.group("label").strip()))


_RESOLVERS: weakref.WeakKeyDictionary[KbIndex, Resolver] = weakref.WeakKeyDictionary()


def resolver_of(index: KbIndex) -> Resolver:
    """The index's link resolver (made once per index object)."""
    if index not in _RESOLVERS:
        _RESOLVERS[index] = Resolver(index.docs())
    return _RESOLVERS[index]


def link_targets(resolver: Resolver, doc: str, links: list[Any]) -> Iterator[tuple[int, int, Any]]:
    """(source document, target document, link) for each of a chunk's links that resolves
    to another document of the index (numbers in `index.docs()` order)."""
    src = resolver.by_doc.get(doc)
    if src is None:
        return
    for link in links:
        target = resolver.resolve(link)
        if target is not None and target != src:
            yield src, target, link


def link_graph(index: KbIndex) -> list[frozenset[int]]:
    """Per document (in `index.docs()` order), the other documents it links to (an
    engine's index: as published)."""
    if index not in _GRAPHS and (published := index.published_links()) is not None:
        graph = published.get("graph") or []  # none: published before links were
        _GRAPHS[index] = [frozenset(graph[d]) if d < len(graph) else frozenset()
                          for d in range(len(index.docs()))]
    if index not in _GRAPHS:
        kept = link_cache.load(index, "graph")
        if kept is not None:
            ptr, targets = kept["indptr"].tolist(), kept["targets"].tolist()
            _GRAPHS[index] = [frozenset(targets[ptr[d]:ptr[d + 1]])
                              for d in range(len(ptr) - 1)]
            return _GRAPHS[index]
        docs = index.docs()
        resolver = resolver_of(index)
        out: list[set[int]] = [set() for _ in docs]
        for doc, links in index.store.chunk_links():
            for src, target, _ in link_targets(resolver, doc, links):
                out[src].add(target)
        _GRAPHS[index] = [frozenset(s) for s in out]
        link_cache.save(index, "graph", {
            "indptr": np.cumsum([0] + [len(s) for s in out], dtype=np.int64),
            "targets": np.array([t for s in out for t in sorted(s)], dtype=np.int64)})
    return _GRAPHS[index]


_HAS_LINKS: weakref.WeakKeyDictionary[KbIndex, bool] = weakref.WeakKeyDictionary()


def has_links(index: KbIndex) -> bool:
    """Does any document of the index link to another (no: no linked pages, no anchor text)?"""
    if index not in _HAS_LINKS:
        _HAS_LINKS[index] = any(link_graph(index))
    return _HAS_LINKS[index]


def _bonuses(hits: list[Hit], doc_of: np.ndarray, graph: list[frozenset[int]],
             similarity: np.ndarray, weight: float
             ) -> tuple[dict[int, Hit], dict[int, float], dict[int, float]]:
    """Per document its best hit; per linked document the bonus of the module docstring
    (uncapped) and its cap."""
    best: dict[int, Hit] = {}
    for h in hits:
        best.setdefault(int(doc_of[h.num]), h)
    sources = list(best.items())[:NEIGHBOUR_SOURCES]
    if not sources or sources[0][1].score <= 0:
        return best, {}, {}
    top = sources[0][1].score
    bonus: dict[int, float] = {}
    cap: dict[int, float] = {}
    for doc, hit in sources:
        for target in graph[doc]:
            bonus[target] = bonus.get(target, 0.0) + weight * hit.score / top * float(
                similarity[target])
            cap[target] = max(cap.get(target, 0.0), LINK_CAP * hit.score)
    return best, bonus, cap


def linked_scores(hits: list[Hit], doc_of: np.ndarray, graph: list[frozenset[int]],
                  similarity: np.ndarray, weight: float) -> dict[int, float]:
    """Per linked document, its new score: its best hit's score (0 if none) + the bonus of
    the module docstring, capped at LINK_CAP × its best linking page's score; only
    documents whose score rises."""
    return _rising(*_bonuses(hits, doc_of, graph, similarity, weight))


def _rising(best: dict[int, Hit], bonus: dict[int, float], cap: dict[int, float]
            ) -> dict[int, float]:
    """`linked_scores` from `_bonuses`."""
    out = {}
    for target, b in bonus.items():
        own = best[target].score if target in best else 0.0
        new = min(own + b, cap[target])
        if new > own:
            out[target] = new
    return out


def reweigh(index: KbIndex, hits: list[Hit], similarity: np.ndarray,
            weight: float, mask: np.ndarray | None = None,
            uncapped: dict[int, float] | None = None) -> list[Hit]:
    """`hits` with linked pages scored (`linked_scores`): a candidate page's best chunk
    rises, a page not among them joins with its first chunk (unless the search's filter
    `mask` excludes that chunk); ``why.linked`` holds the score given. Re-sorted best
    first, equal scores by the score without the caps (`kbtools.query.fusion.best_first`;
    ``uncapped``, chunk number → that score, holds the anchor step's and gets this
    step's). Unchanged for a zero weight."""
    if weight <= 0 or not hits:
        return hits
    doc_of = index.chunk_table().doc
    best, bonus, cap = _bonuses(hits, doc_of, link_graph(index), similarity, weight)
    scores = _rising(best, bonus, cap)
    if not scores:
        return hits
    raw = {} if uncapped is None else uncapped
    out: list[Hit] = []
    done: set[int] = set()
    for h in hits:
        d = int(doc_of[h.num])
        if d in scores and d not in done:
            done.add(d)
            raw[h.num] = raw.get(h.num, h.score) + bonus[d]
            h = h.noted(scores[d], linked=round(scores[d] - h.score, 6))
        out.append(h)
    firsts = first_chunks(index)
    for d in sorted(set(scores) - done):
        if firsts[d] >= 0 and (mask is None or mask[firsts[d]]):
            raw[int(firsts[d])] = bonus[d]
            out.append(Hit(int(firsts[d]), scores[d], {
                "bm25_rank": None, "bm25_score": None, "vector_rank": None,
                "vector_score": None, "linked": round(scores[d], 6)}))
    return best_first(out, raw)


_HUBS: weakref.WeakKeyDictionary[KbIndex, np.ndarray] = weakref.WeakKeyDictionary()


def hub_scores(index: KbIndex) -> np.ndarray:
    """Per document (in `index.docs()` order), how many other pages link to it, as
    log(1 + n) / log(1 + the most any page has): 1 for the index's most linked page (an
    overview, the limits page, the wizard every guide starts from), 0 for a page no other
    page links to (made once per index object, from `link_graph`)."""
    if index not in _HUBS:
        graph = link_graph(index)
        counts = np.zeros(len(graph), dtype=np.float64)
        for targets in graph:
            counts[list(targets)] += 1
        top = float(np.log1p(counts.max())) if len(counts) else 0.0
        _HUBS[index] = np.log1p(counts) / top if top > 0 else counts
    return _HUBS[index]


def with_hubs(index: KbIndex, fused: Fused, weight: float) -> Fused:
    """Fused candidates, each scoring `weight` × its page's `hub_scores` more (``why.hub``):
    for a question the best candidates do not word, the pages the knowledge itself sends
    readers to are the likelier answers among the candidates (docs/retrieval.md, "aliyun
    linked, sixth round"). Only candidates: no page joins. Unchanged for a zero weight."""
    if weight <= 0 or not len(fused):
        return fused
    add = weight * hub_scores(index)[index.chunk_table().doc[fused.keys]]
    return fused.rescored(fused.scores + add, ("hub", add))


_FIRSTS: weakref.WeakKeyDictionary[KbIndex, np.ndarray] = weakref.WeakKeyDictionary()


def first_chunks(index: KbIndex) -> np.ndarray:
    """Per document, its first chunk's number (-1 for a document without chunks)."""
    if index not in _FIRSTS:
        doc_of = index.chunk_table().doc
        firsts = np.full(len(index.docs()), -1, dtype=np.int64)
        docs, at = np.unique(doc_of, return_index=True)
        firsts[docs] = at
        _FIRSTS[index] = firsts
    return _FIRSTS[index]
